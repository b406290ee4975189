# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What an absent key costs beside Spark's floors (bench/README.md, "An absent key's task").

    .venv/bin/python bench/task_floor.py --rows 2000000 --files 200

A table of unique uuids (``--files`` files with sparkbloom's filter on uuid), then, interleaved
within each round: ``WHERE false`` (no task), a job of one task that reads nothing
(``spark.range`` of one partition, filtered empty), an absent uuid and a present one, with
sparkbloom on. Each query is timed twice, each time as a new DataFrame: collected at once
(sparkbloom judges it within that execution), and planned first (its executed plan, as
EXPLAIN does) and then collected, its two parts timed apart: a verdict made outside the
execution is looked at again by the task holding the ruled-out files. Round 0 warms up and
is not counted; milliseconds are medians. A lookup that rules out every file runs one task
(docs/pruning.md, "A Dataset executed again"): compare the absent key with the one-task job.

Writes bench/results/task_floor.json (or ``--output``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from common import fresh_run, repeats_and_output
from lookup import ABSENT_UUID
from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--work", default="/tmp/sparkbloom-bench-task-floor")
    repeats_and_output(parser, "task_floor")
    parser.set_defaults(repeats=10)
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-task-floor")
    table = str(work / "table")
    (
        spark.range(args.rows)
        .select(F.expr("uuid()").alias("uuid"), F.col("id"))
        .repartition(args.files)
        .write.option("bloom_filter_columns", "uuid")
        .parquet(table)
    )
    present = spark.read.parquet(table).where(F.col("id") == args.rows // 2).first()["uuid"]
    queries = {
        "WHERE false": lambda: spark.read.parquet(table).where(F.lit(False)),
        "one task, nothing read": lambda: spark.range(0, 1, 1, 1).where(F.col("id") < 0),
        "uuid = absent": lambda: spark.read.parquet(table).where(F.col("uuid") == ABSENT_UUID),
        "uuid = present": lambda: spark.read.parquet(table).where(F.col("uuid") == present),
    }
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in queries}
    for round_ in range(args.repeats + 1):
        for name, query in queries.items():
            df = query()  # spark.read (listing, schema) is not timed
            started = time.perf_counter()
            df.collect()
            collected = time.perf_counter() - started
            planned, executed = planned_first(query())
            if round_ > 0:
                times[name].append((collected, planned, executed))
    result = {
        name: {key: round(1000 * statistics.median(r[i] for r in runs), 1) for i, key in enumerate(KEYS)}
        for name, runs in times.items()
    }
    out.write_text(json.dumps({"args": vars(args), "queries": result}, indent=1) + "\n")
    print("| query | collected (ms) | planned first: planning (ms) | then execution (ms) |\n| --- | --- | --- | --- |")
    for name, r in result.items():
        print(f"| {name} | {' | '.join(str(r[k]) for k in KEYS)} |")


KEYS = ("collect_ms", "plan_first_ms", "then_execute_ms")


def planned_first(df: DataFrame) -> tuple[float, float]:
    """Seconds to plan `df` (its executed plan, sparkbloom's judgement included), then to collect it."""
    started = time.perf_counter()
    df._jdf.queryExecution().executedPlan()
    planned = time.perf_counter()
    df.collect()
    return planned - started, time.perf_counter() - planned


if __name__ == "__main__":
    main()
