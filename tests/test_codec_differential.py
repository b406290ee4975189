# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Every codec pyarrow writes, read through sparkbloom: a randomized differential test.

For each codec pyarrow writes and Spark reads (snappy, gzip, zstd, lz4 (Parquet's
``LZ4_RAW``), none; not brotli: Spark ships no Brotli codec, so it reads no such file with
or without sparkbloom) one table of four pyarrow files: data page versions 1.0 and 2.0,
each with and without page indexes, 1 KiB pages (so a narrowed read has pages to skip),
Bloom filters on the key columns (``bloom_filter_options``), and row groups that span
several 64 KiB splits. Key columns of four types (int64, string, double with NaN and -0.0,
decimal(18,4) stored as fixed-length bytes or as int64) hold nulls and repeated values.

Each case is one lookup (``=``, ``<=>`` with a value or NULL, ``IN`` of 2-5 and of 32-40
values, present and absent keys) read with sparkbloom on, rows narrowed within every row
group that allows it (``rowsAbove`` 0), with ``spark.sql.files.maxPartitionBytes`` of 64 KiB
and with Spark's default. **The oracle** is the same query with sparkbloom and Parquet filter
pushdown off (no Bloom filter, statistics, dictionary or page index takes part); rows are
compared whole, sorted, so a row read twice or lost fails as surely as a wrong value.

