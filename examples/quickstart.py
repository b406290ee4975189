# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Quickstart: write a Parquet table with Bloom filters, run point lookups, and see what
sparkbloom skipped and how much faster that was than with sparkbloom disabled.

The table is 4 million user events in 1,000 files, ids scattered so that min/max
statistics prune nothing: the many-files shape streaming ingestion leaves behind. Without
sparkbloom every lookup opens every file (Spark packs them into tasks, and parquet-java
reads each footer and filter there); with it, the driver rules files out while planning
and a lookup reads the one file that holds its key. About a minute on 2 cores.

Run it with ``./dev/quickstart`` (sets everything up first) or, inside the project's
environment, ``python examples/quickstart.py [output_dir] [--files N] [--repeats N]`` (4,000 events
per file; the tests run it with 100 files, each lookup timed once).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom


def build_table(spark: SparkSession, path: str, rows: int, files: int) -> None:
    """User events keyed by high-cardinality ids, scattered so min/max cannot prune.

    ``user_id`` runs through 0..rows-1 in an order that looks random (multiplied by a prime
    that does not divide ``rows``, modulo ``rows``: a permutation), so every file spans the
    whole id range without a shuffle.
    """
    multiplier = 7_368_787  # a prime
    assert rows % multiplier != 0
    (
        spark.range(0, rows, 1, files)
        .select((F.col("id") * multiplier % rows).alias("user_id"))
        .select(
            "user_id",
            F.concat(F.lit("user"), F.col("user_id"), F.lit("@example.com")).alias("email"),
            (F.col("user_id") % 50).alias("country"),
            F.concat(F.lit("event payload "), F.col("user_id") * 7919 % 1_000_003).alias("payload"),
        )
        .write.mode("overwrite")
        .options(**sparkbloom.write_options(["user_id", "email"]))
        .parquet(path)
    )


def timed(spark: SparkSession, lookup: Callable[[], DataFrame], enabled: bool, repeats: int = 5) -> tuple[int, float]:
    """Rows found and the best of ``repeats`` lookups (after two that warm Spark's and
    sparkbloom's caches), with sparkbloom on or off. Each run plans the query anew, as a new
    query would be: a DataFrame keeps the plan it was first run with."""
    spark.conf.set("spark.sparkbloom.enabled", str(enabled).lower())
    for _ in range(2):
        lookup().collect()
    best, found = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        found = len(lookup().collect())
        best = min(best, time.perf_counter() - start)
    return found, best


def main(out_dir: str, files: int = 1000, repeats: int = 5) -> None:
    spark = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-quickstart",
        conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"},
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"sparkbloom {sparkbloom.version()} loaded into Spark {spark.version}")

    path = str(Path(out_dir) / "events")
    rows = 4000 * files
    started = time.perf_counter()
    build_table(spark, path, rows=rows, files=files)
    print(
        f"wrote {rows:,} rows in {files} files with Bloom filters on user_id and email "
        f"({time.perf_counter() - started:.0f}s)"
    )
    events = spark.read.parquet(path)
    # Each lookup as a SQL condition, printed as it is: one email that is there, an id that
    # is not, and five ids that are, each in a different file.
    conditions = ["email = 'user4242@example.com'", "user_id = -1", "user_id IN (1, 22, 333, 4444, 55555)"]
    lookups: dict[str, Callable[[], DataFrame]] = {c: (lambda c=c: events.where(c)) for c in conditions}
    # What the plan says: the scan's files before and after sparkbloom, decided while planning.
    plan = spark.sql(f"EXPLAIN SELECT * FROM parquet.`{path}` WHERE {conditions[0]}").first()[0]
    print("EXPLAIN: " + next(line.strip() for line in plan.splitlines() if "BloomPruning" in line))
    # A JVM just started runs its first queries slowly (class loading, JIT): one round of
    # every lookup, both ways, before anything is timed.
    for enabled in (True, False):
        for lookup in lookups.values():
            timed(spark, lookup, enabled, repeats=0)
    for name, query in lookups.items():
        count, with_filters = timed(spark, query, enabled=True, repeats=repeats)
        pruning = sparkbloom.last_pruning(spark)
        _, without = timed(spark, query, enabled=False, repeats=repeats)
        print(
            f"{name:38} {count} row(s): {pruning['files_skipped']}/{pruning['files_total']} files skipped, "
            f"{with_filters:.3f}s with sparkbloom vs {without:.3f}s without ({without / with_filters:.1f}x)"
        )
    spark.conf.unset("spark.sparkbloom.enabled")
    spark.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output_dir", nargs="?", help="where the table goes (default: a temporary directory)")
    parser.add_argument("--files", type=int, default=1000, help="files in the table, 4,000 events each")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each lookup, each way (the best counts)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.output_dir:
        main(args.output_dir, args.files, args.repeats)
    else:
        with tempfile.TemporaryDirectory(prefix="sparkbloom-quickstart-") as tmp:
            main(tmp, args.files, args.repeats)
