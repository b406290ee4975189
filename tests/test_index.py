# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The table index: no row lost whatever state the index is in, on files of every writer.

Tables of several files are written without filters by parquet-java (Spark), with
parquet-java's default filters (1 MiB per chunk, no ndv), by DuckDB and by pyarrow, each
with the randomized columns of ``test_differential_foreign`` (every type those writers
share with Spark, NaN, -0.0, nulls, unicode). An index of all of them is built with
``sparkbloom.build_index`` and the table is then queried in four states:

- **present**: the index covers every file;
- **stale**: a file added, a file deleted, and a file replaced in place by one with other
  rows but the **same length and modification time** (the new file is padded between its
  pages and its footer, which every reader accepts, and its mtime set back);
- **corrupt**: bytes of the segment overwritten (and then the manifest truncated);
- **absent**: the index dropped.

Each state runs randomized ``=``, ``<=>``, ``IN`` and AND/OR predicates with sparkbloom on
(and parquet-java's own filter pushdown off, which loses NaN rows of pyarrow's files),
compared case by case with an **in-memory copy** of the table as Spark reads it with
sparkbloom off and Parquet filter pushdown off, rebuilt after every change to the files.
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import test_differential_foreign as foreign
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructField, StructType

import sparkbloom

SEED = foreign.SEED
CASES = int(os.environ.get("SPARKBLOOM_INDEX_CASES", "30"))  # per writer and state
WRITERS = ("parquet_java_plain", "parquet_java_default", "duckdb", "pyarrow")
# Split size per writer. parquet-java's default filters (1 MiB per chunk, all of them after
# the last row group) make its files ~10 MB of filters behind ~100 KB of rows: split every
# 128 KB, each query would run ~450 tasks that read nothing. Split every 4 MB, every file is
# still read by several splits, and its row groups all fall in the first.
SPLIT_BYTES = {"parquet_java_default": 4 * 1024 * 1024}


@pytest.fixture(scope="module")
def session(spark: SparkSession) -> Iterator[SparkSession]:
    settings = {
        "spark.sql.legacy.parquet.nanosAsLong": "true",
        "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
        "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        "spark.sql.files.maxPartitionBytes": str(foreign.MAX_PARTITION_BYTES),
        # parquet-java's own pushdown is not under test, and is wrong here: `c_f32 IN (NaN)`
        # over a pyarrow file whose float statistics are [-inf, inf] drops the NaN rows
        # (vanilla Spark, sparkbloom off, returns 0 of 28)
        "spark.sql.parquet.filterPushdown": "false",
    }
    with foreign.settings_applied(spark, settings):
        yield spark


@dataclass
class Table:
    writer: str
    path: Path
    cols: list[foreign.Col]
    rows: list[tuple[Any, ...]]
    schema: StructType


