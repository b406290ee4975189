# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Plain Parquet's verdicts, through DataSource V1 and V2 and through a table index, are the
ones recorded before (tests/verdicts.py)."""

from __future__ import annotations

import pytest
from pyspark.sql import SparkSession
from verdicts import FILTERED, PINNED, assert_lookups_stay_apart, compare, frame, record

import sparkbloom

WRITE = {"parquet.block.size": "8192", **PINNED}


@pytest.fixture(scope="module")
def fresh(spark: SparkSession) -> SparkSession:
    """A session of the shared application with the SQL settings it started with, whatever
    earlier tests left set: the corpus's files and verdicts depend on none of theirs."""
    return spark.newSession()


@pytest.fixture(scope="module")
def corpus(fresh: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    spark = fresh
    root = tmp_path_factory.mktemp("verdicts")
    with_filters, without = str(root / "with_filters"), str(root / "without")
    frame(spark).write.options(bloom_filter_columns=",".join(FILTERED), **WRITE).partitionBy("p").parquet(with_filters)
    frame(spark).write.options(**WRITE).partitionBy("p").parquet(without)
    sparkbloom.build_index(spark, without, FILTERED)
    return {"filters": with_filters, "index": without}


@pytest.mark.parametrize(
    "source, files, v1",
    [("parquet-v1", "filters", True), ("parquet-v2", "filters", False), ("parquet-index", "index", True)],
)
def test_plain_parquet_verdicts_are_the_recorded_ones(
    fresh: SparkSession, corpus: dict[str, str], source: str, files: str, v1: bool
) -> None:
    spark = fresh
    if not v1:
        spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try:
        compare(source, record(spark, f"parquet.`{corpus[files]}`"))
        if files == "filters":
            assert_lookups_stay_apart(spark, f"parquet.`{corpus[files]}`")
    finally:
        spark.conf.unset("spark.sql.sources.useV1SourceList")
