# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Apache Iceberg benchmark: the lookup benchmark's table as Iceberg tables, in one run:

- (a) Iceberg without filters: its partition pruning and min/max statistics;
- (b) Iceberg with its own Bloom filters (``write.parquet.bloom-filter-enabled.column.<c>``
  and the NDV of a row group: the best layout Iceberg's properties give), read by vanilla
  Spark, whose tasks check them row group by row group;
- (c) the same filters set as ``bloom_filter_columns`` (sparkbloom's translation: Iceberg's
  adaptive sizing where it has it), read with sparkbloom: files dropped before any task.

    .cache/lines/4.1/venv/bin/python bench/iceberg.py --rows 20000000 --files 200

Needs a Spark line with Iceberg (dev/spark-lines) and its runtime jar (dev/setup). Layouts
are interleaved within every repetition. Writes bench/results/iceberg.json and prints Markdown.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pyspark
from common import (
    Measured,
    Results,
    fresh_run,
    interleaved,
    lookup_table,
    lookup_table_arguments,
    plan_metric,
    print_format_table,
    repeats_and_output,
)
from lookup import ABSENT_UUID, lookup_keys
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPARKBLOOM = "c_iceberg_sparkbloom"


def iceberg_conf(warehouse: Path) -> dict[str, str]:
    line = ".".join(pyspark.__version__.split(".")[:2])
    jars = sorted(str(p) for p in (ROOT / ".cache" / "iceberg" / line / "jars").glob("*.jar"))
    if not jars:
        raise SystemExit(f"no Iceberg jar for Spark {line} in .cache/iceberg: a line with Iceberg, after dev/setup")
    return {
        "spark.jars": ",".join(jars),
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.ice.type": "hadoop",
        "spark.sql.catalog.ice.warehouse": str(warehouse),
    }


def layouts(rows_per_file: int) -> dict[str, dict[str, str]]:
    """Table properties of each layout (sparkbloom's first: it pays for the JIT warm-up)."""
    own = {
        f"write.parquet.bloom-filter-{key}.column.{c}": value
        for c in ("uuid", "user_id")
        for key, value in (("enabled", "true"), ("ndv", str(rows_per_file)))
    }
    return {SPARKBLOOM: {"bloom_filter_columns": "uuid,user_id"}, "a_iceberg": {}, "b_iceberg_own": own}


def queries(t: str, keys: dict[str, object]) -> dict[str, str]:
    def in_list(values: object) -> str:
        return ", ".join(f"'{v}'" for v in values)  # type: ignore[attr-defined]

    return {
        "uuid = present": f"SELECT * FROM {t} WHERE uuid = '{keys['uuid']}'",
        "uuid = absent": f"SELECT * FROM {t} WHERE uuid = '{ABSENT_UUID}'",
        "uuid IN (10)": f"SELECT * FROM {t} WHERE uuid IN ({in_list(keys['in10'])})",
        "uuid IN (100)": f"SELECT * FROM {t} WHERE uuid IN ({in_list(keys['in100'])})",
        "user_id = present": f"SELECT * FROM {t} WHERE user_id = {keys['user_id']}",
        "join, 20 keys": f"SELECT f.* FROM {t} f JOIN dim d ON f.uuid = d.uuid WHERE d.segment = 's20'",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    lookup_table_arguments(parser, str(HERE / "results" / "tmp" / "iceberg"), shapes=False)
    repeats_and_output(parser, "iceberg")
    args = parser.parse_args()
    work = Path(args.work)
    spark, work, out = fresh_run(args, "sparkbloom-bench-iceberg", iceberg_conf(work / "warehouse"))
    data = lookup_table(spark, args.rows, args.files)
    keys = lookup_keys(data)
    # the join's small side: 1,000 keys of the table, 20 of them in segment 's20'
    data.select("uuid").sample(fraction=min(1.0, 2000 / args.rows), seed=7).limit(1000).coalesce(1).withColumn(
        "segment", F.when(F.monotonically_increasing_id() % 50 == 0, "s20").otherwise("rest")
    ).write.parquet(str(work / "dim"))
    spark.read.parquet(str(work / "dim")).createOrReplaceTempView("dim")
    tables: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for name, properties in layouts(max(1, args.rows // args.files)).items():
        table = f"ice.bench.{name}"
        props = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
        spark.sql(
            f"CREATE TABLE {table} (uuid STRING, user_id BIGINT, country STRING, amount DOUBLE, payload STRING) "
            f"USING iceberg" + (f" TBLPROPERTIES ({props})" if props else "")
        )
        data.writeTo(table).append()
        tables[name] = table
        sizes[name] = sum(f.stat().st_size for f in (work / "warehouse" / "bench" / name).rglob("*.parquet"))
    results = run_interleaved(spark, tables, keys, args.repeats)
    output = {
        "rows": args.rows,
        "files": args.files,
        "spark": pyspark.__version__,
        "repeats": args.repeats,
        "table_bytes": sizes,
        "results": results,
    }
    out.write_text(json.dumps(output, indent=2))
    print_format_table(
        "seconds / data files scanned / tasks",
        results,
        sizes,
        SPARKBLOOM,
        ("a_iceberg", "b_iceberg_own"),
        ("data_files_scanned", "tasks"),
    )


def run_interleaved(spark: SparkSession, tables: dict[str, str], keys: dict[str, object], repeats: int) -> Results:
    per_table = {name: queries(t, keys) for name, t in tables.items()}

    def counts(name: str, query: str, m: Measured) -> dict[str, float]:
        # the data files Iceberg planned (after its own pruning), less those sparkbloom dropped
        planned = plan_metric(m.frame, "resultDataFiles")
        skipped = sparkbloom.last_pruning(spark)["files_skipped"] if name == SPARKBLOOM else 0
        return {"data_files_scanned": planned - skipped, "iceberg_planned_files": planned}

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
