# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Lookup benchmark: point queries on layouts (a) no filters, (b)-(d) parquet-java's
filters, (e) sparkbloom; all in one run, each against vanilla Spark (a).

    .venv/bin/python bench/lookup.py --rows 20000000 --files 200

Two table shapes: ``small`` (``--files`` files of ``--row-groups-per-file`` row groups)
and ``large`` (Spark's default 128 MB row groups, ``--large-files`` files). Layouts are
interleaved within every repetition (a, b, c, d, e, a, b, ...), so that a slow phase of
the machine never lands on one layout only. Writes bench/results/lookup.json (or
``--output``) and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from common import (
    Measured,
    Results,
    block_size,
    fresh_run,
    interleaved,
    layouts,
    lookup_table,
    lookup_table_arguments,
    repeats_and_output,
)
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
ABSENT_UUID = "7f3a9c2e-1b4d-4e8f-9a6b-0c5d2e7f1a3b"
SPARKBLOOM = "e_sparkbloom"
SPARKBLOOM_OFF = "f_sparkbloom_files_extension_off"


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "lookup"))
    repeats_and_output(parser, "lookup")
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-lookup")
    data = lookup_table(spark, args.rows, args.files)
    keys = lookup_keys(data)

    rows_per_file = args.rows // args.files
    shapes: dict[str, tuple[DataFrame, dict[str, str], int]] = {
        "small": (
            data,
            {"parquet.block.size": block_size(rows_per_file // args.row_groups_per_file)},
            max(1, rows_per_file // args.row_groups_per_file),
        ),
        # coalesce keeps the shuffled order: min/max still cannot prune
        "large": (data.coalesce(args.large_files), {}, args.rows // args.large_files),
    }
    output: dict[str, object] = {
        "rows": args.rows,
        "files": args.files,
        "large_files": args.large_files,
        "repeats": args.repeats,
        "shapes": {},
    }
    for shape in args.shapes.split(","):
        frame, shape_options, rows_per_group = shapes[shape]
        tables = {}
        for name, options in layouts({"uuid": rows_per_group, "user_id": rows_per_group}).items():
            path = str(work / shape / name)
            frame.write.options(**options).options(**shape_options).parquet(path)
            tables[name] = spark.read.parquet(path)
        # sparkbloom's own files with the extension off: the "same query, sparkbloom
        # disabled" baseline (Spark and parquet-java still use the filters in tasks)
        tables[SPARKBLOOM_OFF] = spark.read.parquet(str(work / shape / SPARKBLOOM))
        results = run_interleaved(spark, tables, keys, args.repeats, shape)
        output["shapes"][shape] = results  # type: ignore[index]
        out.write_text(json.dumps(output, indent=2))
        print_table(shape, results)
        shutil.rmtree(work / shape, ignore_errors=True)
    spark.conf.unset("spark.sparkbloom.enabled")


def lookup_keys(data: DataFrame) -> dict[str, object]:
    """A present uuid and user_id; IN lists of keys from one file ("clustered", as keys of
    one batch or one day would be) and of keys from all over the table ("spread")."""
    first = data.select("uuid", "user_id").limit(100).collect()
    spread = [r["uuid"] for r in data.sample(fraction=200 / max(1, data.count()), seed=5).select("uuid").collect()]
    return {
        "uuid": first[0]["uuid"],
        "user_id": first[0]["user_id"],
        "in10": [r["uuid"] for r in first[:10]],
        "in100": [r["uuid"] for r in first[:100]],
        "in100_spread": spread[:100],
    }


def queries(t: DataFrame, keys: dict[str, object]) -> dict[str, Callable[[], DataFrame]]:
    return {
        "uuid = present": lambda: t.where(F.col("uuid") == keys["uuid"]),
        # an absent uuid that looks like the others, so min/max statistics cannot rule it out
        "uuid = absent": lambda: t.where(F.col("uuid") == ABSENT_UUID),
        "uuid IN (10)": lambda: t.where(F.col("uuid").isin(keys["in10"])),
        "uuid IN (100)": lambda: t.where(F.col("uuid").isin(keys["in100"])),
        "uuid IN (100 spread)": lambda: t.where(F.col("uuid").isin(keys["in100_spread"])),
        "user_id = present": lambda: t.where(F.col("user_id") == keys["user_id"]),
        "country = 'C7' (non-selective)": lambda: t.where(F.col("country") == "C7").agg(F.count("*")),
        "full-scan aggregate": lambda: t.agg(F.sum("amount")),
    }


def run_interleaved(
    spark: SparkSession, tables: dict[str, DataFrame], keys: dict[str, object], repeats: int, shape: str
) -> Results:
    per_table = {name: queries(t, keys) for name, t in tables.items()}

    def counts(name: str, _query: str, _: Measured) -> dict[str, float]:
        if name != SPARKBLOOM:
            return {}
        pruning = sparkbloom.last_pruning(spark)
        return {
            "row_groups_read": pruning["row_groups_total"] - pruning["row_groups_skipped"],
            "row_groups_total": pruning["row_groups_total"],
            "probe_time_ms": pruning["probe_time_ms"],
        }

    print(f"[{shape}]", flush=True)
    return interleaved(
        spark,
        list(per_table),
        list(next(iter(per_table.values()))),
        repeats,
        SPARKBLOOM,
        lambda name, query: per_table[name][query](),
        counts,
    )


def print_table(shape: str, results: dict[str, dict[str, dict[str, float]]]) -> None:
    names = sorted(results)
    query_names = list(results[names[0]])
    print(f"\n[{shape}] seconds / data files read")
    print("| query | " + " | ".join(names) + " | (a)/(e) | best (b)-(d) / (e) | (e)/(f) |")
    print("|---" * (len(names) + 4) + "|")
    for q in query_names:
        cells = [f"{results[n][q]['seconds']:.3f} / {int(results[n][q]['files_read'])}" for n in names]
        e = results[SPARKBLOOM][q]["seconds"]
        best = min(results[n][q]["seconds"] for n in names if n[0] in "bcd")
        off = results[SPARKBLOOM_OFF][q]["seconds"]
        print(
            f"| {q} | "
            + " | ".join(cells)
            + f" | {results['a_none'][q]['seconds'] / e:.1f}x | {best / e:.1f}x | {e / off:.3f} |"
        )
    print(f"\n[{shape}] tasks / bytes read")
    for q in query_names:
        cells = [f"{int(results[n][q]['tasks'])} / {int(results[n][q]['bytes_read']):,}" for n in names]
        rg = results[SPARKBLOOM][q]
        print(
            f"| {q} | "
            + " | ".join(cells)
            + f" | rg {rg.get('row_groups_read')} of {rg.get('row_groups_total')}, probe {rg.get('probe_time_ms')} ms |"
        )


if __name__ == "__main__":
    main()
