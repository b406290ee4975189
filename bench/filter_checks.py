# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What checking other writers' filters costs (bench/README.md, "Checking filters").

    .venv/bin/python bench/filter_checks.py --rows 4000000 --files 200

Two tables of ``--files`` files: unique uuids with sparkbloom's filter (the lookup tables'
shape: chunks too large for the dictionary check), and the same keys written by DuckDB
modulo 500 (dictionary-encoded chunks with small dictionaries and DuckDB's filters: the
dictionary check reads a dictionary page for the first chunks of the writer). Each round
clears the runtime's caches (``CLEAR CACHE``: every footer and filter is read again and the
dictionary check runs again), then probes an absent key once with
``spark.sparkbloom.pruning.checkFilters`` on and once off, in an order that alternates by
round; round 0 warms up and is not counted. Reports the median driver probe time
(``last_pruning``'s ``probe_time_ms``) of each, and the files each skipped (the same, or the
checks cost pruning). Writes bench/results/filter_checks.json (or ``--output``).
"""

from __future__ import annotations

import argparse
import json
import statistics

import duckdb
from common import fresh_run, repeats_and_output
from lookup import ABSENT_UUID
from pyspark.sql import functions as F

import sparkbloom


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--work", default="/tmp/sparkbloom-bench-filter-checks")
    repeats_and_output(parser, "filter_checks")
    parser.set_defaults(repeats=10)
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-filter-checks")
    tables = {"sparkbloom, unique uuids": str(work / "uuids"), "DuckDB, 500 keys": str(work / "duckdb")}
    keys = spark.range(args.rows).select(F.expr("uuid()").alias("uuid"), F.col("id"))
    keys.repartition(args.files).write.option("bloom_filter_columns", "uuid").parquet(
        tables["sparkbloom, unique uuids"]
    )
    con = duckdb.connect()
    per_file = args.rows // args.files
    (work / "duckdb").mkdir(parents=True)
    for i in range(args.files):
        con.execute(
            f"COPY (SELECT 'key-' || ((range * 7919) % 500) AS uuid, range AS id "
            f"FROM range({i * per_file}, {(i + 1) * per_file})) TO '{work}/duckdb/part-{i}.parquet' (FORMAT parquet)"
        )
    con.close()
    setting = "spark.sparkbloom.pruning.checkFilters"
    results = {}
    for name, path in tables.items():
        probe: dict[str, list[int]] = {"on": [], "off": []}
        skipped: dict[str, set[int]] = {"on": set(), "off": set()}
        absent = ABSENT_UUID if name.startswith("sparkbloom") else "key-250x"
        for round_ in range(args.repeats + 1):
            for checks in ("on", "off") if round_ % 2 == 0 else ("off", "on"):
                spark.sql("CLEAR CACHE")
                spark.conf.set(setting, "true" if checks == "on" else "false")
                assert spark.read.parquet(path).where(F.col("uuid") == absent).collect() == []
                report = sparkbloom.last_pruning(spark)
                if round_ > 0:
                    probe[checks].append(report["probe_time_ms"])
                    skipped[checks].add(report["files_skipped"])
        spark.conf.unset(setting)
        results[name] = {
            checks: {
                "probe_ms_median": statistics.median(probe[checks]),
                "probe_ms": probe[checks],
                "files_skipped": sorted(skipped[checks]),
            }
            for checks in probe
        }
    output = {"rows": args.rows, "files": args.files, "repeats": args.repeats, "results": results}
    out.write_text(json.dumps(output, indent=2))
    print("| table | probe, checks on (ms) | probe, checks off (ms) | on / off | files skipped (on, off) |")
    print("| --- | --- | --- | --- | --- |")
    for name, r in results.items():
        on, off = r["on"]["probe_ms_median"], r["off"]["probe_ms_median"]
        print(
            f"| {name} | {on:.0f} | {off:.0f} | {on / off:.2f} | {r['on']['files_skipped']}, {r['off']['files_skipped']} |"
        )


if __name__ == "__main__":
    main()
