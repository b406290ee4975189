# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""A randomized differential test over Delta tables that change: appends, MERGE, UPDATE and
DELETE (with deletion vectors where enabled), OPTIMIZE, a column renamed and a new column
of the old name (column mapping), and time travel to every earlier version.

After each change, random point lookups (``=``, ``IN``, ``<=>``, AND with the partition,
OR across columns) run with sparkbloom on, and again with sparkbloom off and Parquet
pushdown off: the rows must match. A second oracle never reads Parquet: the test keeps
every version of the table as Python rows, and each lookup's ids must equal those too.
``SPARKBLOOM_TEST_SEED`` sets the seed; a failure names it, the version and the query.
``SPARKBLOOM_DELTA_DIFF_QUERIES`` sets the lookups per version (10; the default tier runs 2).
"""

from __future__ import annotations

import datetime as dt
import decimal
import os
import random
from pathlib import Path
from typing import Any

import pytest
from delta.tables import DeltaTable
from pyspark.sql import SparkSession
from pyspark.sql.types import DateType, DecimalType, IntegerType, LongType, StringType, StructField, StructType

import sparkbloom

OFF = {"spark.sparkbloom.enabled": "false", "spark.sql.parquet.filterPushdown": "false"}
SEED = int(os.environ.get("SPARKBLOOM_TEST_SEED", random.randrange(1 << 30)))
FILTERED = ["k", "n", "d", "amt"]
QUERIES_PER_VERSION = int(os.environ.get("SPARKBLOOM_DELTA_DIFF_QUERIES", "10"))
SCHEMA = StructType(
    [
        StructField("id", LongType()),
        StructField("k", StringType()),
        StructField("n", IntegerType()),
        StructField("d", DateType()),
        StructField("amt", DecimalType(12, 2)),
        StructField("p", IntegerType()),
    ]
)


class Table:
    """The Delta table and its Python twin, version by version."""

    def __init__(self, spark: SparkSession, path: Path, rng: random.Random, mapping: str, deletion_vectors: bool):
        self.spark, self.path, self.rng = spark, str(path), rng
        self.name = f"delta.`{path}`"
        self.columns = {c: c for c in ["id", "k", "n", "d", "amt", "p"]}  # table name -> twin's key
        spark.sql(
            f"CREATE TABLE {self.name} (id BIGINT, k STRING, n INT, d DATE, amt DECIMAL(12, 2), p INT) "
            f"USING delta PARTITIONED BY (p) TBLPROPERTIES ('delta.columnMapping.mode' = '{mapping}', "
            f"'delta.enableDeletionVectors' = '{str(deletion_vectors).lower()}', 'parquet.block.size' = '16384')"
        )
        spark.sql(f"ALTER TABLE {self.name} SET TBLPROPERTIES ('bloom_filter_columns' = '{', '.join(FILTERED)}')")
        self.rows: dict[int, dict[str, Any]] = {}
        # each version's rows and its column names (table name -> twin's key)
        self.versions: dict[int, tuple[dict[int, dict[str, Any]], dict[str, str]]] = {}
        self.next_id = 0
        self.remember()

    def version(self) -> int:
        return DeltaTable.forPath(self.spark, self.path).history(1).first()["version"]

    def remember(self) -> None:
        self.versions[self.version()] = ({i: dict(r) for i, r in self.rows.items()}, dict(self.columns))

    def new_rows(self, count: int) -> list[dict[str, Any]]:
        out = []
        for _ in range(count):
            out.append(
                {
                    "id": self.next_id,
                    "k": self.rng.choice(
                        [None, f"key-{self.rng.randrange(10**9)}", f"clé-é-{self.rng.randrange(10**6)}"]
                    ),
                    "n": self.rng.choice([None, self.rng.randrange(-(2**31), 2**31)]),
                    "d": dt.date(1900, 1, 1) + dt.timedelta(days=self.rng.randrange(80000)),
                    "amt": decimal.Decimal(self.rng.randrange(-(10**11), 10**11)) / 100,
                    "p": self.rng.randrange(3),
                    "k2": None,
                }
            )
            self.next_id += 1
        return out

    def frame(self, rows: list[dict[str, Any]]):
        """The rows under the table's current column names."""
        types = {f.name: f.dataType for f in SCHEMA.fields} | {"k2": StringType()}
        names = list(self.columns)
        schema = StructType([StructField(n, types[self.columns[n]]) for n in names])
        return self.spark.createDataFrame([tuple(r[self.columns[n]] for n in names) for r in rows], schema)

    def table_name(self, twin_key: str) -> str:
        return next(t for t, k in self.columns.items() if k == twin_key)

    def append(self) -> str:
        rows = self.new_rows(self.rng.randrange(200, 1500))
        self.frame(rows).repartition(self.rng.randrange(1, 4)).write.format("delta").mode("append").save(self.path)
        self.rows.update({r["id"]: r for r in rows})
        return f"append {len(rows)}"

    def delete(self) -> str:
        m, r = self.rng.randrange(3, 9), self.rng.randrange(3)
        self.spark.sql(f"DELETE FROM {self.name} WHERE id % {m} = {r}")
        self.rows = {i: row for i, row in self.rows.items() if i % m != r}
        return f"delete id % {m} = {r}"

    def update(self) -> str:
        m = self.rng.randrange(4, 12)
        k = self.table_name("k")
        self.spark.sql(f"UPDATE {self.name} SET {k} = concat('u-', {k}) WHERE id % {m} = 1")
        for i, row in self.rows.items():
            if i % m == 1 and row["k"] is not None:
                row["k"] = "u-" + row["k"]
        return f"update id % {m} = 1"

    def merge(self) -> str:
        existing = self.rng.sample(sorted(self.rows), min(len(self.rows), 100))
        changed = [dict(self.rows[i], k=f"m-{self.rng.randrange(10**6)}", n=self.rng.randrange(1000)) for i in existing]
        rows = changed + self.new_rows(200)
        (
            DeltaTable.forPath(self.spark, self.path)
            .alias("t")
            .merge(self.frame(rows).alias("s"), f"t.{self.table_name('id')} = s.{self.table_name('id')}")
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute()
        )
        self.rows.update({r["id"]: r for r in rows})
        return f"merge {len(rows)}"

    def optimize(self) -> str:
        self.spark.sql(f"OPTIMIZE {self.name}")
        return "optimize"

    def rename_and_re_add(self) -> str:
        """`k` becomes `k_old` and a new, empty `k` appears (column mapping only)."""
        self.spark.sql(f"ALTER TABLE {self.name} RENAME COLUMN k TO k_old")
        self.spark.sql(f"ALTER TABLE {self.name} ADD COLUMN k STRING")
        self.spark.sql(f"ALTER TABLE {self.name} SET TBLPROPERTIES ('bloom_filter_columns' = 'k_old, n, d, amt, k')")
        self.columns = {"id": "id", "k_old": "k", "n": "n", "d": "d", "amt": "amt", "p": "p", "k": "k2"}
        rows = self.new_rows(300)
        for r in rows:
            r["k2"] = f"new-{self.rng.randrange(10**9)}"
        self.frame(rows).write.format("delta").mode("append").save(self.path)
        self.rows.update({r["id"]: r for r in rows})
        return "rename k to k_old, add k"


def literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dt.date):
        return f"DATE '{value}'"
    if isinstance(value, decimal.Decimal):
        return f"CAST({value} AS DECIMAL(12, 2))"
    return str(value)


def random_predicate(
    table: Table, columns: dict[str, str], rows: dict[int, dict[str, Any]], rng: random.Random
) -> tuple[str, Any]:
    """A SQL predicate over `columns` (table name -> twin's key) and the same test over a twin row."""

    def one() -> tuple[str, Any]:
        name = rng.choice([c for c, k in columns.items() if k in FILTERED + ["k2"]])
        key = columns[name]
        present = [r[key] for r in rows.values() if r[key] is not None]
        pool = lambda: rng.choice(present) if present and rng.random() < 0.7 else table.new_rows(1)[0][key]  # noqa: E731
        shape = rng.choice(["=", "in", "<=>"])
        if shape == "in":
            values = [pool() for _ in range(rng.choice([2, 5, 30]))] + ([None] if rng.random() < 0.2 else [])
            return (
                f"{name} IN ({', '.join(literal(v) for v in values)})",
                lambda r: r[key] is not None and r[key] in [v for v in values if v is not None],
            )
        value = pool()
        if shape == "<=>":  # NULL <=> NULL is true
            return f"{name} <=> {literal(value)}", lambda r: r[key] == value
        return f"{name} = {literal(value)}", lambda r: r[key] == value and value is not None

    sql, test = one()
    roll = rng.random()
    if roll < 0.2:
        p = rng.randrange(3)
        return f"({sql}) AND p = {p}", lambda r: test(r) and r["p"] == p
    if roll < 0.35:
        sql2, test2 = one()
        return f"({sql}) OR ({sql2})", lambda r: test(r) or test2(r)
    return sql, test


