# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""No false negatives on files other writers made: a randomized differential test.

The same randomized rows (every type DuckDB, pyarrow and parquet-java share with Spark:
integers of every width, unsigned ones where the writer has them, float and double with
NaN, -0.0 and 0.0, decimals of precision 5 to 38, unicode and empty strings, binary, dates,
timestamps in micros, millis and nanos, nulls) are written by

- DuckDB (``COPY ... TO ... (FORMAT parquet)``: Bloom filters on dictionary-encoded chunks),
- pyarrow (``bloom_filter_options``, on every column),
- parquet-java (Spark's own writer with ``parquet.bloom.filter.enabled#<col>``),

each into a table of several files with many row groups, and read with a small
``spark.sql.files.maxPartitionBytes`` so that every large file is split across several
tasks (the driver's row-group selection has to agree with each split's byte range).

**The oracle never reads Parquet.** Expected rows come from Spark over an in-memory
DataFrame built from the very rows that were written (``createDataFrame``, cached in
memory): no Parquet reader, no Bloom filter, no statistics, no dictionary takes part, so a
wrong hash on the write side, a wrong filter or a wrong row-group range cannot hide on both
sides the way it could when "expected" was Spark reading the same files with sparkbloom off
(parquet-java still prunes row groups in tasks with the same filters, statistics and
dictionaries through ``spark.sql.parquet.filterPushdown``). That the in-memory copy is
exactly what Spark reads from each table is checked first, column by column, with a full
scan that has no predicate (nothing to push down, nothing to prune).

Each case is one predicate (``=``, ``<=>``, ``IN`` short and long, with NULLs, and AND/OR
mixes) over one table, read with sparkbloom on through DataSource V1 and V2; cases run in
batches (a ``UNION ALL`` of one scan per case, each scan planned and pruned on its own) and
are compared one by one with the oracle, as sorted lists of row ids, so a row read twice by
two splits fails as surely as a row lost.

``SPARKBLOOM_DIFF_FOREIGN_QUERIES`` sets the cases per read path (default 200, so 400 per
run); ``SPARKBLOOM_TEST_SEED`` the seed. A failure names the seed, writer, read path and
predicate.
"""

from __future__ import annotations

import datetime as dt
import decimal
import glob
import os
import random
import re
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BinaryType,
    ByteType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

SEED = int(os.environ.get("SPARKBLOOM_TEST_SEED", "20261122"))
QUERIES = int(os.environ.get("SPARKBLOOM_DIFF_FOREIGN_QUERIES", "200"))  # per read path
BATCH = 50  # cases per Spark job
MAX_PARTITION_BYTES = 128 * 1024
ROWS_ABOVE = "spark.sparkbloom.pruning.rowsAbove"  # narrowing rows within row groups from this size
DEFAULT_ROWS_ABOVE = str(32 * 1024 * 1024)
OPEN_COST_BYTES = 8 * 1024

UTC = dt.UTC
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


def f32(x: float) -> float:
    """x rounded to the nearest float32 (what a FLOAT column holds)."""
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


# --------------------------------------------------------------------------------------
# Columns: Spark type, Arrow type, value pool, absent-value generator, SQL literal
# --------------------------------------------------------------------------------------


@dataclass
class Col:
    name: str
    spark: DataType
    arrow: pa.DataType
    sql_type: str
    pool: list[Any]
    absent: Callable[[random.Random], Any]
    writers: frozenset[str] = frozenset({"duckdb", "pyarrow", "parquet_java"})
    literal: Callable[[Any], str] | None = None

    def sql(self, value: Any) -> str:
        if value is None:
            return f"CAST(NULL AS {self.sql_type})"
        if self.literal is not None:
            return self.literal(value)
        text = format(value, "f") if isinstance(value, decimal.Decimal) else str(value)
        return f"CAST('{text}' AS {self.sql_type})"


def float_literal(sql_type: str) -> Callable[[Any], str]:
    def render(v: float) -> str:
        if v != v:
            text = "NaN"
        elif v in (float("inf"), float("-inf")):
            text = "Infinity" if v > 0 else "-Infinity"
        else:
            text = repr(v)
        return f"CAST('{text}' AS {sql_type})"

    return render


def string_literal(v: str) -> str:
    out = []
    for ch in v:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def micros(ts: dt.datetime) -> int:
    delta = ts - EPOCH if ts.tzinfo else ts - EPOCH.replace(tzinfo=None)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def unscaled(u: int, scale: int) -> decimal.Decimal:
    """u * 10^-scale, exactly, at that scale (decimal's context precision plays no part)."""
    return decimal.Decimal(f"{u}e-{scale}")


def decimal_pool(rnd: random.Random, precision: int, scale: int, n: int) -> list[decimal.Decimal]:
    top = 10**precision - 1
    edges = [top, -top, 0, 1, -1, 10**scale]
    return [unscaled(u, scale) for u in edges + [rnd.randint(-top, top) for _ in range(n)]]


def decimal_absent(precision: int, scale: int) -> Callable[[random.Random], decimal.Decimal]:
    top = 10**precision - 1
    return lambda r: unscaled(r.randint(-top, top), scale)


def columns(rnd: random.Random) -> list[Col]:
    def ints(lo: int, hi: int, extra: int) -> list[int]:
        return sorted({lo, hi, 0, 1, -1 if lo < 0 else 2} | {rnd.randint(lo, hi) for _ in range(extra)})

    floats = [
        float("nan"),
        -0.0,
        0.0,
        1.5,
        -2.25,
        f32(3.4028234e38),
        float("-inf"),
        float("inf"),
        f32(3.4e-40),
        f32(0.1),
    ] + [f32(rnd.uniform(-1e6, 1e6)) for _ in range(10)]
    doubles = [float("nan"), -0.0, 0.0, 0.1, -1e300, float("inf"), 5e-324, 1 / 3] + [
        rnd.uniform(-1e12, 1e12) for _ in range(12)
    ]
    strings = ["", " ", "a", "A", "Zürich", "東京", "\x00x", "trailing ", "emoji 😀", "it's", "back\\slash"] + [
        f"{rnd.getrandbits(64):016x}" for _ in range(25)
    ]
    binaries = [b"", b"\x00", b"\x01\x02\x03", b"\x07" * 40, b"\xff\xfe"] + [
        rnd.getrandbits(8 * 6).to_bytes(6, "little") for _ in range(10)
    ]
    dates = [
        dt.date(1, 1, 1),
        dt.date(1582, 10, 15),
        dt.date(1899, 12, 31),
        dt.date(1970, 1, 1),
        dt.date(2024, 2, 29),
        dt.date(9999, 12, 31),
    ] + [dt.date(1900, 1, 1) + dt.timedelta(days=rnd.randint(0, 60000)) for _ in range(10)]

    def ts_pool(tz: dt.tzinfo | None, unit_us: int) -> list[dt.datetime]:
        base = [
            dt.datetime(1900, 1, 1),
            dt.datetime(1969, 12, 31, 23, 59, 59, 999999 // unit_us * unit_us),
            dt.datetime(1970, 1, 1),
            dt.datetime(2024, 3, 10, 2, 30),
            dt.datetime(2262, 4, 11, 23, 47, 16),
        ]
        rand = [
            dt.datetime(1950, 1, 1) + dt.timedelta(microseconds=rnd.randint(0, 3 * 10**15) // unit_us * unit_us)
            for _ in range(15)
        ]
        return [t.replace(tzinfo=tz) for t in base + rand]

    def ts_absent(tz: dt.tzinfo | None, unit_us: int) -> Callable[[random.Random], dt.datetime]:
        def gen(r: random.Random) -> dt.datetime:
            # often off the unit grid: a micros literal against a millis column
            step = unit_us if r.random() < 0.5 else 1
            t = dt.datetime(1950, 1, 1) + dt.timedelta(microseconds=r.randint(0, 3 * 10**15) // step * step)
            return t.replace(tzinfo=tz)

        return gen

    def instant_literal(v: dt.datetime) -> str:
        return f"timestamp_micros({micros(v)})"

    def ntz_literal(v: dt.datetime) -> str:
        return f"TIMESTAMP_NTZ '{v.isoformat(sep=' ', timespec='microseconds')}'"

    not_spark = frozenset({"duckdb", "pyarrow"})
    nanos = [n * 1000 + (0 if n % 3 else 7) for n in ints(-(2**52), 2**52, 20)]
    return [
        Col("c_i8", ByteType(), pa.int8(), "TINYINT", ints(-128, 127, 8), lambda r: r.randint(-128, 127)),
        Col("c_i16", ShortType(), pa.int16(), "SMALLINT", ints(-32768, 32767, 10), lambda r: r.randint(-32768, 32767)),
        Col(
            "c_i32",
            IntegerType(),
            pa.int32(),
            "INT",
            ints(-(2**31), 2**31 - 1, 30),
            lambda r: r.randint(-(2**31), 2**31 - 1),
        ),
        Col(
            "c_i64",
            LongType(),
            pa.int64(),
            "BIGINT",
            ints(-(2**63), 2**63 - 1, 40),
            lambda r: r.randint(-(2**63), 2**63 - 1),
        ),
        Col("c_u8", ShortType(), pa.uint8(), "SMALLINT", ints(0, 255, 6), lambda r: r.randint(0, 255), not_spark),
        Col("c_u16", IntegerType(), pa.uint16(), "INT", ints(0, 65535, 8), lambda r: r.randint(0, 65535), not_spark),
        Col(
            "c_u32",
            LongType(),
            pa.uint32(),
            "BIGINT",
            ints(0, 2**32 - 1, 20) + [2**31, 2**31 + 5],
            lambda r: r.randint(0, 2**32 - 1),
            not_spark,
        ),
        Col(
            "c_u64",
            DecimalType(20, 0),
            pa.uint64(),
            "DECIMAL(20,0)",
            [decimal.Decimal(v) for v in ints(0, 2**64 - 1, 20) + [2**63, 2**63 + 1]],
            lambda r: decimal.Decimal(r.randint(0, 2**64 - 1)),
            not_spark,
        ),
        Col(
            "c_f32",
            FloatType(),
            pa.float32(),
            "FLOAT",
            floats,
            lambda r: f32(r.uniform(-1e6, 1e6)),
            literal=float_literal("FLOAT"),
        ),
        Col(
            "c_f64",
            DoubleType(),
            pa.float64(),
            "DOUBLE",
            doubles,
            lambda r: r.uniform(-1e12, 1e12),
            literal=float_literal("DOUBLE"),
        ),
        Col(
            "c_dec5",
            DecimalType(5, 2),
            pa.decimal128(5, 2),
            "DECIMAL(5,2)",
            decimal_pool(rnd, 5, 2, 10),
            decimal_absent(5, 2),
        ),
        Col(
            "c_dec18",
            DecimalType(18, 4),
            pa.decimal128(18, 4),
            "DECIMAL(18,4)",
            decimal_pool(rnd, 18, 4, 15),
            decimal_absent(18, 4),
        ),
        Col(
            "c_dec25",
            DecimalType(25, 5),
            pa.decimal128(25, 5),
            "DECIMAL(25,5)",
            decimal_pool(rnd, 25, 5, 15),
            decimal_absent(25, 5),
        ),
        Col(
            "c_dec38",
            DecimalType(38, 10),
            pa.decimal128(38, 10),
            "DECIMAL(38,10)",
            decimal_pool(rnd, 38, 10, 15),
            decimal_absent(38, 10),
        ),
        Col(
            "c_str",
            StringType(),
            pa.string(),
            "STRING",
            strings,
            lambda r: f"absent-{r.getrandbits(40):x}",
            literal=string_literal,
        ),
        Col(
            "c_bin",
            BinaryType(),
            pa.binary(),
            "BINARY",
            binaries,
            lambda r: r.getrandbits(40).to_bytes(5, "little"),
            literal=lambda v: f"X'{v.hex()}'",
        ),
        Col(
            "c_date",
            DateType(),
            pa.date32(),
            "DATE",
            dates,
            lambda r: dt.date(1900, 1, 1) + dt.timedelta(days=r.randint(0, 60000)),
            literal=lambda v: f"DATE '{v.isoformat()}'",
        ),
        Col(
            "c_ts",
            TimestampType(),
            pa.timestamp("us", tz="UTC"),
            "TIMESTAMP",
            ts_pool(UTC, 1),
            ts_absent(UTC, 1),
            literal=instant_literal,
        ),
        Col(
            "c_ntz",
            TimestampNTZType(),
            pa.timestamp("us"),
            "TIMESTAMP_NTZ",
            ts_pool(None, 1),
            ts_absent(None, 1),
            literal=ntz_literal,
        ),
        Col(
            "c_ts_ms",
            TimestampType(),
            pa.timestamp("ms", tz="UTC"),
            "TIMESTAMP",
            ts_pool(UTC, 1000),
            ts_absent(UTC, 1000),
            not_spark,
            literal=instant_literal,
        ),
        Col(
            "c_ntz_ms",
            TimestampNTZType(),
            pa.timestamp("ms"),
            "TIMESTAMP_NTZ",
            ts_pool(None, 1000),
            ts_absent(None, 1000),
            not_spark,
            literal=ntz_literal,
        ),
        # TIMESTAMP(NANOS): Spark reads it as bigint nanoseconds (spark.sql.legacy.parquet.nanosAsLong)
        Col("c_ns", LongType(), pa.timestamp("ns"), "BIGINT", nanos, lambda r: r.randint(-(2**62), 2**62), not_spark),
    ]


# --------------------------------------------------------------------------------------
# Tables: rows, the writer's files, the in-memory oracle
# --------------------------------------------------------------------------------------


@dataclass
class Table:
    writer: str
    path: Path
    cols: list[Col]  # the pooled columns
    rows: list[tuple[Any, ...]]  # (id, k, ks, *pooled)
    schema: StructType
    oracle: DataFrame | None = None
    files: list[str] = field(default_factory=list)


def key_columns() -> list[tuple[str, DataType, pa.DataType]]:
    """Unique keys: a present one is in exactly one row group (mostly a middle one)."""
    return [("id", LongType(), pa.int64()), ("k", LongType(), pa.int64()), ("ks", StringType(), pa.string())]


def make_rows(rnd: random.Random, cols: list[Col], n: int, first_id: int) -> list[tuple[Any, ...]]:
    rows = []
    for i in range(n):
        key = rnd.getrandbits(63) - 2**62
        values = [None if rnd.random() < 0.1 else rnd.choice(c.pool) for c in cols]
        rows.append((first_id + i, key, f"key-{key & 0xFFFFFFFFFFFF:012x}-{first_id + i}", *values))
    return rows


def arrow_table(cols: list[Col], rows: list[tuple[Any, ...]]) -> pa.Table:
    names = [n for n, _, _ in key_columns()] + [c.name for c in cols]
    types = [t for _, _, t in key_columns()] + [c.arrow for c in cols]
    arrays = []
    for j, t in enumerate(types):
        values = [r[j] for r in rows]
        if pa.types.is_timestamp(t) and t.unit == "ns":  # nanoseconds since the epoch
            arrays.append(pa.array(values, pa.int64()).cast(t))
        else:
            arrays.append(pa.array(values, t))
    return pa.Table.from_arrays(arrays, names=names)


def write_duckdb(table: pa.Table, path: Path, slices: list[tuple[int, int, int]]) -> None:
    path.mkdir(parents=True)
    con = duckdb.connect(config={"threads": "2", "memory_limit": "2GB"})
    for i, (start, length, row_group) in enumerate(slices):
        con.register("part", table.slice(start, length))
        # the first file with a dictionary (so a filter) on the unique keys too, the others as DuckDB's defaults
        extra = ", DICTIONARY_SIZE_LIMIT 200000" if i == 0 else ""
        con.execute(
            f"COPY (SELECT * FROM part) TO '{path}/part-{i}.parquet' "
            f"(FORMAT parquet, ROW_GROUP_SIZE {row_group}{extra})"
        )
        con.unregister("part")
    con.close()


def write_pyarrow(table: pa.Table, path: Path, slices: list[tuple[int, int, int]]) -> None:
    path.mkdir(parents=True)
    filtered = {name: {"ndv": 2000, "fpp": 0.01} for name in table.column_names}
    for i, (start, length, row_group) in enumerate(slices):
        pq.write_table(
            table.slice(start, length),
            f"{path}/part-{i}.parquet",
            row_group_size=row_group,
            bloom_filter_options=filtered,
            # one file with integer decimals and no dictionaries, the others as pyarrow's defaults
            store_decimal_as_integer=(i == 1),
            use_dictionary=(i != 1),
            # page indexes (which narrowing rows needs) in all but the last file, small pages in the first
            write_page_index=(i < len(slices) - 1),
            data_page_size=8 * 1024 if i == 0 else None,
        )


def write_parquet_java(spark: SparkSession, oracle: DataFrame, names: list[str], path: Path) -> None:
    options = {"parquet.enable.dictionary": "false", "parquet.block.size": str(32 * 1024)}
    for n in names:  # without an ndv parquet-java writes 1 MiB per chunk
        options.update({f"parquet.bloom.filter.enabled#{n}": "true", f"parquet.bloom.filter.expected.ndv#{n}": "300"})
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    try:
        oracle.repartition(3, "id").sortWithinPartitions("id").write.options(**options).parquet(str(path))
    finally:
        spark.conf.unset("spark.sql.parquet.outputTimestampType")


WRITERS = ("duckdb", "pyarrow", "parquet_java")


@contextmanager
def settings_applied(spark: SparkSession, settings: dict[str, str]) -> Iterator[SparkSession]:
    """The session with `settings`, restored afterwards."""
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        yield spark
    finally:
        for k, old in before.items():
            if old is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, old)


@pytest.fixture(scope="module")
def session(spark: SparkSession) -> Iterator[SparkSession]:
    settings = {
        "spark.sql.files.maxPartitionBytes": str(MAX_PARTITION_BYTES),
        "spark.sql.files.openCostInBytes": str(OPEN_COST_BYTES),
        "spark.sql.legacy.parquet.nanosAsLong": "true",
        # foreign files carry no Spark version: dates before 1582 are read as written
        "spark.sql.parquet.datetimeRebaseModeInRead": "CORRECTED",
        "spark.sql.parquet.int96RebaseModeInRead": "CORRECTED",
        "spark.sql.session.timeZone": "UTC",
    }
    with settings_applied(spark, settings):
        yield spark


@pytest.fixture(scope="module")
def tables(session: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Table]:
    spark = session
    rnd = random.Random(SEED)
    all_cols = columns(rnd)
    root = tmp_path_factory.mktemp("foreign")
    out: dict[str, Table] = {}
    next_id = 0
    # (start, rows, row group rows): a big file of many row groups, then smaller ones
    layouts = {
        "duckdb": [(0, 14336, 2048), (14336, 4096, 2048), (18432, 2500, 100000)],
        "pyarrow": [(0, 9000, 750), (9000, 3000, 500), (12000, 1500, 100000)],
        "parquet_java": [(0, 9000, 0)],
    }
    for writer in WRITERS:
        cols = [c for c in all_cols if writer in c.writers]
        n = sum(length for _, length, _ in layouts[writer])
        rows = make_rows(rnd, cols, n, next_id)
        next_id += n
        schema = StructType(
            [StructField(name, t) for name, t, _ in key_columns()] + [StructField(c.name, c.spark) for c in cols]
        )
        oracle = spark.createDataFrame(rows, schema).cache()
        assert oracle.count() == n
        table = Table(writer, root / writer, cols, rows, schema, oracle)
        names = [f.name for f in schema.fields]
        if writer == "duckdb":
            write_duckdb(arrow_table(cols, rows), table.path, layouts[writer])
        elif writer == "pyarrow":
            write_pyarrow(arrow_table(cols, rows), table.path, layouts[writer])
        else:
            write_parquet_java(spark, oracle, names, table.path)
        table.files = sorted(glob.glob(str(table.path / "*.parquet")))
        out[writer] = table
    return out


def canonical(df: DataFrame) -> list[str]:
    return sorted(r[0] for r in df.select(F.to_json(F.struct(*df.columns))).collect())


@pytest.mark.parametrize("writer", WRITERS)
def test_oracle_is_exactly_what_spark_reads(session: SparkSession, tables: dict[str, Table], writer: str) -> None:
    """The in-memory copy equals the table as Spark reads it (full scan: nothing to prune)."""
    table = tables[writer]
    read = session.read.parquet(str(table.path))
    assert [(f.name, f.dataType) for f in read.schema.fields] == [(f.name, f.dataType) for f in table.schema.fields]
    assert table.oracle is not None
    assert canonical(read) == canonical(table.oracle)


def filter_coverage(files: list[str]) -> dict[str, tuple[int, int]]:
    """Per column: (chunks with a Bloom filter, chunks) over every row group of every file."""
    coverage: dict[str, list[int]] = {}
    for file in files:
        metadata = pq.ParquetFile(file).metadata
        for rg in range(metadata.num_row_groups):
            row_group = metadata.row_group(rg)
            for i in range(row_group.num_columns):
                chunk = row_group.column(i)
                counts = coverage.setdefault(chunk.path_in_schema, [0, 0])
                counts[0] += int(chunk.bloom_filter_offset is not None and (chunk.bloom_filter_length or 1) > 0)
                counts[1] += 1
    return {k: (v[0], v[1]) for k, v in coverage.items()}


def test_the_tables_have_filters_and_split_files(session: SparkSession, tables: dict[str, Table]) -> None:
    """The data is worth testing: filters written, several row groups, files split across tasks."""
    for writer, table in tables.items():
        coverage = filter_coverage(table.files)
        groups = [pq.ParquetFile(f).metadata.num_row_groups for f in table.files]
        sizes = [os.path.getsize(f) for f in table.files]
        with_filters = [c for c, (f, _) in coverage.items() if f > 0]
        print(
            f"{writer}: {len(table.files)} files ({groups} row groups, {sizes} bytes), "
            f"filters on {len(with_filters)} of {len(coverage)} columns: "
            + ", ".join(f"{c} {f}/{n}" for c, (f, n) in coverage.items())
        )
        if writer == "duckdb":  # dictionary-encoded chunks only (the keys in the first file)
            assert len(with_filters) >= 10, coverage
        else:  # every column asked for
            assert all(f == n for f, n in coverage.values()), coverage
        assert max(groups) >= 5, (writer, groups)
        assert max(sizes) >= 3 * MAX_PARTITION_BYTES, (writer, sizes)  # at least 3 splits
    scan = session.read.parquet(str(tables["duckdb"].path))
    assert scan.rdd.getNumPartitions() > len(tables["duckdb"].files)


# --------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------

KEY_LITERALS = {
    "k": lambda v: f"CAST('{v}' AS BIGINT)",
    "ks": string_literal,
}


class Generator:
    def __init__(self, rnd: random.Random, table: Table) -> None:
        self.rnd = rnd
        self.table = table

    def value(self, col: Col | str, present: bool) -> str:
        r = self.rnd
        if isinstance(col, str):  # a unique key: present means one row's key
            j = 1 if col == "k" else 2
            value = (
                r.choice(self.table.rows)[j]
                if present
                else (r.getrandbits(63) - 2**62 if col == "k" else f"key-{r.getrandbits(48):012x}-absent")
            )
            return KEY_LITERALS[col](value)
        if present or r.random() < 0.1:
            return col.sql(r.choice(col.pool))
        return col.sql(col.absent(r))

    def leaf(self) -> str:
        r = self.rnd
        col: Col | str = r.choice(["k", "ks"]) if r.random() < 0.3 else r.choice(self.table.cols)
        name = col if isinstance(col, str) else col.name
        present = r.random() < 0.4
        kind = r.randrange(10)
        if kind < 4:
            return f"{name} = {self.value(col, present)}"
        if kind < 6:
            if not isinstance(col, str) and r.random() < 0.15:
                return f"{name} <=> {col.sql(None)}"
            return f"{name} <=> {self.value(col, present)}"
        if kind < 8:
            values = [self.value(col, present) for _ in range(1 + r.randrange(4))]
        else:
            values = [self.value(col, r.random() < 0.2) for _ in range(15 + r.randrange(40))]
            if not isinstance(col, str) and r.random() < 0.5:
                values.append(col.sql(None))
        return f"{name} IN ({', '.join(values)})"

    def predicate(self, depth: int = 2) -> str:
        r = self.rnd
        if depth == 0 or r.randrange(3) == 0:
            return self.leaf()
        op = "AND" if r.random() < 0.6 else "OR"
        return f"({self.predicate(depth - 1)} {op} {self.predicate(depth - 1)})"


# --------------------------------------------------------------------------------------
# The differential test
# --------------------------------------------------------------------------------------

PRUNING = re.compile(r"BloomPruning:? files (\d+) -> (\d+), row groups (\d+) -> (\d+)")


@dataclass
class Tally:
    cases: int = 0
    with_rows: int = 0
    pruned: int = 0
    files_skipped: int = 0
    row_groups_skipped: int = 0
    ruled_out_before_planning: int = 0


def expected_ids(oracle: DataFrame, cases: list[tuple[int, str]]) -> dict[int, list[int]]:
    """Each case's ids over the in-memory rows: one pass, one boolean column per case."""
    flags = [F.coalesce(F.expr(p), F.lit(False)).alias(f"c{i}") for i, p in cases]
    found: dict[int, list[int]] = {i: [] for i, _ in cases}
    for row in oracle.select("id", *flags).collect():
        for i, _ in cases:
            if row[f"c{i}"]:
                found[i].append(row["id"])
    return {i: sorted(v) for i, v in found.items()}


def actual_ids(
    scan: DataFrame, cases: list[tuple[int, str]]
) -> tuple[dict[int, list[int]], dict[int, tuple[int, ...] | None]]:
    """Each case's ids with sparkbloom on, one scan per case in one job, and each scan's
    pruning: None where sparkbloom ruled out every file before the scan was planned."""
    union = reduce(DataFrame.union, [scan.where(p).select(F.lit(i).alias(f"case_{i}"), "id") for i, p in cases])
    found: dict[int, list[int]] = {i: [] for i, _ in cases}
    for row in union.collect():
        found[row[0]].append(row[1])
    plan = union._jdf.queryExecution().executedPlan().toString()
    # The union's children are printed in order, each from its Project "<i> AS case_<i>".
    pruning: dict[int, tuple[int, ...]] = {}
    marks = list(re.finditer(r"\b(\d+) AS case_(\d+)", plan))
    for m, nxt in zip(marks, marks[1:] + [None]):
        segment = plan[m.end() : nxt.start() if nxt else len(plan)]
        p = PRUNING.search(segment)
        pruning[int(m.group(2))] = tuple(int(x) for x in p.groups()) if p else (0, 0, 0, 0)
    # No scan at all (an empty LocalTableScan): the optimizer folded the predicate to false;
    # Spark alone tells whether a scan was left to judge.
    assert set(pruning) <= set(found)
    result: dict[int, tuple[int, ...] | None] = dict(pruning)
    with settings_applied(scan.sparkSession, {"spark.sparkbloom.enabled": "false"}):
        for i, p in cases:
            if i not in pruning:
                optimized = scan.where(p)._jdf.queryExecution().optimizedPlan().toString()
                result[i] = None if "Relation" in optimized else (0, 0, 0, 0)
    return {i: sorted(v) for i, v in found.items()}, result


@pytest.mark.parametrize("read_path", ["v1", "v2"])
def test_randomized_queries_match_the_in_memory_oracle(
    session: SparkSession, tables: dict[str, Table], read_path: str
) -> None:
    spark = session
    rnd = random.Random(f"{SEED}-{read_path}")
    generators = {w: Generator(rnd, t) for w, t in tables.items()}
    if read_path == "v2":
        spark.conf.set("spark.sql.sources.useV1SourceList", "")
    tally = {w: Tally() for w in tables}
    started = time.monotonic()
    try:
        scans = {w: spark.read.parquet(str(t.path)) for w, t in tables.items()}
        per_writer = {w: QUERIES // len(tables) + (1 if i < QUERIES % len(tables) else 0) for i, w in enumerate(tables)}
        for writer, count in per_writer.items():
            table = tables[writer]
            assert table.oracle is not None
            done = 0
            while done < count:
                # every other batch reads only the rows whose key may match in every row group it can
                narrowed = (done // BATCH + (read_path == "v2")) % 2 == 0
                cases = [(done + j, generators[writer].predicate()) for j in range(min(BATCH, count - done))]
                done += len(cases)
                expected = expected_ids(table.oracle, cases)
                with settings_applied(spark, {ROWS_ABOVE: "0" if narrowed else DEFAULT_ROWS_ABOVE}):
                    actual, pruning = actual_ids(scans[writer], cases)
                for i, p in cases:
                    assert actual[i] == expected[i], (
                        f"seed {SEED}, writer {writer}, {read_path}, case {i}, rows narrowed {narrowed}: WHERE {p}\n"
                        f"sparkbloom returned {len(actual[i])} rows, the oracle {len(expected[i])}; "
                        f"missing {sorted(set(expected[i]) - set(actual[i]))[:10]}, "
                        f"extra {sorted(set(actual[i]) - set(expected[i]))[:10]}; pruning {pruning[i]}"
                    )
                    t = tally[writer]
                    t.cases += 1
                    t.with_rows += bool(expected[i])
                    if pruning[i] is None:  # every file ruled out while optimizing: no scan planned
                        t.ruled_out_before_planning += 1
                        t.pruned += 1
                        continue
                    files_total, files_kept, groups_total, groups_kept = pruning[i]
                    t.files_skipped += files_total - files_kept
                    t.row_groups_skipped += groups_total - groups_kept
                    t.pruned += (files_total - files_kept) + (groups_total - groups_kept) > 0
    finally:
        if read_path == "v2":
            spark.conf.unset("spark.sql.sources.useV1SourceList")
    total = Tally(
        *(
            sum(getattr(t, f) for t in tally.values())
            for f in ("cases", "with_rows", "pruned", "files_skipped", "row_groups_skipped")
        )
    )
    print(
        f"\nforeign differential {read_path} (seed {SEED}): {total.cases} cases, {total.with_rows} with rows, "
        f"{total.pruned} pruned; {total.files_skipped} files and {total.row_groups_skipped} row groups ruled out "
        f"({time.monotonic() - started:.0f} s)"
    )
    for writer, t in tally.items():
        print(
            f"  {writer}: {t.cases} cases, {t.with_rows} with rows, {t.pruned} pruned "
            f"({t.ruled_out_before_planning} planned as empty), "
            f"{t.files_skipped} files / {t.row_groups_skipped} row groups ruled out"
        )
        # Otherwise the comparison proves little: pruning must have happened, on rows too.
        assert t.pruned >= t.cases // 4, (writer, t)
        assert t.with_rows >= t.cases // 10, (writer, t)
    assert total.cases == QUERIES


def scanned_rows(df: DataFrame) -> tuple[list[str], int]:
    """The rows of `df` (canonical) and how many rows its one scan handed on (AQE off)."""
    as_json = df.select(F.to_json(F.struct(*df.columns)))
    rows = sorted(r[0] for r in as_json.collect())
    plan = as_json._jdf.queryExecution().executedPlan()
    leaves = plan.collectLeaves()
    scans = [leaves.apply(i) for i in range(leaves.size())]
    scans = [n for n in scans if n.nodeName().startswith(("Scan", "BatchScan"))]
    assert len(scans) == 1, plan.toString()
    return rows, scans[0].metrics().apply("numOutputRows").value()


@pytest.mark.parametrize("writer", ["pyarrow", "parquet_java"])
@pytest.mark.parametrize("read_path", ["v1", "v2"])
def test_narrowed_rows_of_other_writers_files_hold_every_value(
    session: SparkSession, tables: dict[str, Table], writer: str, read_path: str
) -> None:
    """Rows narrowed within row groups (every column skipped to the matching rows, in pages
    of each writer's encodings) hold exactly the oracle's values, and narrowing happened."""
    table = tables[writer]
    assert table.oracle is not None
    rnd = random.Random(f"{SEED}-narrowed-{writer}-{read_path}")
    # keys of the files with page indexes (pyarrow's last file has none; parquet-java's all do)
    indexed = [f for f in table.files if pq.ParquetFile(f).metadata.row_group(0).column(0).has_offset_index]
    ids = set(pq.read_table(indexed, columns=["id"]).column(0).to_pylist()) if indexed else set()
    with_index = [r for r in table.rows if r[0] in ids]
    keys = ", ".join(string_literal(r[2]) for r in rnd.sample(with_index, 6))
    predicate = f"ks IN ({keys})"
    expected = canonical(table.oracle.where(predicate))
    assert len(expected) == 6
    settings = {
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.sources.useV1SourceList": "" if read_path == "v2" else "parquet",
    }
    with settings_applied(session, {**settings, ROWS_ABOVE: "0"}):
        narrowed, scanned = scanned_rows(session.read.parquet(str(table.path)).where(predicate))
    with settings_applied(session, {**settings, "spark.sparkbloom.pruning.rows": "false"}):
        whole, scanned_whole = scanned_rows(session.read.parquet(str(table.path)).where(predicate))
    print(
        f"\n{writer} {read_path}: 6 rows of {len(table.rows)}, the scan handed on {scanned} narrowed, {scanned_whole} whole"
    )
    assert narrowed == expected and whole == expected
    assert scanned == 6 < scanned_whole, (writer, read_path, scanned, scanned_whole)


JOINS = int(os.environ.get("SPARKBLOOM_DIFF_FOREIGN_JOINS", "24"))  # per writer
JOIN_SHAPES = (  # {keys} is an inline table k(v)
    "SELECT f.id FROM {fact} f JOIN {keys} ON f.{col} = k.v",
    "SELECT id FROM {fact} WHERE {col} IN (SELECT v FROM {keys})",
    "SELECT f.id FROM {fact} f WHERE EXISTS (SELECT 1 FROM {keys} WHERE k.v = f.{col})",
    "SELECT f.id, k.v FROM {fact} f RIGHT JOIN {keys} ON f.{col} = k.v",
)
JOIN_LAYOUTS = (
    {"spark.sql.adaptive.enabled": "true"},
    {"spark.sql.adaptive.enabled": "false"},
    {
        "spark.sql.adaptive.enabled": "true",
        "spark.sql.autoBroadcastJoinThreshold": "-1",
        "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly": "false",
    },
)


def test_randomized_joins_match_the_in_memory_oracle(session: SparkSession, tables: dict[str, Table]) -> None:
    """Keys from another table (a join, IN and EXISTS subqueries, an outer join) over every
    writer's files, with sparkbloom's run-time pruning, against the same joins over the
    in-memory rows."""
    spark = session
    rnd = random.Random(f"{SEED}-joins")
    probed = pruned = 0
    for writer, table in tables.items():
        generator = Generator(rnd, table)
        spark.read.parquet(str(table.path)).createOrReplaceTempView(f"files_{writer}")
        assert table.oracle is not None
        table.oracle.createOrReplaceTempView(f"memory_{writer}")
        for case in range(JOINS):
            col: Col | str = rnd.choice(["k", "ks"]) if rnd.random() < 0.6 else rnd.choice(table.cols)
            name = col if isinstance(col, str) else col.name
            values = [generator.value(col, rnd.random() < 0.6) for _ in range(1 + rnd.randrange(12))]
            keys = "(VALUES " + ", ".join(f"({v})" for v in values) + ") AS k(v)"
            shape = rnd.choice(JOIN_SHAPES)
            conf = rnd.choice(JOIN_LAYOUTS)
            for k, v in conf.items():
                spark.conf.set(k, v)
            try:
                expected = sorted(
                    map(str, spark.sql(shape.format(fact=f"memory_{writer}", keys=keys, col=name)).collect())
                )
                df = spark.sql(shape.format(fact=f"files_{writer}", keys=keys, col=name))
                actual = sorted(map(str, df.collect()))
                plan = df._jdf.queryExecution().executedPlan().toString()
            finally:
                for k in conf:
                    spark.conf.unset(k)
            assert actual == expected, (
                f"seed {SEED}, writer {writer}, join case {case} ({conf}): {shape.format(fact='t', keys=keys, col=name)}\n"
                f"sparkbloom returned {len(actual)} rows, the oracle {len(expected)}; "
                f"missing {sorted(set(expected) - set(actual))[:5]}, extra {sorted(set(actual) - set(expected))[:5]}"
            )
            if re.search(r"join keys \d+, ", plan):  # the pruning of a scan that probed keys
                probed += 1
                p = PRUNING.search(plan)
                pruned += bool(p and (p.group(1) != p.group(2) or p.group(3) != p.group(4)))
    print(
        f"\nforeign join differential (seed {SEED}): {JOINS * len(tables)} cases, {probed} probed join keys, "
        f"{pruned} pruned"
    )
    assert pruned >= JOINS * len(tables) // 5, (probed, pruned)
