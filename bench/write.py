# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Write benchmark: the same dataset written with no filters, with parquet-java's own
filters (default, ndv-tuned, adaptive) and with sparkbloom on uuid and user_id.

    .venv/bin/python bench/write.py --rows 20000000

Reports write time as a ratio to no filters (wall clock, and the CPU time of Spark's JVM,
which on a 2-core machine varies less than the wall clock between repetitions), filter bytes per column chunk, total filter
bytes against the spec-optimal size for each chunk's distinct count, and the fpp of the
written filters (exact for their bits). Writes bench/results/write.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from pathlib import Path

from common import bench_session, block_size, dataset, layouts

import sparkbloom

HERE = Path(__file__).resolve().parent


def process_cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process (Linux). In local mode Spark's JVM runs every
    task, so the difference across a write is the write's CPU time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--row-groups-per-file", type=int, default=1)
    parser.add_argument("--work", default=str(HERE / "results" / "tmp" / "write"))
    parser.add_argument("--layouts", default="", help="comma-separated layout names (default: all; a_none always)")
    parser.add_argument("--output", default=str(HERE / "results" / "write.json"))
    args = parser.parse_args()

    spark = bench_session("sparkbloom-bench-write")
    jvm = spark.sparkContext._jvm
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    data = dataset(spark, args.rows, user_ids=2_000_000, partitions=args.files).cache()
    data.count()
    rows_per_file = args.rows // args.files
    rows_per_group = rows_per_file // args.row_groups_per_file
    block = {"parquet.block.size": block_size(rows_per_group)} if args.row_groups_per_file > 1 else {}
    results = {}
    all_layouts = {
        name: {**options, **block}
        for name, options in layouts({"uuid": rows_per_group, "user_id": min(rows_per_group, 2_000_000)}).items()
        if not args.layouts or name == "a_none" or name in args.layouts.split(",")
    }
    # One untimed write of each layout first, so that none pays for the JIT's warm-up.
    for name, options in all_layouts.items():
        data.write.options(**options).parquet(str(work / f"warmup-{name}"))
    # Layouts interleaved within every repetition, so that a slow phase of the machine
    # never lands on one layout only.
    times: dict[str, list[float]] = {name: [] for name in all_layouts}
    cpu_times: dict[str, list[float]] = {name: [] for name in all_layouts}
    jvm_pid = jvm.java.lang.ProcessHandle.current().pid()
    for i in range(args.repeats):
        for name, options in all_layouts.items():
            path = str(work / f"{name}-{i}")
            start, cpu_start = time.perf_counter(), process_cpu_seconds(jvm_pid)
            data.write.options(**options).parquet(path)
            times[name].append(time.perf_counter() - start)
            cpu_times[name].append(process_cpu_seconds(jvm_pid) - cpu_start)
            if i > 0:
                shutil.rmtree(path, ignore_errors=True)
    for name, options in all_layouts.items():
        # each layout is judged against its own target: sparkbloom's default, parquet-java's 0.01
        fpp = float(options.get("bloom_filter_fpp", 0.0001 if name == "e_sparkbloom" else 0.01))
        chunks = sparkbloom.inspect(spark, str(work / f"{name}-0"), ["uuid", "user_id"]).collect()
        per_column = {}
        for column in ("uuid", "user_id"):
            mine = [c for c in chunks if c["column"] == column]
            filtered = [c for c in mine if c["has_filter"]]
            # uuid is unique, so a chunk's distinct count is its value count; user_id's is
            # estimated from its filter where one exists.
            optimal = sum(
                jvm.sparkbloom.sbbf.FilterSizing.optimalNumBytes(
                    int(c["num_values"] if column == "uuid" else round(c["estimated_ndv"])), fpp, 32, 2**31 - 32
                )
                for c in filtered
            )
            written = sum(c["filter_bytes"] for c in filtered)
            per_column[column] = {
                "chunks": len(mine),
                "chunks_with_filter": len(filtered),
                "filter_bytes_per_chunk": written / len(filtered) if filtered else 0,
                "filter_bytes_vs_optimal": written / optimal if optimal else None,
                "mean_fpp": statistics.mean(c["estimated_fpp"] for c in filtered) if filtered else None,
            }
        on_disk = sum(f.stat().st_size for f in (work / f"{name}-0").glob("*.parquet"))
        results[name] = {
            "seconds": statistics.median(times[name]),
            "all_seconds": times[name],
            "cpu_seconds": statistics.median(cpu_times[name]),
            "all_cpu_seconds": cpu_times[name],
            "target_fpp": fpp,
            "columns": per_column,
            "bytes_on_disk": on_disk,
        }
        print(name, json.dumps(results[name]), flush=True)
    base, base_cpu = results["a_none"]["seconds"], results["a_none"]["all_cpu_seconds"]
    for r in results.values():
        r["throughput_vs_none"] = base / r["seconds"]
        # per repetition, against (a) of the same repetition, then the median
        r["cpu_vs_none"] = statistics.median(c / b for c, b in zip(r["all_cpu_seconds"], base_cpu))
        r["size_vs_none"] = r["bytes_on_disk"] / results["a_none"]["bytes_on_disk"]
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "rows": args.rows,
                "files": args.files,
                "row_groups_per_file": args.row_groups_per_file,
                "results": results,
            },
            indent=2,
        )
    )
    print(
        "\n| layout | write time | throughput vs none | CPU vs none | size vs none | uuid bytes/chunk | uuid bytes vs optimal | uuid fpp |"
        " user_id bytes/chunk | user_id bytes vs optimal | user_id fpp |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        u, k = r["columns"]["uuid"], r["columns"]["user_id"]

        def fmt(v: object) -> str:
            return f"{v:.3g}" if isinstance(v, float) else str(v)

        print(
            f"| {name} | {r['seconds']:.2f}s | {r['throughput_vs_none']:.2f}x | {r['cpu_vs_none']:.3f} |"
            f" {r['size_vs_none']:.3f} |"
            f" {fmt(u['filter_bytes_per_chunk'])} |"
            f" {fmt(u['filter_bytes_vs_optimal'])} | {fmt(u['mean_fpp'])} | {fmt(k['filter_bytes_per_chunk'])} |"
            f" {fmt(k['filter_bytes_vs_optimal'])} | {fmt(k['mean_fpp'])} |"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
