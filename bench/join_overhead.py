# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Overhead of join pruning where it cannot help: a join with 1,000,000 keys (too many to
broadcast, so a sort-merge join, for which sparkbloom plans nothing) on sparkbloom's own
files, with sparkbloom off, on, and on with ``spark.sparkbloom.join.enabled=false``,
interleaved (off, on, join off, join off, on, off, ...).

    .venv/bin/python bench/join_overhead.py --rows 20000000 --files 200

Writes bench/results/join_overhead.json (or ``--output``).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from common import block_size, fresh_run, lookup_table, lookup_table_arguments, measure_once, repeats_and_output
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
QUERY = "SELECT count(*), sum(f.amount) FROM fact f JOIN big_side b ON f.uuid = b.uuid"
MODES = {"off": ("false", "true"), "on": ("true", "true"), "join_off": ("true", "false")}


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "join_overhead"), shapes=False)
    repeats_and_output(parser, "join_overhead")
    parser.add_argument("--big-keys", type=int, default=1_000_000)
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-join-overhead")
    rows_per_group = max(1, args.rows // args.files // args.row_groups_per_file)
    lookup_table(spark, args.rows, args.files).write.options(**sparkbloom.write_options(["uuid", "user_id"])).option(
        "parquet.block.size", block_size(rows_per_group)
    ).parquet(str(work / "fact"))
    fact = spark.read.parquet(str(work / "fact"))
    fact.select("uuid").sample(fraction=min(1.0, 1.2 * args.big_keys / args.rows), seed=7).orderBy(F.rand(7)).limit(
        args.big_keys
    ).coalesce(4).write.parquet(str(work / "big_side"))
    fact.createOrReplaceTempView("fact")
    spark.read.parquet(str(work / "big_side")).createOrReplaceTempView("big_side")

    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    order = ["on", "off"] + ["off", "on", "join_off", "join_off", "on", "off"] * ((args.repeats + 1) // 2)
    for i, mode in enumerate(order):
        enabled, join = MODES[mode]
        spark.conf.set("spark.sparkbloom.enabled", enabled)
        spark.conf.set("spark.sparkbloom.join.enabled", join)
        seconds = measure_once(spark, lambda: spark.sql(QUERY)).seconds
        if i >= 2:  # the first two are the warm-up
            times[mode].append(seconds)
        print(f"{mode} {seconds:.3f}", flush=True)
    medians = {mode: statistics.median(t) for mode, t in times.items()}
    out.write_text(
        json.dumps(
            {"rows": args.rows, "files": args.files, "big_keys": args.big_keys, "seconds": times, "medians": medians},
            indent=2,
        )
    )
    print(
        f"medians: {medians}; on/off {medians['on'] / medians['off']:.3f}, "
        f"join off/off {medians['join_off'] / medians['off']:.3f}"
    )


if __name__ == "__main__":
    main()
