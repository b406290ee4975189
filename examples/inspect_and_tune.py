# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Inspect a table's filters, then rewrite it with a lower fpp for long IN lists.

python examples/inspect_and_tune.py [output_dir]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pyspark.sql import functions as F

import sparkbloom


def summarize(spark, path: str) -> None:  # type: ignore[no-untyped-def]
    report = sparkbloom.inspect(spark, path, ["user_id"])
    report.groupBy("column").agg(
        F.count("*").alias("chunks"),
        F.sum(F.col("has_filter").cast("int")).alias("with_filter"),
        F.round(F.avg("filter_bytes")).alias("avg_bytes"),
        F.round(F.avg("estimated_fpp"), 5).alias("avg_fpp"),
        F.round(F.avg("estimated_ndv")).alias("avg_ndv"),
    ).show(truncate=False)


def main(out_dir: str) -> None:
    spark = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-inspect",
        conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"sparkbloom {sparkbloom.version()}")
    path = str(Path(out_dir) / "users")
    data = spark.range(500_000).select(F.col("id").alias("user_id"), (F.col("id") % 7).alias("segment"))
    at_one_percent = sparkbloom.write_options(["user_id"], fpp=0.01)
    data.repartition(10, F.rand(seed=5)).write.options(**at_one_percent).parquet(path)
    print("written at fpp 0.01 (parquet-java's and DuckDB's default):")
    summarize(spark, path)

    wanted = list(range(10_000_000, 10_000_100))  # 100 absent ids: each one a false-positive chance
    spark.read.parquet(path).where(F.col("user_id").isin(wanted)).count()
    print("IN (100 absent ids) at fpp 0.01:", sparkbloom.last_pruning(spark))

    tuned = str(Path(out_dir) / "users_tuned")
    spark.read.parquet(path).write.options(**sparkbloom.write_options(["user_id"], fpp=0.0001)).parquet(tuned)
    print("rewritten at fpp 0.0001 (sparkbloom's default):")
    summarize(spark, tuned)
    spark.read.parquet(tuned).where(F.col("user_id").isin(wanted)).count()
    print("IN (100 absent ids) at fpp 0.0001:", sparkbloom.last_pruning(spark))
    print(
        sparkbloom.might_contain(spark, tuned, "user_id", [42, 10_000_000])
        .groupBy("value", "might_contain")
        .count()
        .collect()
    )
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="sparkbloom-inspect-") as tmp:
            main(tmp)
