# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What power-of-two filters (the default) cost against exact sizes (the
``bloom_filter_exact_size`` opt-in): the lookup benchmark's sparkbloom layout written both
ways from the same rows, in one run, in both of its shapes.

    .venv/bin/python bench/filter_sizes.py --rows 20000000 --files 200

Reports bytes on disk of the whole table, the filters' bytes (from the footers, through
``sparkbloom.inspect``) and their fpp from their bits. Writes bench/results/filter_sizes.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path

from common import bench_session, block_size, lookup_table, lookup_table_arguments

import sparkbloom

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "filter_sizes"))
    args = parser.parse_args()

    spark = bench_session("sparkbloom-bench-filter-sizes")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    data = lookup_table(spark, args.rows, args.files)
    rows_per_file = args.rows // args.files
    shapes = {
        # as bench/lookup.py writes its two shapes
        "small": (data, {"parquet.block.size": block_size(rows_per_file // args.row_groups_per_file)}),
        "large": (data.coalesce(args.large_files), {}),
    }
    output: dict[str, object] = {"rows": args.rows, "files": args.files, "large_files": args.large_files, "shapes": {}}
    for shape in args.shapes.split(","):
        frame, shape_options = shapes[shape]
        results = {}
        for mode, exact in (("power_of_two", False), ("exact_size", True)):
            path = work / shape / mode
            options = sparkbloom.write_options(["uuid", "user_id"], exact_size=exact)
            frame.write.options(**options).options(**shape_options).parquet(str(path))
            chunks = sparkbloom.inspect(spark, str(path), ["uuid", "user_id"]).collect()
            filtered = [c for c in chunks if c["has_filter"]]
            results[mode] = {
                "bytes_on_disk": sum(f.stat().st_size for f in path.glob("*.parquet")),
                "row_groups": len({(c["file"], c["row_group"]) for c in chunks}),
                "filter_bytes": sum(c["filter_bytes"] for c in filtered),
                "filter_bytes_per_chunk": {
                    col: statistics.median(c["filter_bytes"] for c in filtered if c["column"] == col)
                    for col in ("uuid", "user_id")
                },
                "mean_fpp_from_bits": statistics.mean(c["estimated_fpp"] for c in filtered),
                "max_fpp_from_bits": max(c["estimated_fpp"] for c in filtered),
            }
            print(shape, mode, json.dumps(results[mode]), flush=True)
        p2, ex = results["power_of_two"], results["exact_size"]
        results["power_of_two_vs_exact"] = {
            "bytes_on_disk": p2["bytes_on_disk"] / ex["bytes_on_disk"],
            "filter_bytes": p2["filter_bytes"] / ex["filter_bytes"],
            "extra_bytes_on_disk": p2["bytes_on_disk"] - ex["bytes_on_disk"],
        }
        print(shape, json.dumps(results["power_of_two_vs_exact"]), flush=True)
        output["shapes"][shape] = results  # type: ignore[index]
        shutil.rmtree(work / shape, ignore_errors=True)
    out = HERE / "results" / "filter_sizes.json"
    out.write_text(json.dumps(output, indent=2))


if __name__ == "__main__":
    main()
