# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Filters from other writers are checked before they decide. Real files of pyarrow, DuckDB
and parquet-java (Spark's own writer), each with its own filters, are made wrong in place
(``tests/tamper.py``): the bits of a value the file holds are cleared, or the filter is
rebuilt from another type's encoding of the values, or the footer names a writer release
known to write wrong filters. sparkbloom must then read the file, find the rows an in-memory
copy holds, and say why it did not trust the filter; the same files untouched keep their
pruning. The dictionary check samples the first chunks of each writer in a runtime, so each
case starts from ``CLEAR CACHE`` (which forgets what the runtime learnt) and ends with it."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import tamper
from pyspark.sql import SparkSession

import sparkbloom

ROWS = 3000
DISTINCT = 600  # a small dictionary: every writer dictionary-encodes k and n
PRESENT, ABSENT = "key-3", "key-100x"  # ABSENT lies within k's min and max


def table() -> pa.Table:
    ids = list(range(ROWS))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "k": pa.array([f"key-{i % DISTINCT}" for i in ids]),
            "n": pa.array([(i % DISTINCT) * 7 for i in ids], pa.int64()),
        }
    )


def write_pyarrow(path: Path, spark: SparkSession) -> None:
    options = {c: {"ndv": DISTINCT, "fpp": 0.01} for c in ("k", "n")}
    pq.write_table(table(), str(path / "part-0.parquet"), bloom_filter_options=options)


def write_duckdb(path: Path, spark: SparkSession) -> None:
    con = duckdb.connect()
    con.register("t", table())
    con.execute(f"COPY (SELECT * FROM t) TO '{path}/part-0.parquet' (FORMAT parquet)")
    con.close()


def write_parquet_java(path: Path, spark: SparkSession) -> None:
    # dictionary-encoded pages of 200 rows until the dictionary reaches ~4 KiB (PRESENT is
    # in it), then plain pages: parquet-java writes no filter for a chunk whose every page is
    # dictionary-encoded, and none of a dictionary given up within the first page; sorted
    # by k, so that the dictionary compresses
    options = {"parquet.dictionary.page.size": "4096", "parquet.page.row.count.limit": "200"}
    for c in ("k", "n"):
        options |= {f"parquet.bloom.filter.enabled#{c}": "true", f"parquet.bloom.filter.expected.ndv#{c}": "600"}
    out = path / "spark"
    spark.createDataFrame(table().to_pandas()).coalesce(1).sortWithinPartitions("k").write.options(**options).parquet(
        str(out)
    )
    (written,) = out.glob("*.parquet")
    shutil.move(str(written), str(path / "part-0.parquet"))
    shutil.rmtree(out)


WRITERS: dict[str, Callable[[Path, SparkSession], None]] = {
    "pyarrow": write_pyarrow,
    "duckdb": write_duckdb,
    "parquet_java": write_parquet_java,
}


@pytest.fixture
def forgetful(spark: SparkSession) -> Iterator[SparkSession]:
    """The session, its runtime's caches and writer verdicts forgotten before and after."""
    spark.sql("CLEAR CACHE")
    try:
        yield spark
    finally:
        spark.sql("CLEAR CACHE")


def lookup(spark: SparkSession, path: Path, column: str, value: object) -> tuple[list[int], dict]:
    literal = f"'{value}'" if isinstance(value, str) else str(value)
    got = sorted(r[0] for r in spark.sql(f"SELECT id FROM parquet.`{path}` WHERE {column} = {literal}").collect())
    return got, sparkbloom.last_pruning(spark)


def holding(column: str, value: object) -> list[int]:
    rows = table().to_pylist()
    return sorted(r["id"] for r in rows if r[column] == value)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_filter_that_loses_a_value_of_its_dictionary_is_not_used(
    forgetful: SparkSession, tmp_path: Path, writer: str
) -> None:
    spark = forgetful
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    WRITERS[writer](good, spark)
    shutil.copytree(good, bad)
    # untouched, its filters prune
    got, report = lookup(spark, good, "k", PRESENT)
    assert got == holding("k", PRESENT) and report["files_by_decision"] == {"maybe": 1}, report
    got, report = lookup(spark, good, "k", ABSENT)
    assert got == [] and report["files_by_decision"] == {"skipped_by_filter": 1}, report

    tamper.clear_value(str(bad / "part-0.parquet"), "k", PRESENT)
    spark.sql("CLEAR CACHE")  # a runtime that has not met this writer yet
    got, report = lookup(spark, bad, "k", PRESENT)
    assert got == holding("k", PRESENT), (got, report)
    assert report["files_by_decision"] == {"filter_fails_dictionary": 1}, report
    # the writer is distrusted for that type from then on in this runtime: other files too
    got, report = lookup(spark, good, "k", ABSENT)
    assert got == [] and report["files_by_decision"] == {"filter_fails_dictionary": 1}, report
    # and the checks off, the wrong filter decides (what users who trust their writers choose)
    spark.conf.set("spark.sparkbloom.pruning.checkFilters", "false")
    try:
        got, report = lookup(spark, bad, "k", PRESENT)
    finally:
        spark.conf.unset("spark.sparkbloom.pruning.checkFilters")
    assert got == [] and report["files_by_decision"] == {"skipped_by_filter": 1}, report


def test_a_filter_hashed_from_another_types_encoding_is_not_used(forgetful: SparkSession, tmp_path: Path) -> None:
    spark = forgetful
    write_pyarrow(tmp_path, spark)
    values = sorted(set(table().column("n").to_pylist()))
    tamper.rehash_as(str(tmp_path / "part-0.parquet"), "n", values, "INT32")  # INT64 values hashed as 4 bytes
    got, report = lookup(spark, tmp_path, "n", 21)
    assert got == holding("n", 21) and report["files_by_decision"] == {"filter_fails_dictionary": 1}, report


def test_files_of_a_writer_release_known_to_write_wrong_filters_are_read(
    forgetful: SparkSession, tmp_path: Path
) -> None:
    spark = forgetful
    write_pyarrow(tmp_path, spark)
    file = str(tmp_path / "part-0.parquet")
    tamper.replace_created_by(file, "parquet-go version 18.4.0")
    assert pq.ParquetFile(file).metadata.created_by.startswith("parquet-go version 18.4.0")
    got, report = lookup(spark, tmp_path, "k", ABSENT)
    assert got == [] and report["files_by_decision"] == {"writer_known_bad": 1}, report
    got, report = lookup(spark, tmp_path, "k", PRESENT)
    assert got == holding("k", PRESENT) and report["files_by_decision"] == {"writer_known_bad": 1}, report


def test_an_empty_filter_of_a_chunk_with_values_is_not_used(forgetful: SparkSession, tmp_path: Path) -> None:
    spark = forgetful
    write_duckdb(tmp_path, spark)
    tamper.rehash_as(str(tmp_path / "part-0.parquet"), "k", [], "BYTE_ARRAY")  # every bit clear
    got, report = lookup(spark, tmp_path, "k", PRESENT)
    assert got == holding("k", PRESENT) and report["files_by_decision"] == {"filter_unusable": 1}, report
