# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""ClickHouse (chdb, in process) reads what sparkbloom writes, with its Parquet Bloom filter
push-down on, and answers `=` and `IN` lookups exactly: through every write path
(path, partitioned, catalog tables, small and large row groups), over every type that can
carry a filter, for the default power-of-two filters and for the exact-size opt-in.

The truth for each lookup is counted by Spark over the same files with sparkbloom off.
Filter sizes are read straight from the files (pyarrow's footer offsets, then the
Thrift header), not through sparkbloom.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chdb
import pyarrow
import pyarrow.parquet as pq
import pytest
from chdb import session as chdb_session
from parquet_filters import filter_length_ok, filter_sizes, is_power_of_two, parquet_files
from pyspark.sql import DataFrame, SparkSession

import sparkbloom

SMALL_ROWS = 6_000
#: More distinct values per row group than the writer buffers (128 Ki hashes): the filter
#: is collected at its ceiling and folded.
LARGE_ROWS = 140_000

#: (column, Spark expression over `id`): every type that can carry a filter.
COLUMNS: list[tuple[str, str]] = [
    ("c_byte", "CAST(id % 100 - 50 AS TINYINT)"),
    ("c_short", "CAST(id % 20000 - 10000 AS SMALLINT)"),
    ("c_int", "CAST(id * 7 - 3 AS INT)"),
    ("c_long", "id * 1000003 + 11"),
    ("c_float", "CAST(id / 2 AS FLOAT)"),
    ("c_double", "CAST(id AS DOUBLE) / 4"),
    ("c_dec9", "CAST(concat(CAST(id AS STRING), '.25') AS DECIMAL(9,2))"),
    ("c_dec18", "CAST(concat(CAST(id AS STRING), '.1234') AS DECIMAL(18,4))"),
    ("c_dec38", "CAST(concat(CAST(id * 1000000007 AS STRING), '.0123456789') AS DECIMAL(38,10))"),
    ("c_string", "concat('u-', CAST(id AS STRING))"),
    ("c_binary", "CAST(concat('b-', CAST(id AS STRING)) AS BINARY)"),
    ("c_date", "date_add(DATE'2000-01-01', CAST(id % 20000 AS INT))"),
    ("c_ts", "timestamp_micros(1600000000000000 + id * 1000001)"),
    ("c_ts_ntz", "CAST(timestamp_micros(1500000000000000 + id * 999999) AS TIMESTAMP_NTZ)"),
    ("s", "named_struct('k', concat('n-', CAST(id AS STRING)))"),
]
#: The filtered column paths (the struct by its field).
FILTERED = [name for name, _ in COLUMNS if name != "s"] + ["s.k"]

#: Spark's type for each filtered path, to cast the text of a lookup value.
SPARK_TYPES = {
    "c_byte": "TINYINT",
    "c_short": "SMALLINT",
    "c_int": "INT",
    "c_long": "BIGINT",
    "c_float": "FLOAT",
    "c_double": "DOUBLE",
    "c_dec9": "DECIMAL(9,2)",
    "c_dec18": "DECIMAL(18,4)",
    "c_dec38": "DECIMAL(38,10)",
    "c_string": "STRING",
    "c_binary": "BINARY",
    "c_date": "DATE",
    "c_ts": "TIMESTAMP",
    "c_ts_ntz": "TIMESTAMP_NTZ",
    "s.k": "STRING",
}

#: Values no row holds, as text (within each type's range; most lie between present values,
#: where min/max statistics cannot rule them out).
ABSENT: dict[str, list[str]] = {
    "c_byte": ["120", "-100"],
    "c_short": ["15000", "-10001"],
    "c_int": ["5", "1000"],
    "c_long": ["12", "5000000"],
    "c_float": ["0.3", "101.25"],
    "c_double": ["0.1", "77.3"],
    "c_dec9": ["0.10", "17.50"],
    "c_dec18": ["3.5000", "42.1233"],
    "c_dec38": ["1.5000000000", "1000000007.0123456788"],
    "c_string": ["nope-1", "u-x"],
    "c_binary": ["nob", "b-x"],
    "c_date": ["1990-01-01", "1999-12-31"],
    "c_ts": ["1999-01-01 00:00:00", "2020-09-13 12:26:40.5"],
    "c_ts_ntz": ["1999-01-01 00:00:00", "2017-07-14 02:40:00.5"],
    "s.k": ["nope", "n-x"],
}

