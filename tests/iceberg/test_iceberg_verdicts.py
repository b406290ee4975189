# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""An Iceberg table's verdicts are the ones recorded before (tests/verdicts.py)."""

from __future__ import annotations

from pyspark.sql import SparkSession
from verdicts import FILTERED, assert_lookups_stay_apart, compare, frame, record


def test_iceberg_verdicts_are_the_recorded_ones(spark: SparkSession) -> None:
    # a session with the SQL settings the application started with: what earlier tests left
    # set cannot move a row group
    spark = spark.newSession()
    name = "ice.db.verdicts"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, k STRING, n INT, d DATE, amt DECIMAL(12, 2), f DOUBLE, p INT) "
        f"USING iceberg PARTITIONED BY (p) TBLPROPERTIES ('bloom_filter_columns' = '{', '.join(FILTERED)}', "
        "'write.parquet.row-group-size-bytes' = '8192', 'write.distribution-mode' = 'none')"
    )
    try:
        frame(spark).writeTo(name).append()
        compare("iceberg", record(spark, name))
        assert_lookups_stay_apart(spark, name)
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
