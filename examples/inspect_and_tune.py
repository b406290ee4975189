# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Inspect a table's filters, then rewrite it with a lower fpp for long IN lists.

The ids are even, and the lookup asks for 100 odd ones: inside every file's min/max range,
so only the Bloom filters can rule the files out, and each value is a false-positive chance.

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


def pruned(spark, rows: int) -> str:  # type: ignore[no-untyped-def]
    """The rows a lookup found and what sparkbloom skipped for it."""
    p = sparkbloom.last_pruning(spark)
    return (
        f"{rows} rows, {p['files_skipped']}/{p['files_total']} files skipped, "
        f"{p['row_groups_skipped']}/{p['row_groups_total']} row groups skipped"
    )


def main(out_dir: str) -> None:
    spark = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-inspect",
        conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"sparkbloom {sparkbloom.version()}")
    path = str(Path(out_dir) / "users")
    data = spark.range(500_000).select((F.col("id") * 2).alias("user_id"), (F.col("id") % 7).alias("segment"))
    at_one_percent = sparkbloom.write_options(["user_id"], fpp=0.01)
    data.repartition(10, F.rand(seed=5)).write.options(**at_one_percent).parquet(path)
    print("written at fpp 0.01 (parquet-java's and DuckDB's default):")
    summarize(spark, path)

    wanted = list(range(1, 200, 2))  # 100 absent ids: each one a false-positive chance
    found = spark.read.parquet(path).where(F.col("user_id").isin(wanted)).count()
    print("user_id IN (1, 3, ..., 199) at fpp 0.01:", pruned(spark, found))

    tuned = str(Path(out_dir) / "users_tuned")
    spark.read.parquet(path).write.options(**sparkbloom.write_options(["user_id"], fpp=0.0001)).parquet(tuned)
    print("rewritten at fpp 0.0001 (sparkbloom's default):")
    summarize(spark, tuned)
    found = spark.read.parquet(tuned).where(F.col("user_id").isin(wanted)).count()
    print("user_id IN (1, 3, ..., 199) at fpp 0.0001:", pruned(spark, found))
    # Which row groups' filters may hold a value: 42 is in the table, 43 is not.
    probed = sparkbloom.might_contain(spark, tuned, "user_id", [42, 43])
    for value in ("42", "43"):
        row_groups = probed.where(F.col("value") == value)
        print(
            f"might_contain(user_id = {value}): {row_groups.where('might_contain').count()} "
            f"of {row_groups.count()} row groups"
        )
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="sparkbloom-inspect-") as tmp:
            main(tmp)