#: ClickHouse settings: Bloom filter push-down on. "bloom only" also turns off what could
#: rule row groups out before the filter is asked (min/max statistics, dictionaries, page
#: indexes), so the filter alone decides and a wrong filter would show as a wrong count.
CH_DEFAULT = {
    "input_format_parquet_bloom_filter_push_down": 1,
    "input_format_parquet_filter_push_down": 1,
    "session_timezone": "'UTC'",
}
CH_BLOOM_ONLY = {
    "input_format_parquet_bloom_filter_push_down": 1,
    "input_format_parquet_filter_push_down": 0,
    "input_format_parquet_dictionary_filter_push_down": 0,
    "input_format_parquet_page_filter_push_down": 0,
    "session_timezone": "'UTC'",
}
CH_NO_BLOOM = {**CH_BLOOM_ONLY, "input_format_parquet_bloom_filter_push_down": 0}


_VERSION: list[str] = []


def clickhouse_version() -> str:
    """The version of the ClickHouse inside chdb, asked once through the module's session
    (with chdb 3.7.2, using the global `chdb.query` next to a session left the session without a connection)."""
    assert _VERSION, "the clickhouse fixture asks for the version first"
    return _VERSION[0]


@dataclass
class Layout:
    name: str
    path: Path
    rows: int
    exact_size: bool
    #: lookups as (column, [value texts]): each is queried as `=` (one value) or `IN`.
    lookups: list[tuple[str, list[str]]]
    #: the count Spark finds for each lookup, in order.
    truth: list[int]


def data(spark: SparkSession, rows: int, partitions: int) -> DataFrame:
    return spark.range(0, rows, 1, partitions).selectExpr(
        "id", "CAST(id % 3 AS INT) AS part", *[f"{expr} AS {name}" for name, expr in COLUMNS]
    )


