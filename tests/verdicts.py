# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What sparkbloom skips, recorded per query and compared with what it skipped before.

One fixed corpus (the same rows, files and row groups every run) is read through each
source sparkbloom judges: plain Parquet through DataSource V1 and V2, with filters in the
files and with a table index over files without them, a Delta table and an Iceberg table.
Each lookup (``=``, ``IN``, ``<=>``, a null, an absent key, with and beside the partition
column) and a join's keys are run, and ``last_pruning`` records the files and row groups
skipped. The records are kept in ``tests/verdicts/<source>.json``, per Spark line (a line's
Parquet writer decides where row groups end): a change of how sources are judged must keep
every verdict, and a change that means to alter one records it again, with
``SPARKBLOOM_RECORD_VERDICTS=1``, and shows it in the diff.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import random
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import (
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)
from table_formats import LINE

import sparkbloom

RECORDS = Path(__file__).resolve().parent / "verdicts"
FILTERED = ["k", "n", "d", "amt", "f"]
SCHEMA = StructType(
    [
        StructField("id", LongType()),
        StructField("k", StringType()),
        StructField("n", IntegerType()),
        StructField("d", DateType()),
        StructField("amt", DecimalType(12, 2)),
        StructField("f", DoubleType()),
        StructField("p", IntegerType()),
    ]
)
# Parquet's write settings that decide where pages and row groups end, at their defaults, as
# write options: a setting another test left in the session or the Hadoop configuration
# cannot move a row group of the corpus.
PINNED = {
    "compression": "snappy",
    "parquet.enable.dictionary": "true",
    "parquet.page.size": str(1024 * 1024),
    "parquet.dictionary.page.size": str(1024 * 1024),
    "parquet.page.row.count.limit": "20000",
    "parquet.block.size.row.check.min": "100",
    "parquet.block.size.row.check.max": "10000",
    "parquet.writer.version": "PARQUET_1_0",
}
ROWS = 12000
FILES = 4
# what a lookup's record keeps: the verdict and the answer, not its cost
KEPT = ["files_total", "files_skipped", "row_groups_total", "row_groups_skipped", "files_skipped_by_index", "join_keys"]


def _row(i: int, rng: random.Random) -> tuple[Any, ...]:
    return (
        i,
        None if i % 97 == 0 else f"key-{rng.randrange(10**9)}",
        rng.randrange(-(10**6), 10**6),
        dt.date(2000, 1, 1) + dt.timedelta(days=rng.randrange(20000)),
        decimal.Decimal(rng.randrange(-(10**8), 10**8)) / 100,
        -0.0 if i % 211 == 0 else rng.uniform(-1e6, 1e6),
        i % 3,
    )


def rows() -> list[tuple[Any, ...]]:
    rng = random.Random(20261129)
    return [_row(i, rng) for i in range(ROWS)]


def frame(spark: SparkSession) -> DataFrame:
    """The corpus in `FILES` partitions of rows in id order, each a contiguous slice: each write
    makes the same files. (A range repartition would sample with a seed taken from the RDD's
    id, which depends on how many RDDs earlier tests made: its bounds, and so the files' row
    groups, then moved with the order of the tests run before.)"""
    return spark.createDataFrame(spark.sparkContext.parallelize(rows(), FILES), SCHEMA)


def lookups() -> list[tuple[str, str]]:
    """(name, WHERE clause) of every lookup: keys present and absent, of every filtered type."""
    data = rows()
    rng = random.Random(7)
    picked = [data[rng.randrange(ROWS)] for _ in range(6)]
    out: list[tuple[str, str]] = []
    for c, column in enumerate(["k", "n", "d", "amt", "f"], start=1):
        present = [r[c] for r in picked if r[c] is not None]
        out.append((f"{column} = present", f"{column} = {_sql(present[0])}"))
        out.append((f"{column} = absent", f"{column} = {_sql(_absent(column))}"))
        out.append((f"{column} in", f"{column} IN ({', '.join(_sql(v) for v in present[1:4] + [_absent(column)])})"))
        out.append((f"{column} <=> present", f"{column} <=> {_sql(present[4])}"))
    out += [
        ("k <=> null", "k <=> NULL"),
        ("f = -0.0", "f = CAST(-0.0 AS DOUBLE)"),
        ("k and partition", f"k = {_sql(picked[0][1])} AND p = {picked[0][6]}"),
        ("k and other partition", f"k = {_sql(picked[0][1])} AND p = {(picked[0][6] + 1) % 3}"),
        ("k or n", f"k = {_sql(picked[1][1])} OR n = {picked[2][2]}"),
        ("k and n absent", f"k = {_sql(picked[1][1])} AND n = {_sql(_absent('n'))}"),
        ("id range", "id BETWEEN 100 AND 200"),
    ]
    return out


def _absent(column: str) -> Any:
    return {
        "k": "key-absent",
        "n": 5_000_001,
        "d": dt.date(1960, 1, 1),
        "amt": decimal.Decimal("9999999.99"),
        "f": 12345678.5,
    }[column]


def _sql(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, decimal.Decimal):
        return f"CAST({value} AS DECIMAL(12, 2))"
    if isinstance(value, float):
        return f"CAST({value!r} AS DOUBLE)"
    return str(value)


