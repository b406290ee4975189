# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""inspect and might_contain on files written by sparkbloom, by Spark's own parquet-java
options and by DuckDB; might_contain agrees with DuckDB's parquet_bloom_probe."""

from __future__ import annotations

import glob
from pathlib import Path
from urllib.parse import unquote, urlparse

import duckdb
import pytest
from parquet_filters import WRITES_FILTER_LENGTH
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom
from sparkbloom import SparkBloomError

ROWS = 5_000


@pytest.fixture(scope="module")
def writers(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("writers")
    data = spark.range(0, ROWS, 1, 2).select(
        F.col("id").alias("user_id"),
        F.concat(F.lit("mail-"), F.col("id")).alias("email"),
        (F.col("id") % 3).alias("tiny"),
    )
    paths = {name: root / name for name in ("sparkbloom", "parquet_java", "duckdb")}
    data.write.options(**sparkbloom.write_options(["user_id", "email"])).option(
        "parquet.block.size", 32 * 1024
    ).parquet(str(paths["sparkbloom"]))
    data.write.option("parquet.bloom.filter.enabled#user_id", "true").option(
        "parquet.bloom.filter.enabled#email", "true"
    ).option("parquet.enable.dictionary", "false").parquet(str(paths["parquet_java"]))
    paths["duckdb"].mkdir()
    duckdb.execute(
        f"COPY (SELECT range AS user_id, 'mail-' || range AS email, range % 3 AS tiny FROM range({ROWS})) "
        f"TO '{paths['duckdb']}/part-0.parquet' (FORMAT parquet, ROW_GROUP_SIZE 2048)"
    )
    return paths


def test_inspect_reports_every_chunk(spark: SparkSession, writers: dict[str, Path]) -> None:
    rows = sparkbloom.inspect(spark, str(writers["sparkbloom"])).collect()
    assert rows and set(rows[0].asDict()) == set(sparkbloom.INSPECT_COLUMNS)
    filtered = [r for r in rows if r["column"] in ("user_id", "email")]
    assert filtered and all(r["has_filter"] and r["has_length"] == WRITES_FILTER_LENGTH for r in filtered)
    assert all(r["estimated_fpp"] <= 0.011 for r in filtered)
    for r in filtered:
        assert r["estimated_ndv"] == pytest.approx(r["num_values"], rel=0.15)
    assert all(not r["has_filter"] for r in rows if r["column"] == "tiny")
    only_email = sparkbloom.inspect(spark, str(writers["parquet_java"]), columns=["email"]).collect()
    assert {r["column"] for r in only_email} == {"email"}
    assert all(r["has_filter"] and r["filter_bytes"] == 1024 * 1024 for r in only_email)


def test_inspect_errors(spark: SparkSession, writers: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(SparkBloomError, match="path does not exist"):
        sparkbloom.inspect(spark, str(tmp_path / "missing"))
    with pytest.raises(SparkBloomError, match="holds the column"):
        sparkbloom.inspect(spark, str(writers["sparkbloom"]), ["nope"]).collect()


def test_might_contain_never_rules_out_a_date_stored_otherwise(spark: SparkSession, tmp_path: Path) -> None:
    # a file written in Spark's legacy calendar stores 1000-01-01 rebased; a date in the gap
    # between the calendars (1582-10-05 to 14) must reach the probe as itself
    import datetime

    days = [datetime.date(1000, 1, 1), datetime.date(1582, 10, 10), datetime.date(2020, 2, 29)]
    for mode in ("LEGACY", "CORRECTED"):
        path = str(tmp_path / mode)
        spark.conf.set("spark.sql.parquet.datetimeRebaseModeInWrite", mode)
        try:
            spark.createDataFrame([(d,) for d in days], "d date").coalesce(1).write.options(
                **sparkbloom.write_options(["d"])
            ).parquet(path)
        finally:
            spark.conf.unset("spark.sql.parquet.datetimeRebaseModeInWrite")
        answers = {r["value"]: r["might_contain"] for r in sparkbloom.might_contain(spark, path, "d", days).collect()}
        assert all(answers.values()), (mode, answers)


def test_might_contain_takes_numpy_floats(spark: SparkSession, tmp_path: Path) -> None:
    import numpy

    path = str(tmp_path / "scores")
    spark.range(10).selectExpr("id / 2 AS score").coalesce(1).write.options(
        **sparkbloom.write_options(["score"])
    ).parquet(path)
    rows = sparkbloom.might_contain(spark, path, "score", [numpy.float64(1.5), numpy.float64(1.25)]).collect()
    assert {r["value"]: r["might_contain"] for r in rows} == {"1.5": True, "1.25": False}


@pytest.mark.parametrize("writer", ["sparkbloom", "parquet_java", "duckdb"])
@pytest.mark.parametrize(
    "column,values",
    [
        ("user_id", [0, 17, ROWS - 1, ROWS + 5, 10**12, -3]),
        ("email", ["mail-0", "mail-4999", "mail-5000", "nobody", ""]),
    ],
)
def test_might_contain_agrees_with_duckdb(
    spark: SparkSession, writers: dict[str, Path], writer: str, column: str, values: list[object]
) -> None:
    ours = {
        (Path(r["file"].removeprefix("file:")).name, r["row_group"], i): r["might_contain"]
        for i, value in enumerate(values)
        for r in sparkbloom.might_contain(spark, str(writers[writer]), column, [value]).collect()
    }
    assert ours
    compared = 0
    for file in sorted(glob.glob(str(writers[writer] / "*.parquet"))):
        for i, value in enumerate(values):
            probe = duckdb.execute(
                "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)", [file, column, value]
            ).fetchall()
            for row_group, excluded in probe:
                assert ours[(Path(file).name, row_group, i)] == (not excluded), (writer, file, row_group, value)
                compared += 1
    assert compared == len(ours)


def test_might_contain_errors(spark: SparkSession, writers: dict[str, Path]) -> None:
    with pytest.raises(SparkBloomError, match="is not in"):
        sparkbloom.might_contain(spark, str(writers["sparkbloom"]), "nope", [1])
    with pytest.raises(SparkBloomError, match="at least one value"):
        sparkbloom.might_contain(spark, str(writers["sparkbloom"]), "user_id", [])


@pytest.mark.parametrize("writer", ["sparkbloom", "parquet_java"])
def test_pruning_uses_spark_writers_filters(spark: SparkSession, writers: dict[str, Path], writer: str) -> None:
    table = spark.read.parquet(str(writers[writer]))
    for value, expected in (("mail-77", 1), ("mail-77x", 0)):  # both inside min/max
        spark.conf.set("spark.sparkbloom.enabled", "false")
        assert table.where(F.col("email") == value).count() == expected
        spark.conf.set("spark.sparkbloom.enabled", "true")
        assert table.where(F.col("email") == value).count() == expected
        stats = sparkbloom.last_pruning(spark)
        if expected == 0:
            assert stats["row_groups_skipped"] == stats["row_groups_total"] > 0, (writer, stats)
    spark.conf.unset("spark.sparkbloom.enabled")


def test_pruning_uses_duckdb_filters(spark: SparkSession, tmp_path: Path) -> None:
    # DuckDB writes filters for dictionary-encoded chunks: 100 even keys repeat.
    file = tmp_path / "duck.parquet"
    duckdb.execute(
        f"COPY (SELECT 'key-' || ((range % 100) * 2) AS k FROM range(20000)) TO '{file}' "
        "(FORMAT parquet, ROW_GROUP_SIZE 4096)"
    )
    table = spark.read.parquet(str(file))
    assert table.where(F.col("k") == "key-78").count() == 200
    assert table.where(F.col("k") == "key-77").count() == 0  # odd: absent, inside every min/max
    stats = sparkbloom.last_pruning(spark)
    assert stats["files_skipped"] == 1 and stats["row_groups_skipped"] == stats["row_groups_total"] >= 4, stats


def test_inspect_and_index_list_files_as_a_spark_read_does(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "t"
    spark.range(0, 300, 1, 3).withColumn("part", F.col("id") % 2).write.partitionBy("part").options(
        **sparkbloom.write_options(["id"])
    ).parquet(str(path))
    one = sorted(glob.glob(str(path / "part=0" / "*.parquet")))[0]
    # copies a read ignores: hidden, staging, and a name a glob filter leaves out
    for hidden in (path / ".hidden.parquet", path / "_staging" / "x.parquet"):
        hidden.parent.mkdir(exist_ok=True)
        hidden.write_bytes(Path(one).read_bytes())
    read = {_local(f) for f in spark.read.parquet(str(path)).inputFiles()}
    inspected = {_local(r["file"]) for r in sparkbloom.inspect(spark, str(path)).collect()}
    assert inspected == read and len(read) == 6
    built = sparkbloom.build_index(spark, str(path), ["id"])
    assert built["files_indexed"] == 6
    assert sparkbloom.describe_index(spark, str(path))["files_total"] == 6
    sparkbloom.drop_index(spark, str(path))


def _local(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path)).resolve()