parquet-java's dictionary filter (part of Parquet filter pushdown) can fail on an
``LZ4_RAW`` dictionary page of more than 8 KiB (``MalformedInputException``; it copies the
page through 8 KiB reads of a pooled decompressor, apache/parquet-java#3478), in Spark alone
as with sparkbloom, depending on what the JVM's pooled decompressors held before. Each table
is therefore first read with pushdown off (the oracle's reads), as a session reading it for
the first time without sparkbloom would; after that, no lookup failed in Spark alone in
these tests' runs, so a lookup that fails is one sparkbloom made fail.

``SPARKBLOOM_CODEC_CASES`` sets the cases per codec (default 24, each run at both split
sizes); ``SPARKBLOOM_TEST_SEED`` the seed. A failure names the seed, codec, split size and
predicate.
"""

from __future__ import annotations

import decimal
import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import reduce
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from test_differential_foreign import scanned_rows, settings_applied

SEED = int(os.environ.get("SPARKBLOOM_TEST_SEED", "20261127"))
CASES = int(os.environ.get("SPARKBLOOM_CODEC_CASES", "24"))  # per codec, each at both split sizes
CODECS = ("snappy", "gzip", "zstd", "lz4", "none")
LAYOUTS = tuple((version, index) for version in ("1.0", "2.0") for index in (True, False))
ROWS_PER_FILE = 4000
ROW_GROUP_ROWS = 1000
SMALL_SPLITS = 64 * 1024
DEFAULT_SPLITS = 128 * 1024 * 1024
KEYS = ("k", "s", "f", "d")
ORACLE = {"spark.sparkbloom.enabled": "false", "spark.sql.parquet.filterPushdown": "false"}
SPARKBLOOM = {"spark.sparkbloom.enabled": "true", "spark.sparkbloom.pruning.rowsAbove": "0"}
PRUNING = re.compile(r"BloomPruning:? files (\d+) -> (\d+), row groups (\d+) -> (\d+)")


# --------------------------------------------------------------------------------------
# Rows and files
# --------------------------------------------------------------------------------------


@dataclass
class Pools:
    k: list[int]
    s: list[str]
    f: list[float]
    d: list[decimal.Decimal]

    def of(self, column: str) -> list[Any]:
        return list(getattr(self, column))


def pools(rnd: random.Random) -> Pools:
    n = 1500
    return Pools(
        k=[rnd.getrandbits(63) - 2**62 for _ in range(n)] + [0, -1, 2**63 - 1, -(2**63)],
        s=[f"user-{rnd.getrandbits(48):012x}" for _ in range(n)] + ["", "Zürich"],
        f=[rnd.uniform(-1e9, 1e9) for _ in range(n)] + [0.0, -0.0, float("nan"), 1.5],
        d=[decimal.Decimal(rnd.randint(-(10**18) + 1, 10**18 - 1)).scaleb(-4) for _ in range(n)]
        + [decimal.Decimal("0.0000")],
    )


def arrow_rows(rnd: random.Random, p: Pools, first_id: int, n: int) -> pa.Table:
    def column(values: list[Any]) -> list[Any]:
        return [None if rnd.random() < 0.05 else rnd.choice(values) for _ in range(n)]

    return pa.table(
        {
            "id": pa.array(range(first_id, first_id + n), pa.int64()),
            "k": pa.array(column(p.k), pa.int64()),
            "s": pa.array(column(p.s), pa.string()),
            "f": pa.array(column(p.f), pa.float64()),
            "d": pa.array(column(p.d), pa.decimal128(18, 4)),
            # nothing to compress: row groups of ~100 KB, files of several 64 KiB splits
            "pad": pa.array([rnd.getrandbits(256).to_bytes(32, "little") for _ in range(n)], pa.binary()),
        }
    )


def write_file(table: pa.Table, path: str, codec: str, version: str, index: bool) -> None:
    pq.write_table(
        table,
        path,
        compression=codec,
        data_page_version=version,
        data_page_size=1024,
        write_page_index=index,
        row_group_size=ROW_GROUP_ROWS,
        # dictionaries everywhere but in one layout (plain values there)
        use_dictionary=not (version == "2.0" and not index),
        # decimals as fixed-length bytes (v1 pages) and as int64 (v2 pages)
        store_decimal_as_integer=version == "2.0",
        bloom_filter_options={c: {"ndv": 1000, "fpp": 0.01} for c in KEYS},
    )


@dataclass
class Table:
    codec: str
    path: Path
    files: list[str]
    first_id: int
    rows: int


@pytest.fixture(scope="module")
def rng_pools() -> Pools:
    return pools(random.Random(SEED))


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory, rng_pools: Pools) -> dict[str, Table]:
    rnd = random.Random(f"{SEED}-rows")
    root = tmp_path_factory.mktemp("codecs")
    out = {}
    next_id = 0
    for codec in CODECS:
        path = root / codec
        path.mkdir()
        files = []
        first_id = next_id
        for version, index in LAYOUTS:
            file = str(path / f"part-v{version[0]}-{'index' if index else 'noindex'}.parquet")
            write_file(arrow_rows(rnd, rng_pools, next_id, ROWS_PER_FILE), file, codec, version, index)
            next_id += ROWS_PER_FILE
            files.append(file)
        out[codec] = Table(codec, path, files, first_id, ROWS_PER_FILE * len(LAYOUTS))
    return out


@pytest.fixture(scope="module")
def session(spark: SparkSession) -> Iterator[SparkSession]:
    with settings_applied(spark, {"spark.sql.files.openCostInBytes": "0", "spark.sql.session.timeZone": "UTC"}):
        yield spark


# --------------------------------------------------------------------------------------
# Lookups
# --------------------------------------------------------------------------------------


def literal(column: str, value: Any) -> str:
    if value is None:
        return {"k": "CAST(NULL AS BIGINT)", "s": "CAST(NULL AS STRING)", "f": "CAST(NULL AS DOUBLE)"}.get(
            column, "CAST(NULL AS DECIMAL(18,4))"
        )
    if column == "k":
        return f"CAST('{value}' AS BIGINT)"
    if column == "s":
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if column == "f":
        return f"CAST('{'NaN' if value != value else repr(value)}' AS DOUBLE)"
    return f"CAST('{format(value, 'f')}' AS DECIMAL(18,4))"


def absent(rnd: random.Random, column: str) -> Any:
    return {
        "k": lambda: rnd.getrandbits(63) - 2**62,
        "s": lambda: f"absent-{rnd.getrandbits(40):x}",
        "f": lambda: rnd.uniform(-1e9, 1e9),
        "d": lambda: decimal.Decimal(rnd.randint(-(10**18) + 1, 10**18 - 1)).scaleb(-4),
    }[column]()


def predicate(rnd: random.Random, p: Pools) -> str:
    column = rnd.choice(KEYS)
    present = rnd.random() < 0.5

    def value(is_present: bool) -> Any:
        return rnd.choice(p.of(column)) if is_present else absent(rnd, column)

    kind = rnd.randrange(4)
    if kind == 0:
        return f"{column} = {literal(column, value(present))}"
    if kind == 1:
        return f"{column} <=> {literal(column, None if rnd.random() < 0.15 else value(present))}"
    if kind == 2:
        values = [value(present) for _ in range(2 + rnd.randrange(4))]
    else:
        values = [value(present and rnd.random() < 0.3) for _ in range(32 + rnd.randrange(9))]
    return f"{column} IN ({', '.join(literal(column, v) for v in values)})"


def rows_per_case(scan: DataFrame, cases: list[tuple[int, str]]) -> tuple[dict[int, list[str]], str]:
    """Each case's rows (canonical JSON, sorted), from one job of one scan per case, and the plan."""
    union = reduce(
        DataFrame.union,
        [
            scan.where(p).select(F.lit(i).alias("case"), F.to_json(F.struct(*scan.columns)).alias("row"))
            for i, p in cases
        ],
    )
    found: dict[int, list[str]] = {i: [] for i, _ in cases}
    for row in union.collect():
        found[row[0]].append(row[1])
    return {i: sorted(v) for i, v in found.items()}, union._jdf.queryExecution().executedPlan().toString()


def test_lz4_raw_lookups_over_small_splits(session: SparkSession, tmp_path: Path) -> None:
    """A pyarrow LZ4_RAW file (v2 pages of 1 KiB, page indexes, no Bloom filters: every row
    group kept, its rows narrowed) of row groups over many 64 KiB splits, looked up with
    IN (32 keys) on each key type: every lookup answers, with Spark's count and rows.

    While the rows of a row group were shared among the splits it spans, each of those splits
    opened it, so parquet-java's dictionary filter ran in every one, and its LZ4_RAW fault
    (module docstring) failed these counts every time. First in this file, so that it runs
    before the session reads any other LZ4_RAW file."""
    spark = session
    rnd = random.Random(f"{SEED}-lz4")
    rows = 200_000
    p = pools(rnd)
    file = str(tmp_path / "lz4.parquet")
    pq.write_table(
        arrow_rows(rnd, p, 0, rows),
        file,
        compression="lz4",
        data_page_version="2.0",
        data_page_size=1024,
        write_page_index=True,
        row_group_size=50_000,
    )
    lookups = {}
    for column in KEYS:
        keys = rnd.sample([v for v in p.of(column) if v == v], 28) + [absent(rnd, column) for _ in range(4)]
        lookups[column] = f"{column} IN ({', '.join(literal(column, v) for v in keys)})"
    small = {"spark.sql.files.maxPartitionBytes": str(SMALL_SPLITS)}

    def ids(query: str) -> list[int]:
        return sorted(r[0] for r in spark.read.parquet(file).where(query).select("id").collect())

    # Spark's answers first (they also read the dictionaries as Spark's reader does)
    with settings_applied(spark, {**ORACLE, **small}):
        counts = {c: spark.read.parquet(file).where(q).count() for c, q in lookups.items()}
        expected = {c: ids(q) for c, q in lookups.items()}
    with settings_applied(spark, {**SPARKBLOOM, **small}):
        assert spark.read.parquet(file).rdd.getNumPartitions() >= 100
        for column, query in lookups.items():
            assert spark.read.parquet(file).where(query).count() == counts[column] == len(expected[column]) > 0
        for column, query in lookups.items():
            assert ids(query) == expected[column], column


def test_the_files_are_worth_testing(tables: dict[str, Table]) -> None:
    """Each codec written as asked, Bloom filters on every key chunk, page indexes where asked,
    row groups of pages to skip that span several small splits."""
    expected_codec = {"snappy": "SNAPPY", "gzip": "GZIP", "zstd": "ZSTD", "lz4": "LZ4"}
    for codec, table in tables.items():
        for file, (_, index) in zip(table.files, LAYOUTS, strict=True):
            metadata = pq.ParquetFile(file).metadata
            assert metadata.num_row_groups == ROWS_PER_FILE // ROW_GROUP_ROWS
            for rg in range(metadata.num_row_groups):
                row_group = metadata.row_group(rg)
                assert row_group.total_byte_size > 2 * SMALL_SPLITS // 3, (file, row_group.total_byte_size)
                for i in range(row_group.num_columns):
                    chunk = row_group.column(i)
                    assert chunk.compression == expected_codec.get(codec, "UNCOMPRESSED"), (file, chunk.compression)
                    assert chunk.has_offset_index == index, file
                    if chunk.path_in_schema in KEYS:
                        assert chunk.bloom_filter_offset is not None, (file, chunk.path_in_schema)
            assert os.path.getsize(file) > 3 * SMALL_SPLITS, file


@pytest.mark.parametrize("codec", CODECS)
def test_randomized_lookups_match_spark_without_pushdown(
    session: SparkSession, tables: dict[str, Table], rng_pools: Pools, codec: str
) -> None:
    spark = session
    table = tables[codec]
    rnd = random.Random(f"{SEED}-{codec}")
    cases = [(i, predicate(rnd, rng_pools)) for i in range(CASES)]
    with settings_applied(spark, {**ORACLE, "spark.sql.files.maxPartitionBytes": str(DEFAULT_SPLITS)}):
        # the whole table first (see the module's docstring): every row, read as written
        count, ids = spark.read.parquet(str(table.path)).agg(F.count("*"), F.sum("id")).collect()[0]
        assert (count, ids) == (table.rows, sum(range(table.first_id, table.first_id + table.rows)))
        expected, _ = rows_per_case(spark.read.parquet(str(table.path)), cases)
    pruned = with_rows = 0
    for split in (SMALL_SPLITS, DEFAULT_SPLITS):
        with settings_applied(spark, {**SPARKBLOOM, "spark.sql.files.maxPartitionBytes": str(split)}):
            scan = spark.read.parquet(str(table.path))
            if split == SMALL_SPLITS:
                assert scan.rdd.getNumPartitions() >= 4 * len(table.files), "row groups should span several splits"
            actual, plan = rows_per_case(scan, cases)
        for i, p in cases:
            assert actual[i] == expected[i], (
                f"seed {SEED}, codec {codec}, maxPartitionBytes {split}, case {i}: WHERE {p}\n"
                f"sparkbloom returned {len(actual[i])} rows, Spark without pushdown {len(expected[i])}; "
                f"missing {sorted(set(expected[i]) - set(actual[i]))[:3]}, extra {sorted(set(actual[i]) - set(expected[i]))[:3]}"
            )
        with_rows += sum(1 for i, _ in cases if expected[i])
        pruned += sum(1 for m in PRUNING.finditer(plan) if m.group(3) != m.group(4))
    print(f"\n{codec} (seed {SEED}): {CASES} cases at 2 split sizes, {with_rows // 2} with rows, {pruned} scans pruned")
    # otherwise the comparison proves little: rows found, row groups ruled out by the filters
    assert with_rows >= CASES // 2, with_rows
    assert pruned >= CASES // 2, pruned


@pytest.mark.parametrize("codec", CODECS)
def test_rows_are_narrowed_in_files_of_every_codec(session: SparkSession, tables: dict[str, Table], codec: str) -> None:
    """In the files with page indexes, the scan hands on only the rows whose key matches
    (every other column skipped to them, in pages of this codec), and they are Spark's rows."""
    spark = session
    indexed = [f for f, (_, index) in zip(tables[codec].files, LAYOUTS, strict=True) if index]
    rnd = random.Random(f"{SEED}-narrowed-{codec}")
    present = [v for v in pq.read_table(indexed, columns=["k"]).column(0).to_pylist() if v is not None]
    predicate = f"k IN ({', '.join(literal('k', v) for v in rnd.sample(present, 5))})"
    with settings_applied(spark, ORACLE):
        expected = sorted(
            r[0] for r in spark.read.parquet(*indexed).where(predicate).select(F.to_json(F.struct("*"))).collect()
        )
    assert len(expected) >= 5
    settings = {
        **SPARKBLOOM,
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.files.maxPartitionBytes": str(SMALL_SPLITS),
    }
    with settings_applied(spark, settings):
        narrowed, scanned = scanned_rows(spark.read.parquet(*indexed).where(predicate))
    with settings_applied(spark, {**settings, "spark.sparkbloom.pruning.rows": "false"}):
        whole, scanned_whole = scanned_rows(spark.read.parquet(*indexed).where(predicate))
    assert narrowed == expected and whole == expected
    assert scanned == len(expected) < scanned_whole, (codec, scanned, scanned_whole)
