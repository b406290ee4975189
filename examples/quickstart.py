"""Quickstart: a local session with sparkbloom, a Parquet table, and point lookups.

Run it with ``./dev/quickstart`` (sets everything up first) or, inside the project's
environment, ``python examples/quickstart.py [output_dir]``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from pyspark.sql import SparkSession, functions as F

import sparkbloom


def build_table(spark: SparkSession, path: str, rows: int) -> None:
    """User events keyed by a high-cardinality user id, shuffled so min/max cannot prune."""
    (
        spark.range(rows)
        .select(
            F.col("id").alias("user_id"),
            F.sha2(F.col("id").cast("string"), 256).alias("email_hash"),
            (F.col("id") % 50).alias("country"),
        )
        .orderBy(F.rand(seed=7))
        .repartition(8)
        .write.mode("overwrite")
        .parquet(path)
    )


def timed_count(spark: SparkSession, path: str, user_id: int) -> tuple[int, float]:
    start = time.perf_counter()
    count = spark.read.parquet(path).where(F.col("user_id") == user_id).count()
    return count, time.perf_counter() - start


def main(out_dir: str) -> None:
    spark = sparkbloom.session(master="local[2]", app_name="sparkbloom-quickstart",
                               conf={"spark.ui.enabled": "false",
                                     "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("WARN")
    print(f"sparkbloom {sparkbloom.version()} loaded into Spark {spark.version}")

    path = str(Path(out_dir) / "events")
    build_table(spark, path, rows=200_000)
    for user_id in (42, -1):
        count, seconds = timed_count(spark, path, user_id)
        print(f"user_id = {user_id}: {count} row(s) in {seconds:.2f} s")
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="sparkbloom-quickstart-") as tmp:
            main(tmp)