def ids(spark: SparkSession, query: str, conf: dict[str, str] | None = None) -> list[int]:
    for k, v in (conf or {}).items():
        spark.conf.set(k, v)
    try:
        return sorted(r[0] for r in spark.sql(query).collect())
    finally:
        for k in conf or {}:
            spark.conf.unset(k)


@pytest.mark.parametrize("mapping,deletion_vectors", [("none", False), ("name", True), ("id", True)])
def test_randomized_lookups_on_a_changing_delta_table_match_both_oracles(
    spark: SparkSession, tmp_path: Path, mapping: str, deletion_vectors: bool
) -> None:
    rng = random.Random(f"{SEED}-{mapping}")
    table = Table(spark, tmp_path / "t", rng, mapping, deletion_vectors)
    steps = ["append", "append", "merge", "delete", "update", "optimize", "merge"]
    if mapping != "none":
        steps.insert(rng.randrange(3, len(steps)), "rename_and_re_add")
    skipped = 0
    for step in steps:
        done = getattr(table, step)()
        table.remember()
        version = table.version()
        cases = []
        # most cases read the current version; two travel to one earlier version (each
        # version read costs Delta a replay of its log)
        earlier = rng.choice(sorted(table.versions))
        for n in range(QUERIES_PER_VERSION):
            at = earlier if n < 2 else version
            rows, columns = table.versions[at]
            # values of the version read: time travel looks up keys that are gone now
            sql, test = random_predicate(table, columns, rows, rng)
            travel = f" VERSION AS OF {at}" if at != version else ""
            cases.append((f"SELECT id FROM {table.name}{travel} WHERE {sql}", rows, test))
        # one job per side: a UNION ALL of the cases, each scan planned and pruned on its own
        union = " UNION ALL ".join(f"SELECT {n} AS c, id FROM ({q})" for n, (q, _, _) in enumerate(cases))
        on, off = by_case(spark, union), by_case(spark, union, OFF)
        for n, (query, rows, test) in enumerate(cases):
            where = f"seed {SEED}, after {done} (version {version}), {query}"
            assert on.get(n, []) == off.get(n, []), where
            assert on.get(n, []) == sorted(i for i, r in rows.items() if test(r)), where
        # pruning is seen per scan: the cases one by one, until one of them prunes
        for query, _, _ in cases:
            ids(spark, query)
            pruning = sparkbloom.last_pruning(spark)
            if pruning["files_skipped"] or pruning["row_groups_skipped"]:
                skipped += 1
                break
    assert skipped > 0, f"seed {SEED}: no lookup ever pruned a file or row group"


def by_case(spark: SparkSession, union: str, conf: dict[str, str] | None = None) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for k, v in (conf or {}).items():
        spark.conf.set(k, v)
    try:
        for case, i in spark.sql(union).collect():
            out.setdefault(case, []).append(i)
    finally:
        for k in conf or {}:
            spark.conf.unset(k)
    return {case: sorted(found) for case, found in out.items()}
