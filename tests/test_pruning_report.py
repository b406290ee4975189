# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The pruning report: what skipped each file and row group, why the others were kept, and
how good the filters were; from ``last_pruning``, ``explain_pruning``, EXPLAIN and the scan
node's SQL metrics. Each answer is also checked against Spark with sparkbloom and Parquet's
pushdown off."""

from __future__ import annotations

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom

OFF = {"spark.sparkbloom.enabled": "false", "spark.sql.parquet.filterPushdown": "false"}


def keyed(spark: SparkSession, start: int, count: int, files: int) -> DataFrame:
    return spark.range(start, start + count, 1, files).select("id", F.sha2(F.col("id").cast("string"), 256).alias("k"))


def key_of(i: int) -> str:
    import hashlib

    return hashlib.sha256(str(i).encode()).hexdigest()


def answer(spark: SparkSession, df: DataFrame, off: bool = False) -> list[tuple]:
    saved = {k: spark.conf.get(k, None) for k in OFF}
    try:
        for k, v in OFF.items() if off else ():
            spark.conf.set(k, v)
        return sorted(tuple(r) for r in df.collect())
    finally:
        for k, v in saved.items():
            spark.conf.unset(k) if v is None else spark.conf.set(k, v)


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Three tables of the same keys: filters that rule out, no filters, and filters so small
    (one 32-byte block for 2,000 keys a file) that their every bit is set."""
    root = tmp_path_factory.mktemp("report")
    paths = {name: str(root / name) for name in ("filtered", "plain", "saturated")}
    keyed(spark, 0, 8000, 4).write.options(**sparkbloom.write_options(["k"])).parquet(paths["filtered"])
    keyed(spark, 0, 8000, 4).write.parquet(paths["plain"])
    keyed(spark, 0, 8000, 4).write.options(**sparkbloom.write_options(["k"], max_bytes=32)).parquet(paths["saturated"])
    return paths


def test_last_pruning_says_what_skipped_each_file_and_why_others_were_kept(
    spark: SparkSession, tables: dict[str, str]
) -> None:
    lookup = spark.read.parquet(tables["filtered"]).where(F.col("k") == key_of(17))
    assert answer(spark, lookup) == answer(spark, lookup, off=True) == [(17, key_of(17))]
    report = sparkbloom.last_pruning(spark)
    assert report["files_by_decision"] == {"skipped_by_filter": 3, "maybe": 1}, report
    assert report["row_groups_by_decision"] == {"skipped_by_filter": 3, "maybe": 1}, report
    assert report["scan_unjudged"] is None
    (quality,) = report["filters"]
    assert quality["column"] == "k" and quality["files"] == 4 and quality["saturated"] == []
    # sized for an fpp of 0.0001 at this row count: every filter's bits say at most that
    assert 0 < quality["median_fpp"] <= quality["worst_fpp"] <= 0.0001, quality

    lookup = spark.read.parquet(tables["plain"]).where(F.col("k") == key_of(17))
    assert answer(spark, lookup) == answer(spark, lookup, off=True)
    report = sparkbloom.last_pruning(spark)
    assert report["files_by_decision"] == {"no_filter": 4} and report["filters"] == [], report

    lookup = spark.read.parquet(tables["saturated"]).where(F.col("k") == "absent")
    assert answer(spark, lookup) == answer(spark, lookup, off=True) == []
    report = sparkbloom.last_pruning(spark)
    assert report["files_by_decision"] == {"filter_saturated": 4}, report
    (quality,) = report["filters"]
    assert quality["worst_fpp"] >= 0.9 and len(quality["saturated"]) == 4, quality


def test_a_scan_not_judged_says_why(spark: SparkSession, tables: dict[str, str]) -> None:
    spark.read.parquet(tables["filtered"]).where(F.col("id") > 10).collect()
    assert sparkbloom.last_pruning(spark)["scan_unjudged"] == "no_point_predicate"
    spark.conf.set("spark.sparkbloom.enabled", "false")
    try:
        spark.read.parquet(tables["filtered"]).where(F.col("k") == key_of(3)).collect()
    finally:
        spark.conf.unset("spark.sparkbloom.enabled")
    assert sparkbloom.last_pruning(spark)["scan_unjudged"] == "sparkbloom_off"


def test_explain_pruning_reports_every_scan_without_running_the_query(
    spark: SparkSession, tables: dict[str, str]
) -> None:
    query = (
        spark.read.parquet(tables["filtered"])
        .where(F.col("k").isin(key_of(5), "absent"))
        .unionByName(spark.read.parquet(tables["plain"]).where(F.col("k") == key_of(5)))
    )
    tracker = spark.sparkContext.statusTracker()
    jobs_before = set(tracker.getJobIdsForGroup(None))
    report = sparkbloom.explain_pruning(query)
    assert set(tracker.getJobIdsForGroup(None)) == jobs_before  # planned, not run
    filtered, plain = report.scans
    assert tables["filtered"] in filtered["scan"] and tables["plain"] in plain["scan"], report.scans
    assert filtered["files_by_decision"] == {"skipped_by_filter": 3, "maybe": 1}
    assert plain["files_by_decision"] == {"no_filter": 4}
    text = str(report)
    assert "files 4 -> 1: skipped_by_filter 3, maybe 1" in text and "files 4 -> 4: no_filter 4" in text, text
    assert "filters of k: 4 files" in text, text
    # and the query gives the answer it would without sparkbloom
    assert answer(spark, query) == answer(spark, query, off=True) == [(5, key_of(5))] * 2


def test_explain_and_the_scans_metrics_show_the_reasons(spark: SparkSession, tables: dict[str, str]) -> None:
    query = f"SELECT * FROM parquet.`{tables['plain']}` WHERE k = '{key_of(9)}'"
    plan = spark.sql(f"EXPLAIN {query}").first()[0]
    assert "BloomPruning files 4 -> 4" in plan and "unjudged: 4 no_filter" in plan, plan
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # the plan run is the plan made
    try:
        df = spark.sql(query)
        assert len(df.collect()) == 1
        pending, pruning = [df._jdf.queryExecution().executedPlan()], []
        while pending:
            node = pending.pop()
            children = node.children()
            pending.extend(children.apply(i) for i in range(children.size()))
            pruning += [node] if node.nodeName() == "BloomPruning" else []
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    (node,) = pruning
    metrics = {k: node.metrics().apply(k).value() for k in ("bloomFiles_no_filter", "bloomFilesTotal")}
    assert metrics == {"bloomFiles_no_filter": 4, "bloomFilesTotal": 4}, metrics