def write_files(
    spark: SparkSession, writer: str, table: Table, rows: list[tuple[Any, ...]], directory: Path, files: int
) -> list[Path]:
    """Writes `rows` as `files` files of `writer` into `directory` (which must not exist)."""
    per_file = -(-len(rows) // files)
    slices = [(i * per_file, min(per_file, len(rows) - i * per_file), 400) for i in range(files)]
    if writer == "duckdb":
        foreign.write_duckdb(foreign.arrow_table(table.cols, rows), directory, slices)
    elif writer == "pyarrow":
        foreign.write_pyarrow(foreign.arrow_table(table.cols, rows), directory, slices)
    else:
        options = {"parquet.block.size": str(24 * 1024), "parquet.enable.dictionary": "false"}
        if writer == "parquet_java_default":  # parquet-java's defaults: 1 MiB filters, fpp 0.01
            options.update({"parquet.bloom.filter.enabled#k": "true", "parquet.bloom.filter.enabled#ks": "true"})
        df = spark.createDataFrame(rows, table.schema)
        df.repartition(files, "id").sortWithinPartitions("id").write.options(**options).parquet(str(directory))
    return sorted(Path(p) for p in glob.glob(str(directory / "*.parquet")))


@pytest.fixture(scope="module")
def tables(session: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Table]:
    rnd = random.Random(f"{SEED}-index")
    all_cols = foreign.columns(rnd)
    root = tmp_path_factory.mktemp("indexed")
    out = {}
    next_id = 0
    for writer in WRITERS:
        family = "parquet_java" if writer.startswith("parquet_java") else writer
        cols = [c for c in all_cols if family in c.writers]
        rows = foreign.make_rows(rnd, cols, 4000, next_id)
        next_id += 10**6
        schema = StructType(
            [StructField(n, t) for n, t, _ in foreign.key_columns()] + [StructField(c.name, c.spark) for c in cols]
        )
        table = Table(writer, root / writer, cols, rows, schema)
        write_files(session, writer, table, rows, table.path, files=6)
        out[writer] = table
    return out


def in_memory_copy(spark: SparkSession, path: Path) -> DataFrame:
    """The table as Spark reads it with sparkbloom off and filter pushdown off, in memory."""
    with foreign.settings_applied(
        spark, {"spark.sparkbloom.enabled": "false", "spark.sql.parquet.filterPushdown": "false"}
    ):
        read = spark.read.parquet(str(path))
        copy = spark.createDataFrame(read.collect(), read.schema).cache()
        copy.count()
        return copy


def compare(spark: SparkSession, table: Table, state: str, rnd: random.Random) -> dict[str, int]:
    """Random cases with sparkbloom on against the in-memory copy; returns what was pruned."""
    oracle = in_memory_copy(spark, table.path)
    spark.read.parquet(str(table.path)).createOrReplaceTempView("indexed")
    generator = foreign.Generator(rnd, foreign.Table(table.writer, table.path, table.cols, table.rows, table.schema))
    tally = {"cases": 0, "with_rows": 0, "covered": 0, "skipped_by_index": 0, "files_skipped": 0}
    predicates = [generator.predicate() for _ in range(CASES)]
    expected_all = foreign.expected_ids(oracle, list(enumerate(predicates)))
    for case, predicate in enumerate(predicates):
        expected = expected_all[case]
        actual = sorted(r[0] for r in spark.table("indexed").where(predicate).select("id").collect())
        stats = sparkbloom.last_pruning(spark)
        assert actual == expected, (
            f"seed {SEED}, writer {table.writer}, index {state}, case {case}: WHERE {predicate}\n"
            f"sparkbloom returned {len(actual)} rows, the oracle {len(expected)}; "
            f"missing {sorted(set(expected) - set(actual))[:10]}; pruning {stats}"
        )
        tally["cases"] += 1
        tally["with_rows"] += bool(expected)
        tally["covered"] += stats.get("files_covered_by_index", 0)
        tally["skipped_by_index"] += stats.get("files_skipped_by_index", 0)
        tally["files_skipped"] += stats.get("files_skipped", 0)
    oracle.unpersist()
    print(f"  {table.writer} index {state}: {tally}")
    return tally


def padded_to(replacement: bytes, length: int) -> bytes:
    """`replacement` grown to `length` bytes by zeros between its last page and its footer:
    offsets in a Parquet file are absolute and the footer is found from the end, so every
    reader reads the same rows."""
    footer_length = struct.unpack("<I", replacement[-8:-4])[0]
    split = len(replacement) - 8 - footer_length
    assert length >= len(replacement), (length, len(replacement))
    return replacement[:split] + b"\0" * (length - len(replacement)) + replacement[split:]


def make_stale(spark: SparkSession, table: Table, rnd: random.Random, scratch: Path) -> None:
    """A file added, one deleted, one replaced in place with the same length and mtime."""
    files = sorted(Path(p) for p in glob.glob(str(table.path / "**" / "*.parquet"), recursive=True))
    first = max(r[0] for r in table.rows) + 1
    added = foreign.make_rows(rnd, table.cols, 500, first)
    new_files = write_files(spark, table.writer, table, added, scratch / "added", files=1)
    shutil.move(str(new_files[0]), str(table.path / "part-added.parquet"))
    files[0].unlink()
    victim = files[-1]
    # as a foreign tool rewrites a file: Hadoop's local checksum file would no longer match
    without_checksum_file(victim)
    original = victim.stat()
    rows = pq.ParquetFile(victim).metadata.num_rows
    replacement_rows = foreign.make_rows(rnd, table.cols, max(1, rows // 3), first + 1000)
    written = write_files(spark, table.writer, table, replacement_rows, scratch / "replacement", files=1)[0]
    data = padded_to(written.read_bytes(), original.st_size)
    with open(victim, "r+b") as out:  # in place: same inode, same name
        out.write(data)
    os.utime(victim, ns=(original.st_atime_ns, original.st_mtime_ns))
    assert victim.stat().st_size == original.st_size and victim.stat().st_mtime_ns == original.st_mtime_ns
    table.rows = table.rows + added + replacement_rows


def without_checksum_file(path: Path) -> None:
    """Hadoop's local checksum file would catch the damage first; object stores have none."""
    path.with_name(f".{path.name}.crc").unlink(missing_ok=True)


def corrupt_segment(path: Path) -> None:
    segment = max(glob.glob(str(path / "_sparkbloom_index" / "segment-*.sbi")), key=os.path.getsize)
    without_checksum_file(Path(segment))
    size = os.path.getsize(segment)
    with open(segment, "r+b") as out:  # zeros over the middle of the filters: bits lost, not added
        out.seek(size // 4)
        out.write(b"\0" * (size // 3))


def indexed_columns(table: Table) -> list[str]:
    return [f.name for f in table.schema.fields]


@pytest.mark.parametrize("writer", WRITERS)
def test_no_row_is_lost_in_any_index_state(
    session: SparkSession, tables: dict[str, Table], writer: str, tmp_path: Path
) -> None:
    split_bytes = SPLIT_BYTES.get(writer, foreign.MAX_PARTITION_BYTES)
    with foreign.settings_applied(session, {"spark.sql.files.maxPartitionBytes": str(split_bytes)}):
        every_state(session, tables[writer], tmp_path)


def every_state(spark: SparkSession, table: Table, tmp_path: Path) -> None:
    """The index built, made stale, refreshed, corrupted and dropped; each state queried."""
    writer = table.writer
    rnd = random.Random(f"{SEED}-{writer}-index")
    built = sparkbloom.build_index(spark, str(table.path), indexed_columns(table))
    assert built["files_indexed"] == 6 and built["rebuilt"], built
    described = sparkbloom.describe_index(spark, str(table.path))
    assert described["files_covered"] == described["files_total"] == 6, described
    print(f"\n{writer}: {described}")

    present = compare(spark, table, "present", rnd)
    assert present["covered"] >= 6 * CASES // 2, present  # most predicates use an indexed column
    assert present["skipped_by_index"] > 0, present

    make_stale(spark, table, rnd, tmp_path)
    stale = compare(spark, table, "stale", rnd)
    described = sparkbloom.describe_index(spark, str(table.path))
    assert described["files_total"] == 6 and described["files_covered"] == 4, described  # added and replaced are not

    refreshed = sparkbloom.build_index(spark, str(table.path))
    assert refreshed["files_indexed"] == 2 and not refreshed["rebuilt"] and refreshed["segments"] == 2, refreshed
    assert sparkbloom.describe_index(spark, str(table.path))["files_covered"] == 6
    compare(spark, table, "refreshed", rnd)
    assert stale["covered"] > 0

    corrupt_segment(table.path)
    corrupt = compare(spark, table, "corrupt", rnd)
    assert corrupt["covered"] < present["covered"], (corrupt, present)  # the damaged segment answered nothing
    manifest = max(glob.glob(str(table.path / "_sparkbloom_index" / "v*.manifest")))
    without_checksum_file(Path(manifest))
    Path(manifest).write_bytes(Path(manifest).read_bytes()[:10])
    spark.sql(f"REFRESH '{table.path}'")  # forget the loaded index: the manifest is read again
    assert compare(spark, table, "corrupt manifest", rnd)["covered"] == 0

    assert sparkbloom.drop_index(spark, str(table.path))
    absent = compare(spark, table, "absent", rnd)
    assert absent["covered"] == 0, absent