def record(spark: SparkSession, table: str) -> dict[str, dict[str, int]]:
    """Each lookup's and the join's answer (row count, id sum) and pruning over `table` (SQL)."""
    out: dict[str, dict[str, int]] = {}
    for name, where in lookups():
        got = spark.sql(f"SELECT count(*) AS c, coalesce(sum(id), 0) AS s FROM {table} WHERE {where}").first()
        out[name] = _kept(spark, got)
    data = rows()
    keys = [data[i][1] for i in (11, 2222, 4321) if data[i][1] is not None] + ["key-absent"]
    # a VALUES list: a relation with a size, which Spark broadcasts and takes the keys from
    values = ", ".join(f"({_sql(k)})" for k in keys)
    joined = spark.sql(
        f"SELECT count(*) AS c, coalesce(sum(t.id), 0) AS s FROM {table} t JOIN (VALUES {values}) AS v(k) ON t.k = v.k"
    ).first()
    out["join on k"] = _kept(spark, joined)
    return out


def assert_lookups_stay_apart(spark: SparkSession, table: str) -> None:
    """Two lookups of `table` for different keys in one plan (a union, a union of aggregates,
    whose exchanges Spark reuses where they are equal, a self-join, and two joins' keys) each
    keep their own verdict, with adaptive execution on and off: the answers are the corpus's."""
    data = rows()
    (id_a, a), (id_b, b) = [(data[i][0], data[i][1]) for i in (11, 4321)]
    assert a is not None and b is not None and a != b
    count = {k: sum(1 for r in data if r[1] == k) for k in (a, b)}
    one = {a: sorted(r[0] for r in data if r[1] == a), b: sorted(r[0] for r in data if r[1] == b)}
    queries = {
        f"SELECT id FROM {table} WHERE k = {_sql(a)} UNION ALL SELECT id FROM {table} WHERE k = {_sql(b)}": sorted(
            [(i,) for i in one[a] + one[b]]
        ),
        f"SELECT k, count(*) FROM {table} WHERE k = {_sql(a)} GROUP BY k "
        f"UNION ALL SELECT k, count(*) FROM {table} WHERE k = {_sql(b)} GROUP BY k": sorted(
            [(a, count[a]), (b, count[b])]
        ),
        f"SELECT x.id, y.id FROM (SELECT id FROM {table} WHERE k = {_sql(a)}) x "
        f"CROSS JOIN (SELECT id FROM {table} WHERE k = {_sql(b)}) y": sorted((x, y) for x in one[a] for y in one[b]),
        f"SELECT t.id FROM {table} t JOIN (VALUES ({_sql(a)})) AS v(k) ON t.k = v.k "
        f"UNION ALL SELECT t.id FROM {table} t JOIN (VALUES ({_sql(b)})) AS w(k) ON t.k = w.k": sorted(
            [(i,) for i in one[a] + one[b]]
        ),
    }
    for aqe in ("true", "false"):
        spark.conf.set("spark.sql.adaptive.enabled", aqe)
        try:
            for query, expected in queries.items():
                assert sorted(tuple(r) for r in spark.sql(query).collect()) == expected, (aqe, query)
        finally:
            spark.conf.unset("spark.sql.adaptive.enabled")


# the corpus's filters are all right: a check that set one aside would cost its pruning
DISTRUSTED = {"writer_known_bad", "filter_fails_dictionary", "filter_saturated", "filter_unusable"}


def _kept(spark: SparkSession, answer: Any) -> dict[str, int]:
    pruning = sparkbloom.last_pruning(spark)
    _assert_decisions_add_up(pruning)
    return {"rows": int(answer["c"]), "id_sum": int(answer["s"])} | {k: int(pruning.get(k, -1)) for k in KEPT}


def _assert_decisions_add_up(pruning: dict[str, Any]) -> None:
    """The decisions of a judged scan account for every file and row group it counted, those
    skipped among them, and set no filter of the corpus aside."""
    if pruning.get("scan_unjudged") is not None:
        return
    for unit in ("files", "row_groups"):
        decisions = pruning[f"{unit}_by_decision"]
        assert sum(decisions.values()) == pruning[f"{unit}_total"], pruning
        skipped = sum(n for d, n in decisions.items() if d.startswith("skipped_by_"))
        assert skipped == pruning[f"{unit}_skipped"], pruning
        assert not DISTRUSTED & set(decisions), pruning


def compare(source: str, recorded: dict[str, dict[str, int]]) -> None:
    """Fails where `recorded` differs from what `source` recorded before on this Spark line;
    with ``SPARKBLOOM_RECORD_VERDICTS=1``, records it instead."""
    path = RECORDS / f"{source}.json"
    kept = json.loads(path.read_text()) if path.exists() else {}
    if os.environ.get("SPARKBLOOM_RECORD_VERDICTS") == "1":
        kept[LINE] = recorded
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")
        return
    assert LINE in kept, f"no verdicts of {source} recorded for Spark {LINE}: run with SPARKBLOOM_RECORD_VERDICTS=1"
    before = kept[LINE]
    changed = {
        name: {"before": before.get(name), "now": recorded.get(name)}
        for name in sorted(set(before) | set(recorded))
        if before.get(name) != recorded.get(name)
    }
    assert not changed, f"{source}: verdicts changed on Spark {LINE}: {json.dumps(changed, indent=1)}"
    # the corpus is judged at all: a record of nothing skipped would compare equal to itself
    assert any(r["files_skipped"] > 0 for r in recorded.values()), recorded