def lookups_for(spark: SparkSession, path: Path, rows: int) -> list[tuple[str, list[str]]]:
    """For every column: present values (first, middle, last row; duplicates included for
    the narrow types) one by one, absent ones one by one, and an IN mixing both."""
    ids = [0, rows // 2 + 1, rows - 1]
    present = (
        spark.read.parquet(str(path))
        .where(f"id IN ({', '.join(map(str, ids))})")
        .selectExpr(*[f"CAST({'s.k' if c == 's.k' else c} AS STRING) AS `{c}`" for c in FILTERED])
        .collect()
    )
    assert len(present) == len(ids)
    lookups: list[tuple[str, list[str]]] = []
    for column in FILTERED:
        values = sorted({row[column] for row in present})
        lookups += [(column, [v]) for v in values]
        lookups += [(column, [a]) for a in ABSENT[column]]
        lookups.append((column, [ABSENT[column][0], values[0], ABSENT[column][1], values[-1]]))
    return lookups


def spark_truth(spark: SparkSession, path: Path, lookups: list[tuple[str, list[str]]]) -> list[int]:
    """Every lookup's count, in one aggregate over the files, with sparkbloom off."""

    def cast(column: str, text: str) -> str:
        return f"CAST('{text}' AS {SPARK_TYPES[column]})"

    sums = [
        f"CAST(sum(CASE WHEN {column} IN ({', '.join(cast(column, v) for v in values)}) THEN 1 ELSE 0 END) AS BIGINT)"
        for column, values in lookups
    ]
    spark.conf.set("spark.sparkbloom.enabled", "false")
    try:
        row = spark.read.parquet(str(path)).selectExpr(*sums).first()
    finally:
        spark.conf.unset("spark.sparkbloom.enabled")
    return [int(v or 0) for v in row]


def write_layout(spark: SparkSession, name: str, root: Path, exact_size: bool) -> Layout:
    path = root / name
    options = sparkbloom.write_options(FILTERED, exact_size=exact_size)
    rows = LARGE_ROWS if name.startswith("large") else SMALL_ROWS
    if name.startswith("path"):
        data(spark, rows, 2).write.options(**options).parquet(str(path))
    elif name.startswith("partitioned"):
        data(spark, rows, 2).write.options(**options).partitionBy("part").parquet(str(path))
    elif name.startswith("table"):
        # A catalog table (external, so nothing lands in the working directory's
        # warehouse): CREATE TABLE ... TBLPROPERTIES, then INSERT, then saveAsTable appends.
        table = f"ch_interop_{name}"
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        columns = ", ".join(f"{c} {SPARK_TYPES[c]}" for c, _ in COLUMNS if c != "s")
        spark.sql(
            f"CREATE TABLE {table} (id BIGINT, part INT, {columns}, s STRUCT<k: STRING>) USING parquet "
            f"LOCATION '{path}' TBLPROPERTIES (bloom_filter_columns '{','.join(FILTERED)}', "
            f"bloom_filter_exact_size '{str(exact_size).lower()}')"
        )
        data(spark, rows // 2, 1).createOrReplaceTempView("ch_interop_source")
        spark.sql(f"INSERT INTO {table} SELECT * FROM ch_interop_source")
        data(spark, rows, 1).where(f"id >= {rows // 2}").write.mode("append").options(**options).saveAsTable(table)
        spark.sql(f"DROP TABLE {table}")  # external: the files stay
    elif name.startswith("small_row_groups"):
        data(spark, rows, 1).write.options(**options).option("parquet.block.size", 16 * 1024).parquet(str(path))
    elif name.startswith("large"):
        data(spark, rows, 1).write.options(**options).option("parquet.block.size", 1 << 30).parquet(str(path))
    else:
        raise AssertionError(name)
    # The files hold each type the test is about (a division, say, would widen to double).
    schema = spark.read.parquet(str(path)).schema
    written = {c: schema[c].dataType.simpleString() for c in FILTERED if c != "s.k"}
    written["s.k"] = schema["s"].dataType["k"].dataType.simpleString()  # type: ignore[attr-defined]
    assert written == {c: t.lower() for c, t in SPARK_TYPES.items()}, written
    lookups = lookups_for(spark, path, rows)
    return Layout(name, path, rows, exact_size, lookups, spark_truth(spark, path, lookups))


LAYOUTS = ["path", "partitioned", "table", "small_row_groups", "large_row_groups"]
EXACT_LAYOUTS = ["small_row_groups_exact", "large_row_groups_exact"]


@pytest.fixture(scope="module")
def layouts(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Layout]]:
    root = tmp_path_factory.mktemp("clickhouse")
    # Timestamps are written and looked up as UTC text, whatever the machine's zone.
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        written = {name: write_layout(spark, name, root, exact_size=False) for name in LAYOUTS}
        written.update({name: write_layout(spark, name, root, exact_size=True) for name in EXACT_LAYOUTS})
        yield written
    finally:
        spark.conf.unset("spark.sql.session.timeZone")


@pytest.fixture(scope="module")
def clickhouse() -> chdb_session.Session:
    session = chdb_session.Session()
    _VERSION[:] = [session.query("SELECT version()", "TSVRaw").bytes().decode().strip()]
    print(f"\nClickHouse {clickhouse_version()} (chdb {chdb.__version__}), pyarrow {pyarrow.__version__}")
    return session


@pytest.mark.parametrize("name", LAYOUTS + EXACT_LAYOUTS)
def test_every_filtered_chunk_has_a_filter_of_the_promised_size(layouts: dict[str, Layout], name: str) -> None:
    layout = layouts[name]
    sizes = filter_sizes(layout.path)
    row_groups = sum(pq.ParquetFile(f).metadata.num_row_groups for f in parquet_files(layout.path))
    assert {c for c, _, _ in sizes} == set(FILTERED)
    assert len(sizes) == row_groups * len(FILTERED), "a filtered chunk has no filter"
    if name.startswith("small_row_groups"):
        assert row_groups >= 10
    for column, bitset, length in sizes:
        assert bitset >= 32 and bitset % 32 == 0, (column, bitset)
        assert filter_length_ok(length, bitset), (column, bitset, length)
        if not layout.exact_size:
            assert is_power_of_two(bitset), f"{name}: {column} has a {bitset}-byte filter, not a power of two"
    if layout.exact_size:
        odd = sorted({b for _, b, _ in sizes if not is_power_of_two(b)})
        assert odd, f"{name}: the exact-size opt-in wrote only powers of two"
    print(f"{name}: {len(sizes)} filters, bitset sizes {sorted({b for _, b, _ in sizes})[:12]}...")


# --- ClickHouse ---------------------------------------------------------------------------------


def _literal(clickhouse_type: str, text: str) -> str:
    return f"CAST('{text}' AS {clickhouse_type})"


_KNOWN_SETTINGS: set[str] = set()


def _query(clickhouse: chdb_session.Session, sql: str, settings: dict[str, object]) -> str:
    # Settings an older ClickHouse does not have (25.8 has no dictionary filter) are left out.
    if settings and not _KNOWN_SETTINGS:
        names = ", ".join(f"'{k}'" for k in {**CH_DEFAULT, **CH_BLOOM_ONLY})
        known = clickhouse.query(f"SELECT name FROM system.settings WHERE name IN ({names})", "TSVRaw")
        _KNOWN_SETTINGS.update(known.bytes().decode().split())
    settings = {k: v for k, v in settings.items() if k in _KNOWN_SETTINGS}
    rendered = " SETTINGS " + ", ".join(f"{k}={v}" for k, v in settings.items()) if settings else ""
    # TSVRaw: no escaping, so a type such as DateTime64(6, 'UTC') comes back as it is written
    return clickhouse.query(sql + rendered, "TSVRaw").bytes().decode().strip()


def _types(clickhouse: chdb_session.Session, source: str) -> dict[str, str]:
    described = _query(clickhouse, f"DESCRIBE TABLE {source} FORMAT JSONEachRow", CH_DEFAULT)
    types = {row["name"]: row["type"] for row in map(json.loads, described.splitlines())}
    inner = " ".join(types["s"].split())  # Tuple(k Nullable(String)), possibly on several lines
    types["s.k"] = inner[inner.index("k ") + 2 : -1]
    return types


def _where(column: str, values: list[str], types: dict[str, str]) -> str:
    expression = "tupleElement(s, 'k')" if column == "s.k" else column
    return f"{expression} IN ({', '.join(_literal(types[column], v) for v in values)})"


def _pages_read(clickhouse: chdb_session.Session) -> int:
    value = _query(clickhouse, "SELECT sum(value) FROM system.events WHERE event = 'ParquetReadPages'", {})
    return int(value or 0)


def _source(layout: Layout) -> str:
    files = "*/*.parquet" if layout.name.startswith("partitioned") else "*.parquet"
    return f"file('{layout.path}/{files}', Parquet)"


@pytest.mark.parametrize("name", LAYOUTS + EXACT_LAYOUTS)
def test_clickhouse_answers_every_lookup_exactly_with_bloom_filter_push_down(
    layouts: dict[str, Layout], clickhouse: chdb_session.Session, name: str
) -> None:
    layout = layouts[name]
    source = _source(layout)
    types = _types(clickhouse, source)
    assert _query(clickhouse, f"SELECT count() FROM {source}", CH_DEFAULT) == str(layout.rows)
    wrong = []
    for settings in (CH_DEFAULT, CH_BLOOM_ONLY):
        for (column, values), truth in zip(layout.lookups, layout.truth):
            got = int(
                _query(clickhouse, f"SELECT count() FROM {source} WHERE {_where(column, values, types)}", settings)
            )
            if got != truth:
                wrong.append((column, values, truth, got, settings is CH_BLOOM_ONLY))
    assert not wrong, f"ClickHouse {clickhouse_version()} on {name}: (column, values, truth, got, bloom only) {wrong}"
    assert sum(layout.truth) > 0 and 0 in layout.truth  # present and absent keys were both asked


@pytest.mark.parametrize("name", ["small_row_groups", "small_row_groups_exact"])
def test_clickhouse_skips_row_groups_by_our_filters(
    layouts: dict[str, Layout], clickhouse: chdb_session.Session, name: str
) -> None:
    """Absent keys over many row groups: with only the Bloom filter to decide, ClickHouse
    reads fewer pages with push-down on than off, so it really uses the filters."""
    layout = layouts[name]
    source = _source(layout)
    types = _types(clickhouse, source)
    used = []
    for column in FILTERED:
        pages = {}
        for label, settings in (("on", CH_BLOOM_ONLY), ("off", CH_NO_BLOOM)):
            before = _pages_read(clickhouse)
            for value in ABSENT[column]:
                assert (
                    _query(clickhouse, f"SELECT count() FROM {source} WHERE {_where(column, [value], types)}", settings)
                    == "0"
                )
            pages[label] = _pages_read(clickhouse) - before
        assert pages["off"] > 0, f"{column}: reading without filters read no page"
        if pages["on"] < pages["off"] / 2:
            used.append(column)
    print(f"ClickHouse {clickhouse_version()} skips row groups by the filters of: {', '.join(used)}")
    # The keys ClickHouse's push-down is known to take: integers and strings.
    assert {"c_int", "c_long", "c_string"} <= set(used), used


#: ClickHouse 25.8 (chdb 3.7.2), installed by dev/test beside the project's environment:
#: its Parquet reader, and so its Bloom filter reader, is Arrow C++'s.
ARROW_CLICKHOUSE = Path(__file__).resolve().parent.parent / ".cache" / "chdb-arrow"
ARROW_CLICKHOUSE_QUERIES = Path(__file__).resolve().parent / "clickhouse_queries.py"
#: Settings that ClickHouse 25.8 knows: only the Bloom filter decides.
CH25_BLOOM_ONLY = {
    "input_format_parquet_bloom_filter_push_down": 1,
    "input_format_parquet_filter_push_down": 0,
    "session_timezone": "'UTC'",
}


def _arrow_clickhouse(queries: list[str]) -> tuple[str, list[dict[str, object]]]:
    """Runs queries in ClickHouse 25.8 in a child process (two chdb versions cannot share one)."""
    assert (ARROW_CLICKHOUSE / "chdb").is_dir(), "dev/test installs chdb 3.7.2 into .cache/chdb-arrow"
    env = {**os.environ, "PYTHONPATH": str(ARROW_CLICKHOUSE)}
    done = subprocess.run(
        [sys.executable, str(ARROW_CLICKHOUSE_QUERIES)],
        input=json.dumps(queries),
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["version"], answer["results"]


def test_arrow_cpp_reader_rejects_exact_sizes_and_reads_ours(
    layouts: dict[str, Layout], clickhouse: chdb_session.Session
) -> None:
    """The strictest reader tested: ClickHouse up to 25.8 reads filters through Arrow C++
    (`BlockSplitBloomFilter::Init`), which refuses a bitset that is not a power of two and
    fails the whole query. Every default (power-of-two) layout is read and answers every
    integer and string lookup exactly; the exact-size opt-in is refused."""
    rendered = " SETTINGS " + ", ".join(f"{k}={v}" for k, v in CH25_BLOOM_ONLY.items())
    queries, expected = [], []
    for name in LAYOUTS + EXACT_LAYOUTS:
        layout = layouts[name]
        source = _source(layout)
        types = _types(clickhouse, source)
        for (column, values), truth in zip(layout.lookups, layout.truth):
            if column in ("c_int", "c_long", "c_string"):
                queries.append(f"SELECT count() FROM {source} WHERE {_where(column, values, types)}{rendered}")
                expected.append((name, layout.exact_size, truth))
    version, results = _arrow_clickhouse(queries)
    print(f"ClickHouse {version} (Arrow C++ Parquet reader): {len(queries)} lookups")
    assert tuple(int(p) for p in version.split(".")[:2]) < (25, 9), version
    wrong, refused = [], 0
    for (name, exact, truth), result, sql in zip(expected, results, queries):
        if exact:
            assert "Given length of bitset is illegal" in str(result.get("error")), (name, sql, result)
            refused += 1
        elif result.get("count") != truth:
            wrong.append((name, sql, truth, result))
    assert not wrong, wrong
    assert refused > 0 and refused < len(queries)


# --- pyarrow (Arrow C++) ------------------------------------------------------------------------


@pytest.mark.parametrize("name", LAYOUTS + EXACT_LAYOUTS)
def test_pyarrow_reads_the_files_and_filters_rows(layouts: dict[str, Layout], name: str) -> None:
    layout = layouts[name]
    files = parquet_files(layout.path)
    assert sum(pq.ParquetFile(f).metadata.num_rows for f in files) == layout.rows
    long_lookups = [
        (values, truth)
        for (column, values), truth in zip(layout.lookups, layout.truth)
        if column == "c_long" and len(values) == 1
    ]
    assert long_lookups
    for values, truth in long_lookups:
        got = sum(
            pq.read_table(f, columns=["c_long"], filters=[("c_long", "=", int(values[0]))]).num_rows for f in files
        )
        assert got == truth, (values, truth, got)
