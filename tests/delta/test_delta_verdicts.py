# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""A Delta table's verdicts are the ones recorded before (tests/verdicts.py)."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession
from verdicts import FILTERED, PINNED, assert_lookups_stay_apart, compare, frame, record


def test_delta_verdicts_are_the_recorded_ones(spark: SparkSession, table_dir: Path) -> None:
    # a session with the SQL settings the application started with, and Parquet's layout
    # settings pinned: what earlier tests left set cannot move a row group
    spark = spark.newSession()
    name = f"delta.`{table_dir}`"
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, k STRING, n INT, d DATE, amt DECIMAL(12, 2), f DOUBLE, p INT) "
        f"USING delta PARTITIONED BY (p) TBLPROPERTIES ('bloom_filter_columns' = '{', '.join(FILTERED)}', "
        "'parquet.block.size' = '8192')"
    )
    frame(spark).write.format("delta").options(**PINNED).mode("append").save(str(table_dir))
    compare("delta", record(spark, name))
    assert_lookups_stay_apart(spark, name)
