# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Quickstart: write a Parquet table with Bloom filters, run point lookups, and see what
sparkbloom skipped and how much faster that was than with sparkbloom disabled.

Run it with ``./dev/quickstart`` (sets everything up first) or, inside the project's
environment, ``python examples/quickstart.py [output_dir]``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom


def build_table(spark: SparkSession, path: str, rows: int, files: int) -> None:
    """User events keyed by high-cardinality ids, shuffled so min/max cannot prune."""
    (
        spark.range(rows)
        .select(
            F.col("id").alias("user_id"),
            F.concat(F.lit("user"), F.col("id"), F.lit("@example.com")).alias("email"),
            (F.col("id") % 50).alias("country"),
            F.sha2(F.col("id").cast("string"), 256).alias("payload"),
        )
        .repartition(files, F.rand(seed=7))
        .write.mode("overwrite")
        .options(**sparkbloom.write_options(["user_id", "email"]))
        .parquet(path)
    )


def timed(spark: SparkSession, query: DataFrame, enabled: bool, repeats: int = 3) -> tuple[int, float]:
    spark.conf.set("spark.sparkbloom.enabled", str(enabled).lower())
    query.count()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        count = query.count()
        best = min(best, time.perf_counter() - start)
    return count, best


def main(out_dir: str) -> None:
    spark = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-quickstart",
        conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"sparkbloom {sparkbloom.version()} loaded into Spark {spark.version}")

    path = str(Path(out_dir) / "events")
    build_table(spark, path, rows=2_000_000, files=40)
    events = spark.read.parquet(path)
    lookups = {
        "email = present": events.where(F.col("email") == "user4242@example.com"),
        "user_id = absent": events.where(F.col("user_id") == -1),
        "user_id IN (5 values)": events.where(F.col("user_id").isin(1, 22, 333, 4444, 55555)),
    }
    for name, query in lookups.items():
        count, with_filters = timed(spark, query, enabled=True)
        pruning = sparkbloom.last_pruning(spark)
        _, without = timed(spark, query, enabled=False)
        print(
            f"{name:24} {count} row(s): {pruning['files_skipped']}/{pruning['files_total']} files skipped, "
            f"{with_filters:.3f}s with sparkbloom vs {without:.3f}s without ({without / with_filters:.1f}x)"
        )
    spark.conf.unset("spark.sparkbloom.enabled")
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="sparkbloom-quickstart-") as tmp:
            main(tmp)
