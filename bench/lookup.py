"""Lookup benchmark: point queries on layouts (a) no filters, (b)-(d) parquet-java's
filters, (e) sparkbloom; all in one run, each against vanilla Spark (a).

    .venv/bin/python bench/lookup.py --rows 20000000 --files 200

Writes bench/results/lookup.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from pyspark.sql import functions as F

import sparkbloom
from common import bench_session, dataset, layouts, measure

HERE = Path(__file__).resolve().parent
ABSENT_UUID = "7f3a9c2e-1b4d-4e8f-9a6b-0c5d2e7f1a3b"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--row-groups-per-file", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", default=str(HERE / "results" / "tmp" / "lookup"))
    args = parser.parse_args()

    spark = bench_session("sparkbloom-bench-lookup")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    rows_per_file = args.rows // args.files
    # ~100 bytes a row uncompressed; Parquet block size sets row groups per file
    block_size = max(1 << 20, rows_per_file * 60 // args.row_groups_per_file)
    rows_per_group = max(1, rows_per_file // args.row_groups_per_file)
    data = dataset(spark, args.rows, user_ids=max(1, args.rows // 10), partitions=args.files)
    present = data.select("uuid", "user_id").limit(100).collect()
    uuid_present, user_present = present[0]["uuid"], present[0]["user_id"]
    in10 = [r["uuid"] for r in present[:10]]
    in100 = [r["uuid"] for r in present[:100]]

    tables = {}
    for name, options in layouts({"uuid": rows_per_group, "user_id": rows_per_group}).items():
        path = str(work / name)
        data.write.options(**options).option("parquet.block.size", block_size).parquet(path)
        tables[name] = spark.read.parquet(path)

    def queries(t):  # type: ignore[no-untyped-def]
        return {
            "uuid = present": lambda: t.where(F.col("uuid") == uuid_present),
            # an absent uuid that looks like the others, so min/max statistics cannot rule it out
            "uuid = absent": lambda: t.where(F.col("uuid") == ABSENT_UUID),
            "uuid IN (10)": lambda: t.where(F.col("uuid").isin(in10)),
            "uuid IN (100)": lambda: t.where(F.col("uuid").isin(in100)),
            "user_id = present": lambda: t.where(F.col("user_id") == user_present),
            "country = 'C7' (non-selective)": lambda: t.where(F.col("country") == "C7").agg(F.count("*")),
            "full-scan aggregate": lambda: t.agg(F.sum("amount")),
        }

    def use_sparkbloom(name: str) -> None:
        # sparkbloom only acts on its own layout; the others are vanilla Spark
        spark.conf.set("spark.sparkbloom.enabled", str(name == "e_sparkbloom").lower())

    # One pass over everything first, so that no layout pays for the JIT's warm-up.
    for name, table in tables.items():
        use_sparkbloom(name)
        for run in queries(table).values():
            run().collect()

    results: dict[str, dict[str, dict[str, float]]] = {}
    for name, table in tables.items():
        results[name] = {}
        for query, run in queries(table).items():
            use_sparkbloom(name)
            m = measure(spark, run, args.repeats)
            results[name][query] = {"seconds": m.seconds, "tasks": m.tasks, "files_read": m.files_read,
                                    "bytes_read": m.bytes_read}
            print(f"{name:15} {query:32} {m.seconds:7.3f}s tasks={m.tasks} files={m.files_read} bytes={m.bytes_read}",
                  flush=True)
    spark.conf.unset("spark.sparkbloom.enabled")
    out = HERE / "results" / "lookup.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": args.rows, "files": args.files, "results": results}, indent=2))
    print_table(results)
    shutil.rmtree(work, ignore_errors=True)


def print_table(results: dict[str, dict[str, dict[str, float]]]) -> None:
    names = sorted(results)
    queries = list(results[names[0]])
    print("\n| query | " + " | ".join(names) + " | (e) vs (a) |")
    print("|---" * (len(names) + 2) + "|")
    for q in queries:
        cells = [f"{results[n][q]['seconds']:.3f}s / {int(results[n][q]['files_read'])}f" for n in names]
        ratio = results["a_none"][q]["seconds"] / results["e_sparkbloom"][q]["seconds"]
        print(f"| {q} | " + " | ".join(cells) + f" | {ratio:.1f}x |")


if __name__ == "__main__":
    main()
