# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Bloom filter sizes read straight from Parquet files, independently of sparkbloom: the
footer (through pyarrow) says where each filter is, its Thrift compact header says how many
bitset bytes follow."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pyarrow.parquet as pq
import pyspark

#: Whether Spark's parquet-java records bloom_filter_length: 1.13 (Spark 3.5's) predates
#: the field, so there readers take a filter's size from its header alone.
WRITES_FILTER_LENGTH = not pyspark.__version__.startswith("3.5.")


def filter_length_ok(length: int | None, bitset: int) -> bool:
    """bloom_filter_length covers header and bitset, or is absent where it cannot be written."""
    return length is not None and length > bitset if WRITES_FILTER_LENGTH else length is None


def parquet_files(path: Path | str) -> list[str]:
    """The data files under `path`, partition directories included, hidden files excluded."""
    found = sorted(
        f
        for f in glob.glob(os.path.join(str(path), "**", "*.parquet"), recursive=True)
        if not os.path.basename(f).startswith(".")
    )
    assert found, f"no Parquet files under {path}"
    return found


def _varint(data: bytes, at: int) -> int:
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value
        shift += 7


def filter_sizes(path: Path | str) -> list[tuple[str, int, int]]:
    """(column path, bitset bytes, bloom_filter_length) of every filter in the files."""
    sizes = []
    for file in parquet_files(path):
        metadata = pq.ParquetFile(file).metadata
        with open(file, "rb") as f:
            for rg in range(metadata.num_row_groups):
                for i in range(metadata.num_columns):
                    column = metadata.row_group(rg).column(i)
                    if column.bloom_filter_offset is None:
                        continue
                    f.seek(column.bloom_filter_offset)
                    head = f.read(16)
                    # Field 1 (numBytes) is an i32: short-form field header 0x15, then a zigzag varint.
                    assert head[0] == 0x15, f"{file}: unexpected Bloom filter header {head.hex()}"
                    zigzag = _varint(head, 1)
                    sizes.append((column.path_in_schema, (zigzag >> 1) ^ -(zigzag & 1), column.bloom_filter_length))
    return sizes


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
