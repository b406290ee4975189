# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The table index as users drive it: Python, SQL and the CLI; errors before any output;
partitioned and catalog tables; writes that keep it current; case rules; probing as a job."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import CliHere
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom
from sparkbloom import SparkBloomError

CLI = [str(Path(sys.executable).parent / "sparkbloom")]


def keys(spark: SparkSession, start: int, count: int, files: int) -> F.DataFrame:  # type: ignore[name-defined]
    return spark.range(start, start + count, 1, files).select(
        F.col("id"),
        F.concat(F.lit("user-"), F.col("id").cast("string")).alias("email"),
        (F.col("id") % 4).alias("part"),
    )


def lookup(spark: SparkSession, path: str, where: str) -> tuple[int, dict[str, int]]:
    count = spark.read.parquet(path).where(where).count()
    return count, sparkbloom.last_pruning(spark)


def test_build_describe_lookup_drop(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "plain")
    keys(spark, 0, 6000, 6).write.parquet(path)  # no filters
    built = sparkbloom.build_index(spark, path, ["id", "email"])
    assert built["files_indexed"] == 6 and built["files_not_indexed"] == 0 and built["segments"] == 1, built
    described = sparkbloom.describe_index(spark, path)
    assert described["columns"] == ["id", "email"] and described["files_covered"] == 6
    assert described["index_bytes"] > 0 and described["fpp"] == 0.0001
    assert all(0 < fpp <= 0.0002 for fpp in described["max_estimated_fpp"].values()), described

    count, stats = lookup(spark, path, "email = 'user-4321'")
    assert count == 1 and stats["files_skipped_by_index"] == 5 and stats["files_skipped"] == 5, stats
    count, stats = lookup(spark, path, "id IN (-1, -2)")
    assert count == 0 and stats["files_skipped"] == 6 and stats["filter_bytes_read"] == 0, stats
    # a column the index does not hold: judged the normal way (no filters: nothing skipped)
    count, stats = lookup(spark, path, "part = 3")
    assert count == 1500 and stats["files_skipped"] == 0, stats

    spark.conf.set("spark.sparkbloom.index.enabled", "false")
    try:
        count, stats = lookup(spark, path, "email = 'user-4321'")
        assert count == 1 and stats["files_covered_by_index"] == 0, stats
    finally:
        spark.conf.unset("spark.sparkbloom.index.enabled")

    spark.conf.set("spark.sql.sources.useV1SourceList", "")  # DataSource V2's ParquetScan
    try:
        count, stats = lookup(spark, path, "email IN ('user-4321', 'user-10')")
        assert count == 2 and stats["files_skipped_by_index"] == 4, stats
    finally:
        spark.conf.unset("spark.sql.sources.useV1SourceList")

    assert sparkbloom.drop_index(spark, path)
    assert not (Path(path) / "_sparkbloom_index").exists()
    assert not sparkbloom.drop_index(spark, path)
    with pytest.raises(SparkBloomError, match="no index"):
        sparkbloom.describe_index(spark, path)


