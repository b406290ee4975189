# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Planning at scale: a table of many small files, pruned on the driver cold (empty
cache) and warm (cached footers and filters); driver heap and cache size after each; then
the warm planning of an ``IN`` list of 100 values against vanilla Spark's.

    .venv/bin/python bench/planning.py --files 10000

Writes bench/results/planning.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path

from common import bench_session
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
# inside every file's min/max range ("v0".."v19999"), so the Bloom filters must be read
ABSENT = "v1234x"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rows-per-file", type=int, default=200)
    parser.add_argument("--work", default=str(HERE / "results" / "tmp" / "planning"))
    parser.add_argument("--output", default=str(HERE / "results" / "planning.json"))
    # application settings: read once per application, so one run measures one value of each
    parser.add_argument("--parallelism", type=int, default=16, help="spark.sparkbloom.pruning.parallelism")
    parser.add_argument("--cache-bytes", type=int, default=256 << 20, help="spark.sparkbloom.cache.maxBytes")
    args = parser.parse_args()
    spark = bench_session(
        "sparkbloom-bench-planning",
        {
            "spark.sparkbloom.pruning.parallelism": str(args.parallelism),
            "spark.sparkbloom.cache.maxBytes": str(args.cache_bytes),
        },
    )
    jvm = spark.sparkContext._jvm
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    # 100 distinct small files written by Spark, copied to reach the file count quickly.
    seed = work / "seed"
    (
        spark.range(0, 100 * args.rows_per_file, 1, 100)
        .select(F.col("id").alias("k"), F.concat(F.lit("v"), F.col("id")).alias("s"))
        .write.options(**sparkbloom.write_options(["k", "s"]))
        .parquet(str(seed))
    )
    table = work / "table"
    table.mkdir(parents=True)
    sources = sorted(seed.glob("*.parquet"))
    for i in range(args.files):
        shutil.copyfile(sources[i % len(sources)], table / f"part-{i:06d}.parquet")

    def heap_mb() -> float:
        runtime = jvm.java.lang.Runtime.getRuntime()
        jvm.java.lang.System.gc()
        return (runtime.totalMemory() - runtime.freeMemory()) / 2**20

    cache = jvm.sparkbloom.read.ProbeCache.shared()
    cache.clear()
    results = {"files": args.files, "heap_mb_before": heap_mb()}
    for label in ("cold", "warm", "warm_again"):
        start = time.perf_counter()
        count = spark.read.parquet(str(table)).where(F.col("s") == ABSENT).count()
        elapsed = time.perf_counter() - start
        stats = sparkbloom.last_pruning(spark)
        results[label] = {
            "seconds": elapsed,
            "rows": count,
            "pruning": stats,
            "cache_mb": cache.sizeInBytes() / 2**20,
            "heap_mb": heap_mb(),
        }
        print(label, json.dumps(results[label]), flush=True)
    # An IN list of 100 absent values, all within every file's min/max: each is asked of
    # every row group's filter. Warm cache; planning only, vanilla Spark in the same rounds.
    absent_list = F.col("s").isin([f"{ABSENT}{i}" for i in range(100)])
    planning: dict[str, list[float]] = {"sparkbloom": [], "vanilla": []}
    for _ in range(6):
        for engine in ("sparkbloom", "vanilla"):
            spark.conf.set("spark.sparkbloom.enabled", str(engine == "sparkbloom").lower())
            start = time.perf_counter()
            spark.read.parquet(str(table)).where(absent_list)._jdf.queryExecution().executedPlan()
            planning[engine].append(time.perf_counter() - start)
    spark.conf.unset("spark.sparkbloom.enabled")
    results["warm_in_100_planning"] = {k: statistics.median(v[1:]) for k, v in planning.items()}
    print("warm_in_100_planning", json.dumps(results["warm_in_100_planning"]))
    out = Path(args.output)
    out.write_text(json.dumps(results, indent=2))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
