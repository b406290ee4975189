# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""write_options validates like the JVM; last_pruning reports what a query skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import IllegalArgumentException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom
from sparkbloom import SparkBloomError


def test_write_options_builds_the_option_map() -> None:
    assert sparkbloom.write_options(
        ["user_id", "contact.email"], fpp=0.001, ndv={"user_id": 5000}, max_bytes=65536
    ) == {
        "bloom_filter_columns": "user_id,contact.email",
        "bloom_filter_fpp": "0.001",
        "bloom_filter_ndv.user_id": "5000",
        "bloom_filter_max_bytes": "65536",
    }
    assert sparkbloom.write_options(["a"]) == {"bloom_filter_columns": "a"}
    assert sparkbloom.write_options(["a"], exact_size=True) == {
        "bloom_filter_columns": "a",
        "bloom_filter_exact_size": "true",
    }
    assert sparkbloom.write_options(["a"], exact_size=False)["bloom_filter_exact_size"] == "false"


@pytest.mark.parametrize(
    "kwargs,jvm_options",
    [
        ({"fpp": 1.5}, {"bloom_filter_fpp": "1.5"}),
        ({"fpp": 0}, {"bloom_filter_fpp": "0"}),
        ({"ndv": {"id": -3}}, {"bloom_filter_ndv.id": "-3"}),
        ({"max_bytes": -1}, {"bloom_filter_max_bytes": "-1"}),
        ({"exact_size": "yes"}, {"bloom_filter_exact_size": "yes"}),
        ({"exact_size": 1}, {"bloom_filter_exact_size": "1"}),
    ],
)
def test_write_options_errors_match_the_jvm(
    spark: SparkSession, tmp_path: Path, kwargs: dict[str, object], jvm_options: dict[str, str]
) -> None:
    with pytest.raises(SparkBloomError) as python_error:
        sparkbloom.write_options(["id"], **kwargs)  # type: ignore[arg-type]
    target = tmp_path / "t"
    # a plain write raises the same error class with the same words: translated once, for every call
    with pytest.raises(SparkBloomError) as jvm_error:
        spark.range(3).write.options(bloom_filter_columns="id", **jvm_options).parquet(str(target))
    assert not target.exists()
    assert isinstance(python_error.value, IllegalArgumentException)
    assert python_error.value.message == jvm_error.value.message


def test_write_options_name_columns_case_insensitively_as_the_jvm_does(spark: SparkSession, tmp_path: Path) -> None:
    options = sparkbloom.write_options(["User_Id"], ndv={"user_id": 10})
    assert options["bloom_filter_ndv.user_id"] == "10"
    spark.range(3).withColumnRenamed("id", "user_id").write.options(**options).parquet(str(tmp_path / "t"))
    with pytest.raises(SparkBloomError, match="not in bloom_filter_columns"):
        sparkbloom.write_options(["a"], ndv={"b": 10})


def test_settings_are_typed_checked_at_set_and_listed(spark: SparkSession, tmp_path: Path) -> None:
    listed = {r["key"]: r for r in spark.sql("SET -v").collect()}
    for key in ("spark.sparkbloom.enabled", "spark.sparkbloom.write.fpp", "spark.sparkbloom.join.maxKeys"):
        assert key in listed and listed[key]["meaning"], key
    with pytest.raises(IllegalArgumentException, match="spark.sparkbloom.enabled"):
        spark.sql("SET spark.sparkbloom.enabled=yes")
    with pytest.raises(IllegalArgumentException, match="spark.sparkbloom.write.fpp"):
        spark.conf.set("spark.sparkbloom.write.fpp", "1.5")
    # the refused values did not stick: Parquet queries still plan and prune
    path = str(tmp_path / "t")
    spark.range(100).write.options(**sparkbloom.write_options(["id"])).parquet(path)
    assert spark.read.parquet(path).where(F.col("id") == 7).count() == 1


