# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""sparkbloom's features on s3a://, in one Spark process per case (run by tests/test_s3.py
through s3_support.run_child): every step checks its rows against an oracle computed here from
the Python rows the tables were written from, and what sparkbloom skipped against where those
rows are, then prints ``PASSED <step>: <what it saw>``; the test asserts that every step printed it.

    s3_job.py parquet PREFIX         Parquet tables under s3a://<bucket>/PREFIX/
    s3_job.py delta PREFIX JAR...    a Delta table there (JARs: Delta's)
    s3_job.py iceberg PREFIX JAR     an Iceberg table in a Hadoop catalog there (JAR: Iceberg's runtime)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from index_follows import index_follows as wait_for_index
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from s3_support import S3_JARS_ENV, s3_conf, s3_path, spark_builder

import sparkbloom

ROWS_PER_FILE = 1000
FILES = 4
SCHEMA = "id long, key string, grp int"
Row = tuple[int, str, int]


def make_rows(first: int, count: int) -> list[Row]:
    # keys scattered over the ids, so that no file's or row group's min/max can rule a key out:
    # what skips is the Bloom filter
    return [(i, f"k{i * 7919 % 100_003:06d}", i % 10) for i in range(first, first + count)]


ROWS = make_rows(0, ROWS_PER_FILE * FILES)
KEY_OF = {row[0]: row[1] for row in ROWS}
ABSENT_KEY = "k050000x"  # between present keys: no min/max rules it out either


def passed(step: str, detail: object = "") -> None:
    print(f"PASSED {step}: {detail}", flush=True)


def collected(df: DataFrame) -> list[Row]:
    return sorted((r["id"], r["key"], r["grp"]) for r in df.collect())


def oracle(keep: Callable[[Row], bool], rows: Iterable[Row] = ROWS) -> list[Row]:
    return sorted(row for row in rows if keep(row))


def write_table(spark: SparkSession, path: str, with_filters: bool, files: int) -> None:
    """One file per append, ROWS_PER_FILE rows in id order each, so where a row lies follows
    from its id; row groups of ~100 rows."""
    for f in range(files):
        writer = (
            spark.createDataFrame(make_rows(f * ROWS_PER_FILE, ROWS_PER_FILE), SCHEMA)
            .coalesce(1)
            .write.mode("append")
            .option("parquet.block.size", "4096")
        )
        if with_filters:
            writer = writer.options(**sparkbloom.write_options(["id", "key"]))
        writer.parquet(path)


def hadoop_path(spark: SparkSession, path: str) -> tuple[Any, Any]:
    """Hadoop's FileSystem of ``path`` and its Path, through the session's JVM."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    path_in_jvm = jvm.org.apache.hadoop.fs.Path(path)
    return path_in_jvm.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), path_in_jvm


def delete(spark: SparkSession, path: str) -> None:
    """Removes what an earlier run against the same server left under ``path``."""
    fs, path_in_jvm = hadoop_path(spark, path)
    fs.delete(path_in_jvm, True)


class Layout:
    """Which file and row group hold each id, from the files' footers (sparkbloom.inspect's
    row counts per row group) and each file's first id."""

    def __init__(self, spark: SparkSession, path: str) -> None:
        first_id = {
            os.path.basename(r["file"]): r["first"]
            for r in spark.read.parquet(path)
            .groupBy(F.input_file_name().alias("file"))
            .agg(F.min("id").alias("first"))
            .collect()
        }
        chunks = sparkbloom.inspect(spark, path, ["id", "key"]).collect()
        self.chunks = chunks
        self.groups: list[tuple[str, int, int, int]] = []  # file, row group, first id, last id
        id_chunks = sorted(
            (os.path.basename(c["file"]), c["row_group"], c["num_values"]) for c in chunks if c["column"] == "id"
        )
        start: dict[str, int] = dict(first_id)
        for file, group, rows in id_chunks:
            self.groups.append((file, group, start[file], start[file] + rows - 1))
            start[file] += rows
        self.files = sorted(first_id)

    def where(self, ids: Iterable[int]) -> tuple[set[str], set[tuple[str, int]]]:
        """The files and row groups that hold these ids."""
        groups = {(f, g) for i in ids for f, g, lo, hi in self.groups if lo <= i <= hi}
        return {f for f, _ in groups}, groups


def check_lookup(spark: SparkSession, layout: Layout, name: str, df: DataFrame, expected: list[Row]) -> dict[str, int]:
    """The lookup returns exactly ``expected``, and sparkbloom skipped every file and row
    group that holds none of it, and no other: at the filters' fpp of 0.0001 these fixed rows
    give no false positive (and one would fail every run alike, never now and then)."""
    got = collected(df)
    assert got == expected, (name, got, expected)
    stats = sparkbloom.last_pruning(spark)
    files, groups = layout.where(row[0] for row in expected)
    assert stats["files_total"] == len(layout.files), (name, stats)
    assert stats["files_skipped"] == len(layout.files) - len(files), (name, stats, files)
    assert stats["row_groups_total"] == len(layout.groups), (name, stats)
    assert stats["row_groups_total"] - stats["row_groups_skipped"] == len(groups), (name, stats, groups)
    passed(name, stats)
    return stats


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The `sparkbloom` command, given the S3A jars and settings as --conf like any user."""
    jars = ",".join(sorted(str(j) for j in Path(os.environ[S3_JARS_ENV]).glob("*.jar")))
    conf = [f"spark.jars={jars}", "spark.driver.host=127.0.0.1", *(f"{k}={v}" for k, v in s3_conf().items())]
    command = [str(Path(sys.executable).parent / "sparkbloom"), "--master", "local[1]"]
    for setting in conf:
        command += ["--conf", setting]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=300)


def parquet(prefix: str) -> None:
    spark = spark_builder().getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    delete(spark, s3_path(prefix))
    table = s3_path(f"{prefix}/events")
    read = spark.read.parquet

    plain = s3_path(f"{prefix}/plain")
    write_table(spark, plain, with_filters=False, files=3)

    # 1. writes with filters: every row group of both columns has one
    write_table(spark, table, with_filters=True, files=FILES)
    layout = Layout(spark, table)
    assert len(layout.files) == FILES and len(layout.groups) >= 3 * FILES, layout.groups
    assert all(c["has_filter"] and not c["problem"] for c in layout.chunks), layout.chunks
    assert sum(hi - lo + 1 for _, _, lo, hi in layout.groups) == len(ROWS)
    assert collected(read(table)) == ROWS
    passed("write", f"{FILES} files, {len(layout.groups)} row groups")

    # 2. lookups by =, IN and <=>, through DataSource V1 and V2
    one = KEY_OF[1234]
    check_lookup(spark, layout, "equals", read(table).where(F.col("key") == one), oracle(lambda r: r[1] == one))
    keys = [KEY_OF[17], KEY_OF[2500], ABSENT_KEY]
    check_lookup(spark, layout, "in", read(table).where(F.col("key").isin(keys)), oracle(lambda r: r[1] in keys))
    check_lookup(spark, layout, "null-safe equals", read(table).where("id <=> 3999"), oracle(lambda r: r[0] == 3999))
    stats = check_lookup(spark, layout, "absent", read(table).where(F.col("key") == ABSENT_KEY), [])
    assert stats["files_skipped"] == FILES
    spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try:
        ids = [5, 1005, 3333]
        check_lookup(spark, layout, "in v2", read(table).where(F.col("id").isin(ids)), oracle(lambda r: r[0] in ids))
    finally:
        spark.conf.unset("spark.sql.sources.useV1SourceList")

    # 3. the keys of a join's small side prune the big side's files
    wanted = [KEY_OF[42], KEY_OF[2042], ABSENT_KEY]
    small = s3_path(f"{prefix}/wanted")
    spark.createDataFrame([(k,) for k in wanted], "key string").coalesce(1).write.parquet(small)
    joined = read(table).join(read(small), "key").select("id", "key", "grp")
    stats = check_lookup(spark, layout, "join", joined, oracle(lambda r: r[1] in wanted))
    assert stats["join_keys"] == len(wanted), stats

    # 4. the table index, over files written without filters
    assert not any(c["has_filter"] for c in sparkbloom.inspect(spark, plain, ["key"]).collect())
    # indexed at once: every file has an etag (Spark 3.5's listing drops it; sparkbloom asks)
    built = sparkbloom.build_index(spark, plain, ["key"])
    assert built["files_indexed"] == 3 and built["segments"] == 1, built
    plain_rows = make_rows(0, 3 * ROWS_PER_FILE)
    key = KEY_OF[2100]
    assert collected(read(plain).where(F.col("key") == key)) == oracle(lambda r: r[1] == key, plain_rows)
    stats = sparkbloom.last_pruning(spark)
    assert stats["files_covered_by_index"] == 3 and stats["files_skipped_by_index"] == 2, stats
    assert stats["files_skipped"] == 2, stats
    passed("index lookup", stats)
    # a file another writer adds (moved in, as a job outside this session would write it): not
    # covered, so judged by its own footer (no filter: read), until a refresh indexes it alone
    staging = s3_path(f"{prefix}/staging")
    added_rows = make_rows(3 * ROWS_PER_FILE, ROWS_PER_FILE)
    spark.createDataFrame(added_rows, SCHEMA).coalesce(1).write.parquet(staging)
    (staged,) = spark.read.parquet(staging).inputFiles()
    fs, source = hadoop_path(spark, staged)
    assert fs.rename(source, hadoop_path(spark, f"{plain}/{os.path.basename(staged)}")[1])
    plain_rows += added_rows
    key = KEY_OF[3500]
    assert collected(read(plain).where(F.col("key") == key)) == oracle(lambda r: r[1] == key, plain_rows)
    stats = sparkbloom.last_pruning(spark)
    assert stats["files_total"] == 4 and stats["files_covered_by_index"] == 3, stats
    assert stats["files_skipped_by_index"] == 3 and stats["files_skipped"] == 3, stats
    passed("index with an added file", stats)
    refreshed = sparkbloom.build_index(spark, plain)
    assert refreshed["files_indexed"] == 1 and refreshed["segments"] == 2, refreshed
    keys = [KEY_OF[3500], KEY_OF[100]]
    assert collected(read(plain).where(F.col("key").isin(keys))) == oracle(lambda r: r[1] in keys, plain_rows)
    stats = sparkbloom.last_pruning(spark)
    assert stats["files_covered_by_index"] == 4 and stats["files_skipped_by_index"] == 2, stats
    passed("index refreshed", stats)

    # 5. inspect (above) and might_contain
    probes = sparkbloom.might_contain(spark, table, "key", [one, ABSENT_KEY]).collect()
    assert len(probes) == 2 * len(layout.groups), len(probes)
    _, (holder,) = layout.where([1234])
    maybe = {(os.path.basename(p["file"]), p["row_group"], p["value"]) for p in probes if p["might_contain"]}
    assert maybe == {(*holder, one)}, maybe
    passed("might_contain")
    spark.stop()

    # ... and the command line, in a process of its own
    done = cli("inspect", table, "--columns", "key", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    (summary,) = json.loads(done.stdout)
    assert summary["files"] == FILES and summary["row_groups"] == len(layout.groups), summary
    assert summary["with_filter"] == len(layout.groups) and summary["coverage"] == 1.0, summary
    passed("cli inspect")


def delta(prefix: str, jars: list[str]) -> None:
    spark = spark_builder(
        {
            "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
            # Delta replays its log in this many tasks (50 by default): a small table
            "spark.databricks.delta.snapshotPartitions": "2",
        },
        jars,
    ).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    delete(spark, s3_path(prefix))
    table = s3_path(f"{prefix}/delta-events")
    half = len(ROWS) // 2
    # the write that creates the table sets its property; the append gets filters from it
    first = spark.createDataFrame(ROWS[:half], SCHEMA).repartition(2)
    first.write.format("delta").options(**sparkbloom.write_options(["key"])).save(table)
    spark.createDataFrame(ROWS[half:], SCHEMA).repartition(2).write.format("delta").mode("append").save(table)
    chunks = sparkbloom.inspect(spark, f"delta.`{table}`", ["key"]).collect()
    files = {c["file"] for c in chunks}
    assert len(files) == 4 and all(c["has_filter"] for c in chunks), chunks
    passed("delta write", f"{len(files)} files, {len(chunks)} row groups")

    def lookup(name: str, keys: list[str], files_kept: int) -> None:
        got = collected(spark.read.format("delta").load(table).where(F.col("key").isin(keys)))
        assert got == oracle(lambda r: r[1] in keys), (name, got)
        stats = sparkbloom.last_pruning(spark)
        assert stats["files_total"] == 4 and stats["files_skipped"] == 4 - files_kept, (name, stats)
        passed(name, stats)

    lookup("delta equals", [KEY_OF[777]], 1)
    lookup("delta absent", [ABSENT_KEY], 0)

    # the table index follows the session's Delta commits: new files indexed, removed ones dropped
    sparkbloom.build_index(spark, table, ["key"])
    rows = list(ROWS)
    added = make_rows(len(ROWS), ROWS_PER_FILE)
    rows += added

    def read() -> DataFrame:
        return spark.read.format("delta").load(table)

    commits: dict[str, Callable[[], Any]] = {
        "append": lambda: (
            spark.createDataFrame(added, SCHEMA).coalesce(1).write.format("delta").mode("append").save(table)
        ),
        "delete": lambda: spark.sql(f"DELETE FROM delta.`{table}` WHERE id % 5 = 0"),
    }
    for name, commit in commits.items():
        commit()
        if name == "delete":
            rows = [r for r in rows if r[0] % 5 != 0]
        files = index_follows(spark, table, len(read().inputFiles()))
        keys = [r[1] for r in rows[:: len(rows) // 3]] + [KEY_OF[10], ABSENT_KEY]
        for key in keys:
            assert collected(read().where(F.col("key") == key)) == oracle(lambda r, key=key: r[1] == key, rows), key
            stats = sparkbloom.last_pruning(spark)
            # Delta's own statistics may have ruled files out first: every file left is covered
            assert stats["files_covered_by_index"] == stats["files_total"] > 0, (name, key, stats)
        passed(f"delta index follows {name}", f"{files} files covered")
    spark.stop()


def index_follows(spark: SparkSession, table: str, files: int) -> int:
    """Waits until the index's background refresh after a commit covers the table's `files` files."""
    wait_for_index(spark, table, files)
    return files


def iceberg(prefix: str, jars: list[str]) -> None:
    spark = spark_builder(
        {
            "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
            "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.ice.type": "hadoop",
            "spark.sql.catalog.ice.warehouse": s3_path(f"{prefix}/warehouse"),
        },
        jars,
    ).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    delete(spark, s3_path(prefix))
    table = "ice.db.events"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, key STRING, grp INT) USING iceberg "
        "TBLPROPERTIES ('write.delete.mode' = 'copy-on-write')"
    )
    rows = list(ROWS)
    spark.createDataFrame(rows, SCHEMA).repartition(FILES).writeTo(table).append()
    built = sparkbloom.build_index(spark, table, ["key"])
    assert built["files_indexed"] == FILES, built

    def data_files() -> int:
        return spark.sql(f"SELECT count(*) FROM {table}.files WHERE content = 0").first()[0]

    def lookup(name: str, files: int) -> None:
        for key in [r[1] for r in rows[:: len(rows) // 3]] + [KEY_OF[10], ABSENT_KEY]:
            assert collected(spark.table(table).where(F.col("key") == key)) == oracle(
                lambda r, key=key: r[1] == key, rows
            ), key
            stats = sparkbloom.last_pruning(spark)
            # Iceberg's own statistics may have ruled files out first: every file left is covered
            assert stats["files_covered_by_index"] == stats["files_total"] > 0, (name, key, stats)
            assert stats["files_skipped_by_index"] >= stats["files_total"] - 1, (name, key, stats)
        passed(name, f"{files} files covered")

    lookup("iceberg index lookup", FILES)
    added = make_rows(len(ROWS), ROWS_PER_FILE)
    spark.createDataFrame(added, SCHEMA).coalesce(1).writeTo(table).append()
    rows += added
    lookup("iceberg index follows append", index_follows(spark, table, data_files()))
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 0")
    rows = [r for r in rows if r[0] % 5 != 0]
    lookup("iceberg index follows delete", index_follows(spark, table, data_files()))
    spark.stop()


def main(argv: list[str]) -> Any:
    if argv[1] == "parquet":
        return parquet(argv[2])
    if argv[1] == "delta":
        return delta(argv[2], argv[3:])
    if argv[1] == "iceberg":
        return iceberg(argv[2], argv[3:])
    raise SystemExit(f"unknown case {argv[1]!r}")


if __name__ == "__main__":
    main(sys.argv)
