# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Join benchmark: keys that come from another table (a join, an ``IN`` subquery) over the
lookup benchmark's fact table, in one run: (a) vanilla Spark with its defaults (its runtime
Bloom join filter included) on files without filters, (c) Spark on files with parquet-java's
best filters, (e) sparkbloom. Layouts are interleaved within every repetition.

    .venv/bin/python bench/join.py --rows 20000000 --files 200

Writes bench/results/join.json (or ``--output``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from common import (
    Measured,
    block_size,
    fresh_run,
    interleaved,
    layouts,
    lookup_table,
    lookup_table_arguments,
    plan_metric,
    repeats_and_output,
)
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

HERE = Path(__file__).resolve().parent
SPARKBLOOM = "e_sparkbloom"
SPARKBLOOM_OFF = "f_sparkbloom_off"
# (f) reads sparkbloom's own files with sparkbloom off: the overhead of a join it cannot help
LAYOUTS = ("a_none", "c_pj_ndv", SPARKBLOOM, SPARKBLOOM_OFF)


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "join"), shapes=False)
    repeats_and_output(parser, "join")
    parser.add_argument("--big-keys", type=int, default=1_000_000)
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-join")
    data = lookup_table(spark, args.rows, args.files)
    rows_per_group = max(1, args.rows // args.files // args.row_groups_per_file)
    for name, options in layouts({"uuid": rows_per_group, "user_id": rows_per_group}).items():
        if name in LAYOUTS:
            data.write.options(**options).option("parquet.block.size", block_size(rows_per_group)).parquet(
                str(work / name)
            )
    # The dimension: 1,000 keys of the fact table, 20 of them in segment 's20'; the no-help
    # side: --big-keys keys of the fact table. Neither has filters (they are the small sides).
    fact = spark.read.parquet(str(work / "a_none"))
    # keys drawn from all over the table, in random order (not the first files' keys)
    fact.select("uuid").sample(fraction=min(1.0, 1.2 * args.big_keys / args.rows), seed=7).orderBy(F.rand(7)).limit(
        args.big_keys
    ).coalesce(4).write.parquet(str(work / "big_side"))
    spark.read.parquet(str(work / "big_side")).limit(1000).coalesce(1).withColumn(
        "segment", F.when(F.monotonically_increasing_id() % 50 == 0, "s20").otherwise("rest")
    ).write.parquet(str(work / "dim"))
    spark.read.parquet(str(work / "dim")).createOrReplaceTempView("dim")
    spark.read.parquet(str(work / "big_side")).createOrReplaceTempView("big_side")
    # ~2,000 keys (the default spark.sparkbloom.join.maxKeys) and ~9,000 (above it)
    for name, per_mille in (("keys_2k", 2), ("keys_9k", 9)):
        spark.read.parquet(str(work / "big_side")).where(
            F.abs(F.hash("uuid")) % 1000 < per_mille
        ).createOrReplaceTempView(name)

    queries = {
        "join, 20 keys": "SELECT f.* FROM fact f JOIN dim d ON f.uuid = d.uuid WHERE d.segment = 's20'",
        "IN (SELECT) 20 keys": "SELECT * FROM fact WHERE uuid IN (SELECT uuid FROM dim WHERE segment = 's20')",
        "join, 1,000 keys": "SELECT f.* FROM fact f JOIN dim d ON f.uuid = d.uuid",
        # what probing many keys costs (broadcast by hint: their estimate is the whole no-help
        # side's, too big to broadcast)
        "join, ~2,000 keys": "SELECT /*+ BROADCAST(k) */ count(*), sum(f.amount) FROM fact f JOIN keys_2k k "
        "ON f.uuid = k.uuid",
        "join, ~9,000 keys (above maxKeys)": "SELECT /*+ BROADCAST(k) */ count(*), sum(f.amount) FROM fact f "
        "JOIN keys_9k k ON f.uuid = k.uuid",
        f"join, {args.big_keys:,} keys (no help)": "SELECT count(*), sum(f.amount) FROM fact f JOIN big_side b ON f.uuid = b.uuid",
    }
    results = run_interleaved(spark, work, queries, args.repeats)
    dim_rows = spark.read.parquet(str(work / "dim")).collect()
    exact = {
        "join, 20 keys": rows_groups_holding(work / SPARKBLOOM, {r["uuid"] for r in dim_rows if r["segment"] == "s20"}),
        "join, 1,000 keys": rows_groups_holding(work / SPARKBLOOM, {r["uuid"] for r in dim_rows}),
    }
    output = {
        "rows": args.rows,
        "files": args.files,
        "row_groups_per_file": args.row_groups_per_file,
        "big_keys": args.big_keys,
        "repeats": args.repeats,
        "results": results,
        "row_groups_holding_keys": exact,
    }
    out.write_text(json.dumps(output, indent=2))
    print_table(results, args.files * args.row_groups_per_file)
    print(f"\nrow groups that hold a key (exact membership, read with pyarrow): {exact}")
    shutil.rmtree(work, ignore_errors=True)


def rows_groups_holding(path: Path, keys: set[str]) -> int:
    """How many row groups of the table hold at least one of ``keys``: what exact membership
    (a filter with no false positives) would read."""
    import pyarrow.parquet as pq

    holding = 0
    for file in sorted(path.glob("*.parquet")):
        parquet = pq.ParquetFile(file)
        for i in range(parquet.num_row_groups):
            values = parquet.read_row_group(i, columns=["uuid"]).column("uuid").to_pylist()
            holding += bool(keys.intersection(values))
    return holding


def run_interleaved(
    spark: SparkSession, work: Path, queries: dict[str, str], repeats: int
) -> dict[str, dict[str, dict[str, float]]]:
    def run(name: str, query: str) -> DataFrame:
        files = SPARKBLOOM if name == SPARKBLOOM_OFF else name
        spark.read.parquet(str(work / files)).createOrReplaceTempView("fact")
        return spark.sql(queries[query])

    def counts(_name: str, _query: str, m: Measured) -> dict[str, float]:
        return {
            "rows": len(m.result),
            "row_groups_total": plan_metric(m.frame, "bloomRowGroupsTotal"),
            "row_groups_skipped": plan_metric(m.frame, "bloomRowGroupsSkipped"),
            "join_keys": plan_metric(m.frame, "bloomJoinKeys"),
            "probe_time_ms": plan_metric(m.frame, "bloomProbeTimeMs"),
        }

    return interleaved(spark, list(LAYOUTS), list(queries), repeats, SPARKBLOOM, run, counts)


def print_table(results: dict[str, dict[str, dict[str, float]]], row_groups: int) -> None:
    print("\nseconds / data files read")
    print(
        "| query | " + " | ".join(LAYOUTS) + " | (a)/(e) | (c)/(e) | (e)/(f) | (e) row groups read "
        "| keys probed, probe ms |"
    )
    print("|---" * (len(LAYOUTS) + 6) + "|")
    for q in results[SPARKBLOOM]:
        cells = [f"{results[n][q]['seconds']:.3f} / {int(results[n][q]['files_read'])}" for n in LAYOUTS]
        e = results[SPARKBLOOM][q]
        total = e["row_groups_total"] or row_groups  # 0: sparkbloom judged nothing, all are read
        read = total - e["row_groups_skipped"]
        print(
            f"| {q} | " + " | ".join(cells) + f" | {results['a_none'][q]['seconds'] / e['seconds']:.1f}x"
            f" | {results['c_pj_ndv'][q]['seconds'] / e['seconds']:.1f}x"
            f" | {e['seconds'] / results[SPARKBLOOM_OFF][q]['seconds']:.3f}"
            f" | {int(read)} of {int(total)} ({100.0 * read / total:.1f}%)"
            f" | {int(e['join_keys'])}, {int(e['probe_time_ms'])} |"
        )


if __name__ == "__main__":
    main()
