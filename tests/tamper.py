# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Wrong Bloom filters made from right ones, in place, independently of sparkbloom: the
footer (through pyarrow) says where each filter is; the split block filter's layout is the
Parquet specification's (32-byte blocks of eight 32-bit words, block chosen by the hash's
upper half, one bit per word by the lower half times a salt)."""

from __future__ import annotations

import os
import struct

import pyarrow.parquet as pq
import xxhash

SALTS = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)


def plain(value: object, physical: str) -> bytes:
    """A value's Parquet plain encoding (the bytes its filter hashes)."""
    if physical == "INT32":
        return struct.pack("<i", value)
    if physical == "INT64":
        return struct.pack("<q", value)
    if physical == "DOUBLE":
        return struct.pack("<d", value)
    return value.encode() if isinstance(value, str) else bytes(value)


def bits(hash_: int, blocks: int) -> list[tuple[int, int]]:
    """The (word index in the bitset, bit) pairs that hash sets."""
    block = ((hash_ >> 32) * blocks) >> 32
    key = hash_ & 0xFFFFFFFF
    return [(block * 8 + i, ((key * salt) & 0xFFFFFFFF) >> 27) for i, salt in enumerate(SALTS)]


def _bitset_at(data: bytes, offset: int) -> tuple[int, int]:
    """Where a filter's bitset starts and its bytes: every writer's header is numBytes then three one-member unions."""
    assert data[offset] == 0x15, data[offset : offset + 16].hex()
    at, value, shift = offset + 1, 0, 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            break
        shift += 7
    num_bytes = (value >> 1) ^ -(value & 1)
    unions = bytes.fromhex("1c1c0000" * 3 + "00")
    assert data[at : at + len(unions)] == unions, data[offset : at + 16].hex()
    return at + len(unions), num_bytes


def filter_locations(path: str, column: str) -> list[tuple[int, str]]:
    """(bloom_filter_offset, physical type) of `column` in each row group."""
    metadata = pq.ParquetFile(path).metadata
    found = []
    for rg in range(metadata.num_row_groups):
        for i in range(metadata.num_columns):
            chunk = metadata.row_group(rg).column(i)
            if chunk.path_in_schema == column:
                assert chunk.bloom_filter_offset is not None, f"{path}: no filter on {column}"
                found.append((chunk.bloom_filter_offset, chunk.physical_type))
    assert found, f"{path}: no column {column}"
    return found


def _write(path: str, data: bytes) -> None:
    """`data` in place of the file, and its checksum file gone: Hadoop's local file system
    (Spark's, Delta's and Iceberg's writes) would otherwise refuse the new bytes."""
    with open(path, "wb") as f:
        f.write(data)
    crc = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.crc")
    if os.path.exists(crc):
        os.remove(crc)


def clear_value(path: str, column: str, value: object) -> None:
    """Clears every bit `value` sets in `column`'s filters: each now says the value is absent."""
    data = bytearray(open(path, "rb").read())
    for offset, physical in filter_locations(path, column):
        start, num_bytes = _bitset_at(data, offset)
        for word, bit in bits(xxhash.xxh64_intdigest(plain(value, physical)), num_bytes // 32):
            at = start + word * 4
            (current,) = struct.unpack_from("<I", data, at)
            struct.pack_into("<I", data, at, current & ~(1 << bit))
    _write(path, bytes(data))


def rehash_as(path: str, column: str, values: list[object], physical: str) -> None:
    """Replaces `column`'s filters by ones of the same size holding `values` hashed as another
    physical type's plain encoding (a writer that hashed the wrong bytes)."""
    data = bytearray(open(path, "rb").read())
    for offset, _ in filter_locations(path, column):
        start, num_bytes = _bitset_at(data, offset)
        words = [0] * (num_bytes // 4)
        for v in values:
            for word, bit in bits(xxhash.xxh64_intdigest(plain(v, physical)), num_bytes // 32):
                words[word] |= 1 << bit
        data[start : start + num_bytes] = struct.pack(f"<{len(words)}I", *words)
    _write(path, bytes(data))


def replace_created_by(path: str, created_by: str) -> None:
    """The footer's `created_by` replaced by a string of the same length (the footer keeps its size)."""
    data = bytearray(open(path, "rb").read())
    old = pq.ParquetFile(path).metadata.created_by.encode()
    new = created_by.encode().ljust(len(old))
    assert len(new) == len(old), (old, new)
    footer_start = len(data) - 8 - struct.unpack_from("<i", data, len(data) - 8)[0]
    at = data.index(old, footer_start)
    data[at : at + len(old)] = new
    _write(path, bytes(data))
