# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Spark with sparkbloom against DuckDB on the same files: the lookup table written once
with sparkbloom's filters (layout (e) of bench/lookup.py), then every lookup query run by
(e) Spark with sparkbloom, (e_whole) the same with ``spark.sparkbloom.pruning.rows`` off
(tasks decode every row of a kept row group, as before late materialization), (f) Spark
with sparkbloom off (vanilla, the same files) and (g) DuckDB (``read_parquet``, its own
Bloom-filter pruning, as many threads as Spark's cores), interleaved within every round in
an order that rotates from round to round; round 0 warms up and is not counted. The last
query, ``WHERE false``, reads nothing: what each engine spends on any query; the one before,
the present key looked up in a one-row copy of the table (one file), is what each engine
spends on a query that reads a file (in Spark: a job of one task).

    .venv/bin/python bench/duckdb_parity.py --rows 20000000 --files 200

Every engine must return the same rows; the run stops otherwise. Writes
bench/results/duckdb_parity.json (or ``--output``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import duckdb
from common import block_size, fresh_run, lookup_table, lookup_table_arguments, measure_once, repeats_and_output
from lookup import ABSENT_UUID, lookup_keys
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
ENGINES = ("e_sparkbloom", "e_whole_row_groups", "f_spark_vanilla", "g_duckdb")


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "duckdb_parity"), shapes=False)
    repeats_and_output(parser, "duckdb_parity")
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-duckdb-parity")
    data = lookup_table(spark, args.rows, args.files)
    keys = lookup_keys(data)
    rows_per_group = max(1, args.rows // args.files // args.row_groups_per_file)
    path = str(work / "e_sparkbloom")
    data.write.options(**sparkbloom.write_options(["uuid", "user_id"])).option(
        "parquet.block.size", block_size(rows_per_group)
    ).parquet(path)
    table = spark.read.parquet(path)
    one_row_path = str(work / "one_row")
    table.where(F.col("uuid") == keys["uuid"]).coalesce(1).write.options(
        **sparkbloom.write_options(["uuid", "user_id"])
    ).parquet(one_row_path)
    one_row = spark.read.parquet(one_row_path)
    con = duckdb.connect()
    con.execute(f"SET threads = {spark.sparkContext.defaultParallelism}")
    glob = f"read_parquet('{path}/*.parquet')"

    def in_list(values: object) -> str:
        return ", ".join("'" + str(v) + "'" for v in values)  # type: ignore[attr-defined]

    queries = {
        "uuid = present": (F.col("uuid") == keys["uuid"], f"uuid = '{keys['uuid']}'"),
        "uuid = absent": (F.col("uuid") == ABSENT_UUID, f"uuid = '{ABSENT_UUID}'"),
        "uuid IN (10)": (F.col("uuid").isin(keys["in10"]), f"uuid IN ({in_list(keys['in10'])})"),
        "uuid IN (100)": (F.col("uuid").isin(keys["in100"]), f"uuid IN ({in_list(keys['in100'])})"),
        "uuid IN (100 spread)": (
            F.col("uuid").isin(keys["in100_spread"]),
            f"uuid IN ({in_list(keys['in100_spread'])})",
        ),
        "user_id = present": (F.col("user_id") == keys["user_id"], f"user_id = {keys['user_id']}"),
        # one file of one row: each engine's fixed cost of a query that reads a file
        "uuid = present, one-row file": (F.col("uuid") == keys["uuid"], f"uuid = '{keys['uuid']}'"),
        # no file read by anyone: each engine's fixed cost of a query, the floor under the others
        "WHERE false": (F.lit(False), "false"),
    }
    columns = ", ".join(table.columns)

    def run(engine: str, query: str) -> tuple[float, int]:
        spark_filter, sql_filter = queries[query]
        one_file = query.endswith("one-row file")
        if engine == "g_duckdb":
            source = f"read_parquet('{one_row_path}/*.parquet')" if one_file else glob
            start = time.perf_counter()
            rows = con.execute(f"SELECT {columns} FROM {source} WHERE {sql_filter}").fetchall()
            return time.perf_counter() - start, len(rows)
        spark.conf.set("spark.sparkbloom.enabled", str(engine != "f_spark_vanilla").lower())
        spark.conf.set("spark.sparkbloom.pruning.rows", str(engine == "e_sparkbloom").lower())
        measured = measure_once(spark, lambda: (one_row if one_file else table).where(spark_filter))
        return measured.seconds, len(measured.result)

    times: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.repeats + 1):
        for query in queries:
            counts = {}
            # the engine order rotates: the first Spark query after a settings change runs a few ms slower
            for engine in ENGINES[round_ % len(ENGINES) :] + ENGINES[: round_ % len(ENGINES)]:
                seconds, counts[engine] = run(engine, query)
                if round_ > 0:
                    times.setdefault((engine, query), []).append(seconds)
            if len(set(counts.values())) != 1:
                raise SystemExit(f"{query}: the engines disagree: {counts}")
        print(f"round {round_} done", flush=True)
    spark.conf.unset("spark.sparkbloom.enabled")
    spark.conf.unset("spark.sparkbloom.pruning.rows")
    results = {engine: {q: statistics.median(times[(engine, q)]) for q in queries} for engine in ENGINES}
    out.write_text(
        json.dumps(
            {
                "rows": args.rows,
                "files": args.files,
                "row_groups_per_file": args.row_groups_per_file,
                "repeats": args.repeats,
                "duckdb": duckdb.__version__,
                "seconds": results,
            },
            indent=2,
        )
    )
    print(
        "\n| query | (e) sparkbloom | (e_whole) rows not narrowed | (f) Spark vanilla | (g) DuckDB |"
        " (e_whole)/(g) | (e)/(g) | (f)/(e) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for q in queries:
        e, whole, f, g = (results[n][q] for n in ENGINES)
        print(f"| {q} | {e:.3f} | {whole:.3f} | {f:.3f} | {g:.3f} | {whole / g:.2f} | {e / g:.2f} | {f / e:.1f}x |")


if __name__ == "__main__":
    main()
