# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Files sparkbloom writes are read by DuckDB, DataFusion and pyarrow, and their filters
agree with DuckDB's own Bloom filter probe and prune DataFusion's scans: for the default
power-of-two filters and for the exact-size opt-in (`bloom_filter_exact_size`), which shows
which engines read filters of any multiple of 32 bytes (ClickHouse: test_clickhouse_interop)."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import datafusion
import duckdb
import pyarrow
import pyarrow.parquet as pq
import pytest
from parquet_filters import filter_length_ok, filter_sizes, is_power_of_two
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ROWS = 20_000


@pytest.fixture(scope="module", params=[False, True], ids=["power_of_two", "exact_size"])
def written(request: pytest.FixtureRequest, spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    exact_size: bool = request.param
    path = tmp_path_factory.mktemp("interop") / "t"
    (
        spark.range(0, ROWS, 1, 2)
        .select(
            F.col("id").alias("user_id"),
            F.concat(F.lit("user-"), F.col("id")).alias("email"),
            F.col("id").cast("int").alias("small_id"),
            (F.col("id") / 7).cast("double").alias("score"),
            F.col("id").cast("decimal(12,2)").alias("amount"),
        )
        .write.option("bloom_filter_columns", "user_id,email,small_id,score,amount")
        .option("bloom_filter_exact_size", str(exact_size).lower())
        .option("parquet.block.size", 64 * 1024)
        .parquet(str(path))
    )
    print(f"\nDuckDB {duckdb.__version__}, DataFusion {datafusion.__version__}, pyarrow {pyarrow.__version__}")
    return path


def files(path: Path) -> list[str]:
    found = sorted(glob.glob(str(path / "*.parquet")))
    assert found
    return found


def duckdb_excluded(file: str, column: str, value: object) -> list[bool]:
    rows = duckdb.execute(
        "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?) ORDER BY row_group_id",
        [file, column, value],
    ).fetchall()
    return [bool(excluded) for _, excluded in rows]


FILTERED = {"user_id", "email", "small_id", "score", "amount"}


def test_filter_sizes_are_powers_of_two_unless_exact_sizes_are_asked_for(
    request: pytest.FixtureRequest, written: Path
) -> None:
    sizes = [bitset for _, bitset, _ in filter_sizes(written)]
    assert sizes and all(b >= 32 and b % 32 == 0 for b in sizes)
    if request.node.callspec.id == "exact_size":
        assert not all(map(is_power_of_two, sizes)), f"exact sizes asked for, only powers of two written: {sizes}"
    else:
        assert all(map(is_power_of_two, sizes)), f"not powers of two: {sorted(set(sizes))}"


def test_every_row_group_has_filters_duckdb_can_use(written: Path) -> None:
    """Each chunk of each filtered column has a filter in the footer (offset and length), and
    DuckDB's own probe uses it: in every row group, a value inside the chunk's min/max that
    is not there is excluded, and a value that is there is not."""
    row_groups = 0
    for file in files(written):
        parquet_file = pq.ParquetFile(file)
        metadata = parquet_file.metadata
        for rg in range(metadata.num_row_groups):
            row_group = metadata.row_group(rg)
            chunks = {row_group.column(i).path_in_schema: row_group.column(i) for i in range(row_group.num_columns)}
            assert set(chunks) == FILTERED
            for name, chunk in chunks.items():
                assert chunk.bloom_filter_offset is not None and chunk.bloom_filter_offset > 0, (file, rg, name)
                assert filter_length_ok(chunk.bloom_filter_length, 0), (file, rg, name)
            emails = sorted(parquet_file.read_row_group(rg, columns=["email"]).column(0).to_pylist())
            stats = chunks["email"].statistics
            present = emails[len(emails) // 2]
            absent = present + "\x00"  # sorts right after it: inside min/max, in no row
            assert stats.min < absent < stats.max and absent not in emails
            excluded = dict(
                duckdb.execute(
                    "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, 'email', ?)", [file, absent]
                ).fetchall()
            )
            assert excluded[rg] is True, f"{file} row group {rg}: DuckDB's probe did not exclude {absent!r}"
            kept = dict(
                duckdb.execute(
                    "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, 'email', ?)",
                    [file, present],
                ).fetchall()
            )
            assert kept[rg] is False, f"{file} row group {rg}: DuckDB's probe excluded {present!r}, which is there"
            row_groups += 1
    assert row_groups >= 4  # 64 KiB row groups over two files


@pytest.mark.parametrize(
    "column,present,absent",
    [
        ("user_id", [0, 1234, ROWS - 1], [ROWS + i for i in range(200)]),
        ("email", ["user-0", "user-4321"], [f"nobody-{i}" for i in range(200)]),
        ("small_id", [5, 999], [-(i + 1) for i in range(200)]),
    ],
)
def test_duckdb_probe_agrees(written: Path, column: str, present: list[object], absent: list[object]) -> None:
    excluded_absent = 0
    probes_absent = 0
    for file in files(written):
        parquet_file = pq.ParquetFile(file)
        groups = [
            set(parquet_file.read_row_group(rg, columns=[column]).column(0).to_pylist())
            for rg in range(parquet_file.metadata.num_row_groups)
        ]
        for value in present:
            excluded = duckdb_excluded(file, column, value)
            assert len(excluded) == len(groups)
            for rg, values in enumerate(groups):
                if value in values:
                    assert not excluded[rg], f"{column}={value!r} excluded from row group {rg} that holds it"
        for value in absent:
            excluded = duckdb_excluded(file, column, value)
            excluded_absent += sum(excluded)
            probes_absent += len(excluded)
    assert probes_absent > 0
    assert excluded_absent / probes_absent > 0.9


def test_pyarrow_and_datafusion_read_the_files(written: Path) -> None:
    table = pq.read_table(str(written))
    assert table.num_rows == ROWS
    ctx = datafusion.SessionContext()
    ctx.register_parquet("t", str(written))
    batches = ctx.sql("SELECT count(*) AS n, sum(user_id) AS s FROM t WHERE email = 'user-77'").collect()
    assert batches[0].column(0)[0].as_py() == 1
    assert batches[0].column(1)[0].as_py() == 77
    total = ctx.sql("SELECT count(*) FROM t").collect()[0].column(0)[0].as_py()
    assert total == ROWS


def test_datafusion_prunes_row_groups_by_the_filters(written: Path) -> None:
    """An absent email between the row groups' min and max: statistics keep row groups,
    the Bloom filters rule them out (DataFusion's scan metrics say how many)."""
    ctx = datafusion.SessionContext()
    ctx.register_parquet("t", str(written))
    plan = ctx.sql("EXPLAIN ANALYZE SELECT count(*) FROM t WHERE email = 'user-1000x'").collect()
    text = "\n".join(str(v) for batch in plan for v in batch.column(1).to_pylist())
    kept_by_stats = sum(
        int(m) for m in re.findall(r"row_groups_pruned_statistics=\d+ total \u2192 (\d+) matched", text)
    )
    bloom = re.findall(r"row_groups_pruned_bloom_filter=(\d+) total \u2192 (\d+) matched", text)
    assert kept_by_stats > 0, text
    assert bloom and sum(int(t) for t, _ in bloom) == kept_by_stats, text
    assert sum(int(m) for _, m in bloom) == 0, f"the filters of {written} did not rule out an absent email: {text}"
    count = ctx.sql("SELECT count(*) FROM t WHERE email = 'user-1000x'").collect()[0].column(0)[0].as_py()
    assert count == 0


def test_bad_option_raises_before_writing(spark: SparkSession, tmp_path: Path) -> None:
    target = tmp_path / "never"
    with pytest.raises(Exception, match="does not exist"):
        spark.range(3).write.option("bloom_filter_columns", "nope").parquet(str(target))
    assert not target.exists()
