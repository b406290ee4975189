# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Overhead benchmark: what sparkbloom costs where filters cannot help, measured as the
same query on the same files with sparkbloom on and off, alternating, many times.

    .venv/bin/python bench/overhead.py --rows 20000000 --files 200

Cases: a column without filters, a table without filters, a non-selective predicate
(the value is in every row group) and a full-scan aggregate. Reports the median time and
the bytes read of each (the goal: at most 2 % slower and 1 % more bytes). Writes
bench/results/overhead.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from collections.abc import Callable
from pathlib import Path

from common import bench_session, block_size, lookup_table, lookup_table_arguments, measure_once
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "overhead"), shapes=False)
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()

    spark = bench_session("sparkbloom-bench-overhead")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    data = lookup_table(spark, args.rows, args.files)
    rows_per_group = args.rows // args.files // args.row_groups_per_file
    sized = {"parquet.block.size": block_size(rows_per_group)}
    data.write.options(**sparkbloom.write_options(["uuid", "user_id"])).options(**sized).parquet(
        str(work / "with_filters")
    )
    data.write.options(**sized).parquet(str(work / "no_filters"))
    filtered = spark.read.parquet(str(work / "with_filters"))
    plain = spark.read.parquet(str(work / "no_filters"))

    cases: dict[str, Callable[[], DataFrame]] = {
        "column without filters (amount = 12.34)": lambda: filtered.where(F.col("amount") == 12.34).agg(F.count("*")),
        "table without filters (uuid = x)": lambda: plain.where(F.col("uuid") == "7f3a9c2e").agg(F.count("*")),
        "non-selective (country = 'C7')": lambda: filtered.where(F.col("country") == "C7").agg(F.count("*")),
        "full-scan aggregate": lambda: filtered.agg(F.sum("amount")),
    }
    times: dict[tuple[str, bool], list[float]] = {}
    bytes_read: dict[tuple[str, bool], int] = {}
    for round_ in range(args.repeats + 1):
        for name, run in cases.items():
            # alternate which goes first, so neither always runs on a warmer machine
            for enabled in (True, False) if round_ % 2 == 0 else (False, True):
                spark.conf.set("spark.sparkbloom.enabled", str(enabled).lower())
                m = measure_once(spark, run)
                if round_ > 0:
                    times.setdefault((name, enabled), []).append(m.seconds)
                    bytes_read[(name, enabled)] = m.bytes_read
    spark.conf.unset("spark.sparkbloom.enabled")

    results = {}
    print("| case | sparkbloom on | off | time on/off | bytes on | bytes off | bytes on/off |")
    print("|---|---|---|---|---|---|---|")
    for name in cases:
        on, off = statistics.median(times[(name, True)]), statistics.median(times[(name, False)])
        b_on, b_off = bytes_read[(name, True)], bytes_read[(name, False)]
        results[name] = {"seconds_on": on, "seconds_off": off, "bytes_on": b_on, "bytes_off": b_off}
        print(
            f"| {name} | {on:.3f} s | {off:.3f} s | {on / off:.3f} | {b_on:,} | {b_off:,} | {b_on / max(1, b_off):.4f} |"
        )
    out = HERE / "results" / "overhead.json"
    out.write_text(
        json.dumps({"rows": args.rows, "files": args.files, "repeats": args.repeats, "results": results}, indent=2)
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
