# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Delta Lake benchmark: the lookup benchmark's table as Delta tables, in one run:

- (a) Delta alone: its partition pruning and min/max data skipping;
- (b) Delta with parquet-java's own filters, set as table properties
  (``parquet.bloom.filter.enabled#<col>`` and the ndv of a row group: the best parquet-java
  layout of the lookup benchmark; Delta passes no writer option to its writer), read by
  vanilla Spark, whose tasks check them;
- (c) Delta with sparkbloom (``bloom_filter_columns`` as a table property; the driver
  drops files before any task).

    .cache/lines/4.2/venv/bin/python bench/delta.py --rows 20000000 --files 200

Needs a Spark line with Delta (dev/spark-lines) and its jars (dev/setup). Layouts are
interleaved within every repetition. Writes bench/results/delta.json and prints Markdown.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pyspark
from common import (
    Measured,
    Results,
    block_size,
    fresh_run,
    interleaved,
    lookup_table,
    lookup_table_arguments,
    planning_tasks,
    print_format_table,
    repeats_and_output,
)
from lookup import ABSENT_UUID, lookup_keys
from pyspark.sql import SparkSession

import sparkbloom

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPARKBLOOM = "c_delta_sparkbloom"


def delta_conf() -> dict[str, str]:
    line = ".".join(pyspark.__version__.split(".")[:2])
    jars = sorted(str(p) for p in (ROOT / ".cache" / "delta" / line / "jars").glob("*.jar"))
    if not jars:
        raise SystemExit(f"no Delta jars for Spark {line} in .cache/delta: a line with Delta, after dev/setup")
    return {
        "spark.jars": ",".join(jars),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        # Delta replays its log and skips data in this many tasks: 50 by default, for clusters
        "spark.databricks.delta.snapshotPartitions": "2",
    }


def layouts(rows_per_group: int) -> dict[str, dict[str, str]]:
    """Table properties of each layout (sparkbloom's first: it pays for the JIT warm-up)."""
    pj = {
        f"parquet.bloom.filter.{key}#{c}": value
        for c in ("uuid", "user_id")
        for key, value in (("enabled", "true"), ("expected.ndv", str(rows_per_group)))
    }
    return {
        SPARKBLOOM: {"bloom_filter_columns": "uuid,user_id"},
        "a_delta": {},
        "b_delta_pj_ndv": pj,
    }


def queries(t: str, keys: dict[str, object]) -> dict[str, str]:
    def in_list(values: object) -> str:
        return ", ".join(f"'{v}'" for v in values)  # type: ignore[attr-defined]

    return {
        "uuid = present": f"SELECT * FROM {t} WHERE uuid = '{keys['uuid']}'",
        "uuid = absent": f"SELECT * FROM {t} WHERE uuid = '{ABSENT_UUID}'",
        "uuid IN (100)": f"SELECT * FROM {t} WHERE uuid IN ({in_list(keys['in100'])})",
        "user_id = present": f"SELECT * FROM {t} WHERE user_id = {keys['user_id']}",
        "country = 'C7' (non-selective)": f"SELECT count(*) FROM {t} WHERE country = 'C7'",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "delta"), shapes=False)
    repeats_and_output(parser, "delta")
    args = parser.parse_args()
    spark, work, out = fresh_run(args, "sparkbloom-bench-delta", delta_conf())
    data = lookup_table(spark, args.rows, args.files)
    keys = lookup_keys(data)
    rows_per_group = max(1, args.rows // args.files // args.row_groups_per_file)
    tables: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for name, properties in layouts(rows_per_group).items():
        path = work / name
        props = {**properties, "parquet.block.size": block_size(rows_per_group)}
        spark.sql(
            f"CREATE TABLE delta.`{path}` (uuid STRING, user_id BIGINT, country STRING, amount DOUBLE, "
            f"payload STRING) USING delta TBLPROPERTIES (" + ", ".join(f"'{k}' = '{v}'" for k, v in props.items()) + ")"
        )
        data.write.format("delta").mode("append").save(str(path))
        tables[name] = f"delta.`{path}`"
        sizes[name] = sum(f.stat().st_size for f in path.rglob("*.parquet"))
    results = run_interleaved(spark, tables, keys, args.repeats)
    output = {
        "rows": args.rows,
        "files": args.files,
        "row_groups_per_file": args.row_groups_per_file,
        "spark": pyspark.__version__,
        "repeats": args.repeats,
        "table_bytes": sizes,
        "results": results,
    }
    out.write_text(json.dumps(output, indent=2))
    print_format_table(
        "seconds / data files read / tasks after planning (Delta's data skipping job excluded)",
        results,
        sizes,
        SPARKBLOOM,
        ("a_delta", "b_delta_pj_ndv"),
        ("files_read", "scan_tasks"),
    )


def run_interleaved(spark: SparkSession, tables: dict[str, str], keys: dict[str, object], repeats: int) -> Results:
    per_table = {name: queries(t, keys) for name, t in tables.items()}

    def counts(name: str, query: str, m: Measured) -> dict[str, float]:
        # Delta's data skipping runs a job while the query is planned: the rest are the scan's
        out = {"scan_tasks": m.tasks - planning_tasks(spark, lambda: spark.sql(per_table[name][query]))}
        if name == SPARKBLOOM:
            pruning = sparkbloom.last_pruning(spark)
            out |= {"files_after_delta_skipping": pruning["files_total"], "probe_time_ms": pruning["probe_time_ms"]}
        return out

    return interleaved(
        spark,
        list(per_table),
        list(next(iter(per_table.values()))),
        repeats,
        SPARKBLOOM,
        lambda name, query: spark.sql(per_table[name][query]),
        counts,
    )


if __name__ == "__main__":
    main()
