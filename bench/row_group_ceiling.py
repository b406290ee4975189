# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Filters on Spark's default 128 MB row groups: the ceiling that now follows the row group
(1/16 of ``parquet.block.size``: 8 MiB) against the fixed 1 MiB ceiling it replaced, written
from the same rows in one run.

Run: ``bench/row_group_ceiling.py`` (the lookup table's 20 M rows in 16 files of one row
group each, as ``bench/lookup.py``'s "large" shape). Per layout: table and filter bytes,
the filters' estimated fpp and how many sit at their ceiling; per query: median seconds of
5 rounds (layouts interleaved, a first round uncounted), tasks and data files read, with
sparkbloom on, and with it off on the same files (vanilla Spark, which still uses the
filters in its tasks). Results: ``results/row_group_ceiling.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from common import fresh_run, interleaved, lookup_table, repeats_and_output
from lookup import ABSENT_UUID, lookup_keys
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
WRITES = {
    "ceiling_1mib": {"bloom_filter_max_bytes": str(1 << 20)},
    "follows_row_group": {},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--files", type=int, default=16)
    parser.add_argument("--work", default=str(HERE / "results" / "tmp" / "row_group_ceiling"))
    repeats_and_output(parser, "row_group_ceiling")
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-row-group-ceiling")
    data = lookup_table(spark, args.rows, 200)
    keys = lookup_keys(data)
    frame = data.coalesce(args.files)  # keeps the shuffled order: min/max cannot prune
    files: dict[str, dict[str, float]] = {}
    tables: dict[str, DataFrame] = {}
    for name, options in WRITES.items():
        path = str(work / name)
        frame.write.options(**sparkbloom.write_options(["uuid", "user_id"])).options(**options).parquet(path)
        chunks = sparkbloom.inspect(spark, path, ["uuid", "user_id"]).collect()
        files[name] = {
            "table_bytes": sum(p.stat().st_size for p in Path(path).glob("*.parquet")),
            "filter_bytes": sum(r["filter_bytes"] for r in chunks),
            "filters": len(chunks),
            "at_ceiling": sum(1 for r in chunks if r["ceiling_bound"]),
            "max_estimated_fpp": max(r["estimated_fpp"] for r in chunks),
        }
        print(name, json.dumps(files[name]), flush=True)
        tables[name] = spark.read.parquet(path)
        tables[name + "_off"] = spark.read.parquet(path)
    lookups = {
        "uuid = present": lambda t: t.where(F.col("uuid") == keys["uuid"]),
        "uuid = absent": lambda t: t.where(F.col("uuid") == ABSENT_UUID),
        "uuid IN (10)": lambda t: t.where(F.col("uuid").isin(keys["in10"])),
        "user_id = present": lambda t: t.where(F.col("user_id") == keys["user_id"]),
    }
    results = interleaved(
        spark,
        list(tables),
        list(lookups),
        args.repeats,
        set(WRITES),
        lambda layout, query: lookups[query](tables[layout]),
        lambda layout, query, m: {},
    )
    out.write_text(json.dumps({"rows": args.rows, "files": args.files, "layouts": files, "queries": results}, indent=2))
    for query in lookups:
        cells = [
            f"{layout} {r[query]['seconds']:.3f}s/{r[query]['tasks']}t/{r[query]['files_read']}f"
            for layout, r in results.items()
        ]
        print(f"{query:20} " + "  ".join(cells))


if __name__ == "__main__":
    main()