def test_last_pruning_reports_skipped_files(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "events")
    (
        spark.range(0, 20_000, 1, 8)
        .select(F.col("id").alias("user_id"), F.concat(F.lit("e"), F.col("id")).alias("email"))
        .orderBy(F.rand(3))
        .repartition(8)
        .write.options(**sparkbloom.write_options(["user_id", "email"]))
        .parquet(path)
    )
    assert spark.read.parquet(path).where(F.col("email") == "absent").count() == 0
    stats = sparkbloom.last_pruning(spark)
    assert set(stats) == set(sparkbloom.PRUNING_KEYS)
    assert stats["files_total"] == 8
    assert stats["files_skipped"] == 8
    assert stats["row_groups_skipped"] == stats["row_groups_total"] >= 8

    assert spark.sql(f"SELECT count(*) AS n FROM parquet.`{path}` WHERE user_id IN (1, 2, 3)").first()["n"] == 3
    stats = sparkbloom.last_pruning(spark)
    assert stats["files_skipped"] >= 8 - 3 - 1

    spark.conf.set("spark.sparkbloom.enabled", "false")
    try:
        assert spark.read.parquet(path).where(F.col("user_id") == 7).count() == 1
        assert sparkbloom.last_pruning(spark)["files_skipped"] == 0  # nothing judged
    finally:
        spark.conf.unset("spark.sparkbloom.enabled")


def test_explain_shows_pruning_for_v1_and_v2_scans(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "visible")
    (
        spark.range(0, 8_000, 1, 4)
        .select(F.col("id").alias("k"))
        .orderBy(F.rand(5))
        .repartition(4)
        .write.options(**sparkbloom.write_options(["k"]))
        .parquet(path)
    )
    v1 = spark.sql(f"EXPLAIN SELECT * FROM parquet.`{path}` WHERE k = 3").first()[0]
    assert "BloomPruning files 4 -> " in v1 and ", row groups" in v1, v1
    # a key no file can hold: the scan keeps no file, and the last pruning says why
    absent = spark.sql(f"SELECT * FROM parquet.`{path}` WHERE k = -5")
    assert "BloomPruning files 4 -> 0" in absent._jdf.queryExecution().executedPlan().toString()
    assert absent.collect() == []
    stats = sparkbloom.last_pruning(spark)
    assert stats["files_total"] == stats["files_skipped"] == 4, stats
    spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try:
        df = spark.read.parquet(path).where(F.col("k").isin(3, -7))
        v2 = df._jdf.queryExecution().executedPlan().toString()  # as EXPLAIN prints it
        assert "BatchScan" in v2 and "BloomPruning: files 4 -> " in v2, v2
        assert [r["k"] for r in df.collect()] == [3]
        stats = sparkbloom.last_pruning(spark)
        assert stats["files_total"] == 4 and stats["files_skipped"] >= 2, stats
    finally:
        spark.conf.unset("spark.sql.sources.useV1SourceList")


def test_join_keys_prune_and_show_in_explain_and_last_pruning(spark: SparkSession, tmp_path: Path) -> None:
    path = str(tmp_path / "orders")
    (
        spark.range(0, 20_000, 1, 8)
        .select(F.col("id").alias("user_id"), F.concat(F.lit("o"), F.col("id")).alias("order_id"))
        .orderBy(F.rand(9))
        .repartition(8)
        .write.options(**sparkbloom.write_options(["user_id"]))
        .parquet(path)
    )
    spark.read.parquet(path).createOrReplaceTempView("orders")
    # a table of its own (a DataFrame made from Python rows has no size estimate, so Spark
    # would not broadcast it, and keys come from the join's broadcast)
    spark.createDataFrame(
        [(k * 101, "vip" if k < 3 else "other") for k in range(50)], "user_id long, tier string"
    ).write.parquet(str(tmp_path / "users"))
    spark.read.parquet(str(tmp_path / "users")).createOrReplaceTempView("users")
    query = "SELECT order_id FROM orders WHERE user_id IN (SELECT user_id FROM users WHERE tier = 'vip')"

    plan = spark.sql("EXPLAIN " + query).first()[0]
    assert "join keys: dynamicpruningexpression(user_id" in plan, plan
    got = sorted(r["order_id"] for r in spark.sql(query).collect())
    stats = sparkbloom.last_pruning(spark)
    assert stats["join_keys"] == 3, stats
    assert stats["files_skipped"] >= 8 - 3, stats

    spark.conf.set("spark.sparkbloom.enabled", "false")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        assert got == sorted(r["order_id"] for r in spark.sql(query).collect()) == ["o0", "o101", "o202"]
    finally:
        spark.conf.unset("spark.sparkbloom.enabled")
        spark.conf.unset("spark.sql.parquet.filterPushdown")