def test_bad_input_fails_before_any_output(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    keys(spark, 0, 100, 1).write.partitionBy("part").parquet(path)
    index_dir = Path(path) / "_sparkbloom_index"
    for columns, message in ((["nope"], "does not exist"), (["part"], "partition column"), ([], "at least one column")):
        with pytest.raises(SparkBloomError, match=message):
            sparkbloom.build_index(spark, path, columns)
        assert not index_dir.exists()
    with pytest.raises(SparkBloomError, match="fpp"):
        sparkbloom.build_index(spark, path, ["id"], fpp=1.5)
    with pytest.raises(SparkBloomError, match="no index .* to refresh"):
        sparkbloom.build_index(spark, path)
    with pytest.raises(SparkBloomError, match="does not exist"):
        sparkbloom.build_index(spark, path + "-missing", ["id"])
    assert not index_dir.exists()


def test_partitioned_catalog_table_and_sql(spark: SparkSession, tmp_path: Path) -> None:
    spark.sql("DROP TABLE IF EXISTS indexed_events")
    keys(spark, 0, 4000, 4).write.partitionBy("part").option("path", str(tmp_path / "events")).saveAsTable(
        "indexed_events"
    )
    try:
        rows = spark.sql("SELECT * FROM sparkbloom_build_index('indexed_events', 'email', 0.001)").collect()
        assert rows[0]["files_indexed"] == 16, rows  # 4 tasks x 4 partitions
        described = spark.sql("SELECT * FROM sparkbloom_describe_index('indexed_events')").collect()[0]
        assert described["fpp"] == 0.001 and described["files_covered"] == 16
        assert spark.table("indexed_events").where("email = 'user-77' AND part = 1").count() == 1
        stats = sparkbloom.last_pruning(spark)
        assert stats["files_total"] == 4 and stats["files_skipped_by_index"] == 3, stats  # partition pruning first
        assert spark.sql("SELECT * FROM sparkbloom_drop_index('indexed_events')").collect()[0]["dropped"]
        with pytest.raises(Exception, match="takes one table"):
            spark.sql("SELECT * FROM sparkbloom_drop_index()").collect()
    finally:
        spark.sql("DROP TABLE IF EXISTS indexed_events")


def test_case_insensitive_names_and_files_with_own_filters(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "mixed")
    keys(spark, 0, 3000, 3).write.options(**sparkbloom.write_options(["email"])).parquet(path)
    keys(spark, 3000, 3000, 3).write.mode("append").parquet(path)  # three more files without filters
    sparkbloom.build_index(spark, path, ["EMAIL"])
    described = sparkbloom.describe_index(spark, path)
    assert described["columns"] == ["email"]
    # files with good filters of their own get one unit; the others one per row group
    assert described["units"]["email"] >= 6, described
    for key, expected in (("user-10", 1), ("user-4000", 1), ("nobody", 0)):
        count, stats = lookup(spark, path, f"Email = '{key}'")
        assert count == expected and stats["files_skipped"] >= 5, (key, stats)
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:  # the files' column is `email`: `EMAIL` matches nothing, and Spark says so
        with pytest.raises(Exception, match="EMAIL"):
            spark.read.parquet(path).where("EMAIL = 'user-10'").count()
        assert spark.read.parquet(path).where("email = 'user-10'").count() == 1
    finally:
        spark.conf.unset("spark.sql.caseSensitive")


def test_names_equal_only_by_unicode_case_folding_are_other_columns(spark: SparkSession, tmp_path: Path) -> None:
    # Spark matches names ignoring case by lower-casing them: the long s (U+017F) is not `s`,
    # though Java's equalsIgnoreCase says it is. Indexed alone, it must never answer for `s`.
    path = str(tmp_path / "long_s")
    long_s = "\u017f"
    spark.range(1000).select((F.col("id") + 1_000_000).alias(long_s), F.col("id").alias("s")).coalesce(1).write.parquet(
        path
    )
    spark.conf.set("spark.sql.caseSensitive", "true")  # ignoring case, `s` and the long s are one name to build
    try:
        sparkbloom.build_index(spark, path, [long_s])
    finally:
        spark.conf.unset("spark.sql.caseSensitive")
    # renamed by position: the scan's filter is on the file's column `s`
    count = spark.read.parquet(path).toDF("x", "v").where("v = 5").count()
    assert count == 1, sparkbloom.last_pruning(spark)
    count, stats = lookup(spark, path, f"`{long_s}` = 1000005")
    assert count == 1 and stats["files_covered_by_index"] == 1, stats
    count, stats = lookup(spark, path, f"`{long_s}` = 5")
    assert count == 0 and stats["files_skipped_by_index"] == 1, stats


def wait_covered(spark: SparkSession, path: str, files: int) -> dict[str, object]:
    deadline = time.monotonic() + 120
    while True:
        described = sparkbloom.describe_index(spark, path)
        if described["files_covered"] == files or time.monotonic() > deadline:
            return described
        time.sleep(0.5)


def test_writes_keep_the_index_current(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "growing")
    keys(spark, 0, 2000, 2).write.parquet(path)
    sparkbloom.build_index(spark, path, ["email"])
    keys(spark, 2000, 2000, 2).write.mode("append").parquet(path)
    # right after the write its files are simply not covered: found by their own footers
    assert spark.read.parquet(path).where("email = 'user-3000'").count() == 1
    described = wait_covered(spark, path, 4)
    assert described["files_covered"] == described["files_total"] == 4, described
    assert described["segments"] == 2, described
    count, stats = lookup(spark, path, "email = 'user-3000'")
    assert count == 1 and stats["files_skipped_by_index"] == 3, stats
    # a foreign writer (pyarrow) only makes the table partly uncovered, never wrong
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": [9], "email": ["foreign"], "part": [1]}), f"{path}/foreign.parquet")
    count, stats = lookup(spark, path, "email = 'foreign'")
    assert count == 1 and stats["files_covered_by_index"] == 4, stats


def test_footers_probed_by_a_job_above_the_threshold(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "many")
    keys(spark, 0, 2000, 20).write.options(**sparkbloom.write_options(["email"])).parquet(path)
    spark.conf.set("spark.sparkbloom.pruning.executorProbingAbove", "5")
    try:
        tracker = spark.sparkContext.statusTracker()
        spark.sparkContext.setJobGroup("probe-job", "probe-job")
        count, stats = lookup(spark, path, "email IN ('user-5', 'user-1999', 'nobody')")
        jobs = tracker.getJobIdsForGroup("probe-job")
        spark.sparkContext.setJobGroup("", "")
        assert count == 2 and stats["files_skipped"] == 18, stats
        assert len(jobs) >= 2, jobs  # the probing job, then the query's
    finally:
        spark.conf.unset("spark.sparkbloom.pruning.executorProbingAbove")
    count, driver_stats = lookup(spark, path, "email IN ('user-5', 'user-1999', 'nobody')")
    assert count == 2 and driver_stats["files_skipped"] == 18


def test_cli_index(spark: SparkSession, cli_here: CliHere, tmp_path: Path) -> None:
    path = str(tmp_path / "cli")
    keys(spark, 0, 1000, 2).write.parquet(path)
    code, out, err = cli_here("index", "build", path, "--columns", "id,email")
    assert code == 0, err[-2000:]
    assert json.loads(out)["files_indexed"] == 2
    code, out, _ = cli_here("index", "describe", path)
    assert code == 0 and json.loads(out)["files_covered"] == 2
    missing = subprocess.run(CLI + ["index", "build", path], capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2 and "--columns" in missing.stderr
    code, out, _ = cli_here("index", "drop", path)
    assert code == 0 and "dropped" in out


def test_empty_row_groups_keep_units_in_line(spark: SparkSession, tmp_path: Path) -> None:
    """parquet-java's reader skips row groups without rows: unit i must still be row group i."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "gaps"
    path.mkdir()
    schema = pa.schema([("id", pa.int64())])
    with pq.ParquetWriter(path / "part-0.parquet", schema) as writer:
        writer.write_table(pa.table({"id": pa.array([], pa.int64())}))
        writer.write_table(pa.table({"id": list(range(0, 100))}))
        writer.write_table(pa.table({"id": pa.array([], pa.int64())}))
        writer.write_table(pa.table({"id": list(range(100, 200))}))
    assert [pq.ParquetFile(path / "part-0.parquet").metadata.row_group(i).num_rows for i in range(4)] == [
        0,
        100,
        0,
        100,
    ]
    sparkbloom.build_index(spark, str(path), ["id"])
    for key in (5, 150, 199):
        count, stats = lookup(spark, str(path), f"id = {key}")
        assert count == 1, (key, stats)
    count, stats = lookup(spark, str(path), "id = 150")
    assert stats["row_groups_skipped"] == 3, stats  # the two empty ones and the first half


def test_a_file_replaced_in_place_is_not_judged_by_its_old_entry(spark: SparkSession, tmp_path: Path) -> None:
    """Same length, same mtime, same row groups, the key moved to another row group: a partial
    answer of the index (one column of the predicate not indexed) keeps the file but must
    not narrow the new file's row groups to where the key used to be."""
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq
    from test_index import padded_to

    path = tmp_path / "replaced"
    path.mkdir()

    def write(file: Path, ids: Sequence[int]) -> None:
        pq.write_table(
            pa.table({"id": list(ids), "tag": [i % 3 for i in ids]}),
            file,
            row_group_size=50,
            compression="NONE",
            use_dictionary=False,
            write_statistics=False,
        )

    write(path / "a.parquet", range(0, 200))
    write(path / "b.parquet", range(700, 900))  # 777 in the second row group
    sparkbloom.build_index(spark, str(path), ["id"])
    before = (path / "b.parquet").stat()
    write(tmp_path / "new.parquet", range(899, 699, -1))  # 777 in the third
    data = padded_to((tmp_path / "new.parquet").read_bytes(), before.st_size)
    with open(path / "b.parquet", "r+b") as out:
        out.write(data)
    os.utime(path / "b.parquet", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path / "b.parquet").stat().st_size == before.st_size
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        count, stats = lookup(spark, str(path), "id = 777 AND tag = 0")  # tag is not indexed
        assert count == 1 and stats["files_covered_by_index"] == 1, stats  # b is stale
        count, stats = lookup(spark, str(path), "id = 777")
        assert count == 1, stats
    finally:
        spark.conf.unset("spark.sql.parquet.filterPushdown")


def test_column_names_the_schema_parser_would_not_read(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "odd")
    spark.range(0, 1000, 1, 4).select(
        F.col("id").alias("my col"), F.col("id").cast("string").alias("sum(x)")
    ).write.parquet(path)
    sparkbloom.build_index(spark, path, ["`my col`", "`sum(x)`"])
    for where in ("`my col` = 77", "`sum(x)` = '77'"):
        count, stats = lookup(spark, path, where)
        assert count == 1 and stats["files_skipped_by_index"] == 3, (where, stats)


def test_peer_engines_read_an_indexed_table_as_before(spark: SparkSession, tmp_path: Path) -> None:
    """The index lives in `_sparkbloom_index/`, which Spark, pyarrow's datasets and DataFusion
    skip, and whose files DuckDB's and ClickHouse's `*.parquet` globs do not match."""
    import datafusion
    import duckdb
    import pyarrow.dataset as ds

    path = str(tmp_path / "shared")
    keys(spark, 0, 3000, 3).write.partitionBy("part").parquet(path)
    sparkbloom.build_index(spark, path, ["email"])
    assert (Path(path) / "_sparkbloom_index").is_dir()
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}/**/*.parquet')").fetchall() == [(3000,)]
    assert ds.dataset(path, format="parquet", partitioning="hive").count_rows() == 3000
    ctx = datafusion.SessionContext()
    ctx.register_parquet("shared", path)
    assert ctx.sql("SELECT count(*) AS n FROM shared").to_pydict()["n"] == [3000]
    assert spark.read.parquet(path).count() == 3000
