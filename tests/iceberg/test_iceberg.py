# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Apache Iceberg tables: `bloom_filter_*` settings as Iceberg's own write properties, and
data files skipped while the plan is made, by Iceberg's field ids, through deletes, schema and
partition evolution, time travel and files imported without field ids.

Expected answers come from reading the whole table with sparkbloom off and filtering in
Python: no predicate reaches Iceberg, so neither its statistics nor its own Bloom filters
take part (``expected``). Pruning counts come from ``sparkbloom.last_pruning``.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from iceberg_session import iceberg_release
from index_follows import index_follows as wait_for_index
from pyspark.sql import DataFrame, Row, SparkSession
from pyspark.sql import functions as F

import sparkbloom

OFF = {"spark.sparkbloom.enabled": "false"}


def with_conf(spark: SparkSession, conf: dict[str, str], run: Callable[[], Any]) -> Any:
    saved = {k: spark.conf.get(k, None) for k in conf}
    try:
        for k, v in conf.items():
            spark.conf.set(k, v)
        return run()
    finally:
        for k, v in saved.items():
            spark.conf.unset(k) if v is None else spark.conf.set(k, v)


def expected(spark: SparkSession, table: str, keep: Callable[[Row], bool]) -> list[tuple]:
    """The rows of `table` that `keep` keeps, from a whole read of it without sparkbloom."""
    return sorted(tuple(r) for r in with_conf(spark, OFF, lambda: spark.table(table).collect()) if keep(r))


def lookup(spark: SparkSession, query: str) -> tuple[list[tuple], dict[str, int]]:
    got = sorted(tuple(r) for r in spark.sql(query).collect())
    return got, sparkbloom.last_pruning(spark)


def tasks_run(spark: SparkSession, run: Callable[[], Any]) -> int:
    """The tasks the Spark jobs of `run` ran."""
    sc = spark.sparkContext
    group = f"tasks-{random.randrange(10**9)}"
    sc.setJobGroup(group, group)
    try:
        run()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    tracker = sc.statusTracker()
    stages = [s for j in tracker.getJobIdsForGroup(group) for s in tracker.getJobInfo(j).stageIds]
    return sum(tracker.getStageInfo(s).numTasks for s in stages)


def properties(spark: SparkSession, table: str) -> dict[str, str]:
    return {r["key"]: r["value"] for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}


def filter_keys(spark: SparkSession, table: str) -> dict[str, str]:
    return {k: v for k, v in properties(spark, table).items() if "bloom" in k or "dict-encoding" in k}


def data_files(spark: SparkSession, table: str) -> list[str]:
    return [r[0] for r in spark.sql(f"SELECT file_path FROM {table}.files WHERE content = 0").collect()]


def filtered_columns(spark: SparkSession, files: list[str]) -> dict[str, set[int]]:
    """For each file column with a filter in every row group of `files`: the filters' sizes."""
    sizes: dict[str, set[int]] = {}
    report = [r for f in files for r in sparkbloom.inspect(spark, f).collect()]
    for column in {r["column"] for r in report}:
        mine = [r for r in report if r["column"] == column and r["num_values"] > 0]
        if mine and all(r["has_filter"] for r in mine):
            sizes[column] = {r["filter_bytes"] for r in mine}
    return sizes


def adaptive_release() -> bool:
    release = iceberg_release() or "0"
    return tuple(int(p) for p in release.split(".")[:2]) >= (1, 12)


def keys(spark: SparkSession, start: int, count: int, files: int) -> DataFrame:
    """Rows whose key is a hash: min/max statistics cannot prune it."""
    return spark.range(start, start + count, 1, files).select(
        F.col("id"), F.sha2(F.col("id").cast("string"), 256).alias("k"), (F.col("id") % 3).cast("int").alias("p")
    )


def key_of(i: int) -> str:
    import hashlib

    return hashlib.sha256(str(i).encode()).hexdigest()


@pytest.fixture
def table(spark: SparkSession) -> Iterator[str]:
    name = f"ice.db.t{random.randrange(10**9)}"
    yield name
    spark.sql(f"DROP TABLE IF EXISTS {name} PURGE")


# --- writing -----------------------------------------------------------------------------


def test_filter_settings_become_icebergs_own_properties(spark: SparkSession, table: str) -> None:
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING, s STRUCT<u: STRING>) USING iceberg "
        "TBLPROPERTIES ('bloom_filter_columns' = 'k, s.u', 'bloom_filter_fpp.k' = '0.001')"
    )
    props = properties(spark, table)
    assert not [k for k in props if k.startswith("bloom_filter_")], props
    assert props["write.parquet.bloom-filter-enabled.column.k"] == "true"
    assert props["write.parquet.bloom-filter-enabled.column.s.u"] == "true"
    assert float(props["write.parquet.bloom-filter-fpp.column.k"]) == 0.001
    assert float(props["write.parquet.bloom-filter-fpp.column.s.u"]) == 0.0001  # sparkbloom's default
    assert props.get("write.parquet.bloom-filter-adaptive-enabled") == ("true" if adaptive_release() else None)
    spark.range(0, 2000, 1, 2).selectExpr(
        "id", "sha2(cast(id as string), 256) AS k", "named_struct('u', cast(id AS string)) AS s"
    ).writeTo(table).append()
    sizes = filtered_columns(spark, data_files(spark, table))
    assert set(sizes) == {"k", "s.u"}, sizes
    if adaptive_release():
        # a thousand keys per file: the smallest of Iceberg's five sizes, not its 1 MiB ceiling
        assert max(sizes["k"]) <= 64 * 1024, sizes

    # a new column list replaces the old one, and every key of a column left out goes
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('bloom_filter_columns' = 'id')")
    assert set(filter_keys(spark, table)) >= {"write.parquet.bloom-filter-enabled.column.id"}
    assert not [k for k in filter_keys(spark, table) if k.endswith((".k", ".s.u"))], filter_keys(spark, table)
    # the fpp alone applies to the columns the table has filters on
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('bloom_filter_fpp' = '0.05')")
    assert float(filter_keys(spark, table)["write.parquet.bloom-filter-fpp.column.id"]) == 0.05
    # a rename keeps the filters coming, with their fpp
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN id TO ident")
    after = filter_keys(spark, table)
    assert after["write.parquet.bloom-filter-enabled.column.ident"] == "true", after
    assert float(after["write.parquet.bloom-filter-fpp.column.ident"]) == 0.05, after
    assert not [k for k in after if k.endswith(".id")], after
    before = set(data_files(spark, table))
    spark.range(5000, 6000, 1, 1).selectExpr(
        "id AS ident", "sha2(cast(id as string), 256) AS k", "named_struct('u', 'x') AS s"
    ).writeTo(table).append()
    new = [f for f in data_files(spark, table) if f not in before]
    assert set(filtered_columns(spark, new)) == {"ident"}
    spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('bloom_filter_columns')")
    assert filter_keys(spark, table) == {}


def test_bad_settings_fail_before_iceberg_commits_anything(spark: SparkSession, table: str) -> None:
    with pytest.raises(Exception, match="does not exist"):
        spark.sql(
            f"CREATE TABLE {table} (id BIGINT, k STRING) USING iceberg TBLPROPERTIES ('bloom_filter_columns' = 'nope')"
        )
    assert not spark.catalog.tableExists(table)
    with pytest.raises(Exception, match="between 0 and 1"):
        spark.sql(
            f"CREATE TABLE {table} USING iceberg TBLPROPERTIES ('bloom_filter_columns' = 'k', 'bloom_filter_fpp' = '2') "
            "AS SELECT 1L AS id, 'a' AS k"
        )
    assert not spark.catalog.tableExists(table)
    # CTAS through a DataFrame's write options
    keys(spark, 0, 100, 1).writeTo(table).using("iceberg").option("bloom_filter_columns", "k").create()
    assert filter_keys(spark, table)["write.parquet.bloom-filter-enabled.column.k"] == "true"
    # one write cannot ask for other filters than the table's
    snapshots = spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()[0]
    with pytest.raises(Exception, match="table properties name"):
        keys(spark, 100, 10, 1).writeTo(table).option("bloom_filter_columns", "id").append()
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()[0] == snapshots
    keys(spark, 100, 10, 1).writeTo(table).option("bloom_filter_columns", "k").append()  # the table's own: fine
    with pytest.raises(Exception, match="SET TBLPROPERTIES"):
        spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('bloom_filter_fpp')")


def index_follows(spark: SparkSession, table: str) -> dict[str, Any]:
    """The index once its background refresh after a write covers every current data file."""
    return wait_for_index(spark, table, len(data_files(spark, table)))


def test_index_follows_every_iceberg_commit(spark: SparkSession, table: str) -> None:
    """After an append, MERGE, UPDATE and DELETE (copy-on-write: files rewritten) and
    rewrite_data_files, the session's background refresh indexes the new files and drops the
    removed ones: a lookup then probes no file by itself."""
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING, p INT) USING iceberg TBLPROPERTIES "
        "('write.delete.mode' = 'copy-on-write', 'write.update.mode' = 'copy-on-write', "
        "'write.merge.mode' = 'copy-on-write')"
    )
    keys(spark, 0, 3000, 3).writeTo(table).append()
    sparkbloom.build_index(spark, table, ["k"])
    source = keys(spark, 2500, 1000, 1).withColumn("k", F.concat("k", F.lit("-merged")))
    source.createOrReplaceTempView("merge_source")
    writes: dict[str, Callable[[], Any]] = {
        "append": lambda: keys(spark, 3000, 500, 2).writeTo(table).append(),
        "insert": lambda: spark.sql(
            f"INSERT INTO {table} SELECT id, sha2(cast(id AS STRING), 256), cast(id % 3 AS INT) FROM range(3500, 3600)"
        ),
        "merge": lambda: spark.sql(
            f"MERGE INTO {table} t USING merge_source s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        ),
        "update": lambda: spark.sql(f"UPDATE {table} SET k = concat(k, '-updated') WHERE id % 7 = 0"),
        "delete": lambda: spark.sql(f"DELETE FROM {table} WHERE id % 11 = 0"),
        "rewrite": lambda: spark.sql(
            f"CALL ice.system.rewrite_data_files(table => '{table.removeprefix('ice.')}', "
            "options => map('rewrite-all', 'true'))"
        ),
    }
    for name, write in writes.items():
        before = set(data_files(spark, table))
        write()
        assert set(data_files(spark, table)) != before, name
        index_follows(spark, table)
        for key in (key_of(14), f"{key_of(2600)}-merged", f"{key_of(21)}-updated", "absent"):
            got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key}'")
            assert got == expected(spark, table, lambda r, key=key: r["k"] == key), (name, key)
            assert pruning["files_covered_by_index"] == pruning["files_total"] > 0, (name, key, pruning)
            if not got:
                assert pruning["files_skipped_by_index"] == pruning["files_total"], (name, key, pruning)
    # the rewrite removed every file the index held before it: their segments are gone
    described = sparkbloom.describe_index(spark, table)
    assert described["entries"] == len(data_files(spark, table)), described
    # with nothing new and nothing removed, a refresh commits nothing
    for _ in range(2):
        assert sparkbloom.build_index(spark, table)["files_indexed"] == 0
    assert sparkbloom.describe_index(spark, table)["segments"] == described["segments"]
    spark.catalog.dropTempView("merge_source")


# --- reading -----------------------------------------------------------------------------


def lookup_table(spark: SparkSession, table: str, files: int = 8, rows: int = 8000, format_version: int = 2) -> None:
    """A table whose DELETEs write delete files (merge-on-read): position deletes in format
    version 2, deletion vectors in version 3."""
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING, p INT) USING iceberg "
        "TBLPROPERTIES ('bloom_filter_columns' = 'k,id', 'write.delete.mode' = 'merge-on-read', "
        f"'format-version' = '{format_version}')"
    )
    keys(spark, 0, rows, files).writeTo(table).append()


def test_lookups_skip_data_files_before_any_task(spark: SparkSession, table: str) -> None:
    lookup_table(spark, table)
    files = len(data_files(spark, table))
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(17)}'")
    assert got == expected(spark, table, lambda r: r["k"] == key_of(17))
    assert len(got) == 1 and pruning["files_total"] == files and pruning["files_skipped"] == files - 1, pruning
    assert pruning["filter_bytes_read"] > 0, pruning
    # Iceberg never writes a path twice: the footers and filters read are kept for the next lookup
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(4000)}'")
    assert got == expected(spark, table, lambda r: r["k"] == key_of(4000)) and len(got) == 1
    assert pruning["files_skipped"] == files - 1 and pruning["filter_bytes_read"] == 0, pruning
    # an absent key: no file, no task
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = 'absent'")
    assert got == [] and pruning["files_skipped"] == files, pruning
    assert tasks_run(spark, lambda: spark.sql(f"SELECT * FROM {table} WHERE k = 'absent'").collect()) == 0
    assert tasks_run(spark, lambda: spark.sql(f"SELECT * FROM {table} WHERE k = '{key_of(3)}'").collect()) == 1
    wanted = [key_of(i) for i in (1, 2000, 7999)] + ["absent"]
    listed = ", ".join(f"'{k}'" for k in wanted)
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k IN ({listed})")
    assert got == expected(spark, table, lambda r: r["k"] in wanted) and len(got) == 3
    assert pruning["files_skipped"] >= files - 3, pruning
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k <=> '{key_of(5)}'")
    assert len(got) == 1 and pruning["files_skipped"] == files - 1, pruning
    plan = spark.sql(f"EXPLAIN SELECT * FROM {table} WHERE k = '{key_of(17)}'").first()[0]
    assert f"BloomPruning files {files} -> 1" in plan, plan
    # switched off: Iceberg plans the scan as it would without sparkbloom
    plan = with_conf(spark, OFF, lambda: spark.sql(f"EXPLAIN SELECT * FROM {table} WHERE k = 'x'").first()[0])
    assert "BloomPruning" not in plan


def test_row_level_operations_and_metadata_tables_are_planned_as_iceberg_plans_them(
    spark: SparkSession, table: str
) -> None:
    """The scans of DELETE, UPDATE and MERGE (copy-on-write and merge-on-read) are Iceberg's.
    Only the plain read of Iceberg's runtime group filter (which files a copy-on-write
    statement rewrites: those with a matching row) is pruned, and it finds the same files."""
    lookup_table(spark, table, files=4, rows=400)
    for statement in (
        f"DELETE FROM {table} WHERE k = '{key_of(3)}'",
        f"UPDATE {table} SET p = 9 WHERE k = '{key_of(4)}'",
        f"MERGE INTO {table} t USING (SELECT '{key_of(5)}' AS k) s ON t.k = s.k WHEN MATCHED THEN DELETE",
    ):
        lines = spark.sql(f"EXPLAIN {statement}").first()[0].splitlines()
        under_pruning = [b for a, b in zip(lines, lines[1:]) if "BloomPruning" in a]
        # at most the group filter's read, a subquery, and never the statement's own scan
        assert len(under_pruning) <= sum("Subquery" in line for line in lines), lines
        assert not [line for line in under_pruning if "CopyOnWrite" in line or "BatchScan" not in line], lines
        spark.sql(statement)
    got = expected(spark, table, lambda r: r["k"] in (key_of(3), key_of(4), key_of(5)))
    assert [(r[0], r[2]) for r in got] == [(4, 9)]
    plan = spark.sql(f"EXPLAIN SELECT * FROM {table}.files WHERE file_path = 'x'").first()[0]
    assert "BloomPruning" not in plan
    # the lookups after the deletes still find what is left, and nothing deleted
    for i in (3, 4, 5, 6):
        got, _ = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(i)}'")
        assert got == expected(spark, table, lambda r, i=i: r["k"] == key_of(i)), i


def test_columns_are_found_by_field_id_through_schema_evolution(spark: SparkSession, table: str) -> None:
    spark.sql(
        f"CREATE TABLE {table} (id INT, k STRING, f FLOAT, d DECIMAL(9, 2), t TIMESTAMP, day DATE) USING iceberg "
        "TBLPROPERTIES ('bloom_filter_columns' = 'id,k,f,d,t,day')"
    )
    # timestamps and days in a shuffled order, so that min/max statistics cannot prune them
    spark.range(0, 400, 1, 4).selectExpr(
        "cast(id AS int) AS id",
        "sha2(cast(id AS string), 256) AS k",
        "cast(id AS float) AS f",
        "cast(id / 4 AS decimal(9, 2)) AS d",
        "timestamp_seconds(1700000000 + (id * 7919) % 400 * 3600) AS t",
        "date_add(DATE '1500-01-01', cast((id * 7919) % 400 AS int) * 1000) AS day",
    ).writeTo(table).append()
    # rename k, then add a new k: old files hold the new k's name for the old column
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO old_k")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN k STRING")
    # promotions: int -> bigint, float -> double, decimal(9,2) -> decimal(18,2)
    spark.sql(f"ALTER TABLE {table} ALTER COLUMN id TYPE BIGINT")
    spark.sql(f"ALTER TABLE {table} ALTER COLUMN f TYPE DOUBLE")
    spark.sql(f"ALTER TABLE {table} ALTER COLUMN d TYPE DECIMAL(18, 2)")
    spark.range(400, 600, 1, 2).selectExpr(
        "id",
        "sha2(cast(id AS string), 256) AS old_k",
        "cast(id AS double) AS f",
        "cast(id / 4 AS decimal(18, 2)) AS d",
        "timestamp_seconds(1700000000 + id * 3600) AS t",
        "date_add(DATE '1500-01-01', cast(id AS int) * 1000) AS day",
        "sha2(cast(id - 400 AS string), 256) AS k",
    ).writeTo(table).append()
    cases: list[tuple[str, Callable[[Row], bool]]] = [
        (f"k = '{key_of(7)}'", lambda r: r["k"] == key_of(7)),  # only a new file's new k
        (f"old_k = '{key_of(7)}'", lambda r: r["old_k"] == key_of(7)),  # an old file, by id under its old name
        (f"old_k = '{key_of(450)}'", lambda r: r["old_k"] == key_of(450)),
        ("id = 12", lambda r: r["id"] == 12),
        ("id IN (12, 450, 100000000000)", lambda r: r["id"] in (12, 450)),
        ("f = 33.0", lambda r: r["f"] == 33.0),
        ("f = -0.0 OR f = 0.0", lambda r: r["f"] == 0.0),
        ("d = 3.25", lambda r: r["d"] is not None and float(r["d"]) == 3.25),
        ("d = 120.50", lambda r: r["d"] is not None and float(r["d"]) == 120.5),
        # (12 * 7919) % 400 = 228: only row 12 holds this time
        ("t = timestamp_seconds(1700820800)", lambda r: r["id"] == 12),
        # a day before 1582, which Iceberg stores and reads proleptic, never rebased
        ("day = date_add(DATE '1500-01-01', 5000)", lambda r: r["day"] == dt.date(1500, 1, 1) + dt.timedelta(5000)),
    ]
    for where, keep in cases:
        got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE {where}")
        assert got == expected(spark, table, keep), where
        assert got, where
        if where.startswith(("t =", "day =")):
            assert pruning["files_skipped"] >= 3, (where, pruning)  # in one of the four files min/max keep
    _, pruning = lookup(spark, f"SELECT * FROM {table} WHERE old_k = '{key_of(7)}'")
    assert pruning["files_skipped"] >= 4, pruning  # judged by id, though renamed


@pytest.mark.parametrize("format_version", [2, 3])
def test_partition_evolution_time_travel_and_deletes_keep_every_row(
    spark: SparkSession, table: str, format_version: int
) -> None:
    lookup_table(spark, table, files=4, rows=2000, format_version=format_version)
    first = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").first()[0]
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD p")
    keys(spark, 2000, 1000, 3).writeTo(table).append()
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD bucket(4, id)")
    keys(spark, 3000, 1000, 2).writeTo(table).append()
    spark.sql(f"DELETE FROM {table} WHERE id IN (10, 2010, 3010)")
    deletes = spark.sql(f"SELECT file_format FROM {table}.delete_files").collect()
    assert deletes and {r[0] for r in deletes} == ({"PUFFIN"} if format_version == 3 else {"PARQUET"}), deletes
    for i in (10, 11, 2010, 2011, 3010, 3011, 3999):
        got, _ = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(i)}'")
        assert got == expected(spark, table, lambda r, i=i: r["k"] == key_of(i)), i
        assert len(got) == (0 if i % 1000 == 10 else 1), i
    got, pruning = lookup(spark, f"SELECT * FROM {table} VERSION AS OF {first} WHERE k = '{key_of(10)}'")
    assert len(got) == 1 and pruning["files_skipped"] == 3, pruning  # the first snapshot's four files
    got, _ = lookup(spark, f"SELECT * FROM {table} VERSION AS OF {first} WHERE k = '{key_of(2500)}'")
    assert got == []
    spark.sql(f"ALTER TABLE {table} CREATE TAG first AS OF VERSION {first}")
    got, _ = lookup(spark, f"SELECT * FROM {table} VERSION AS OF 'first' WHERE k = '{key_of(10)}'")
    assert len(got) == 1


def commit_equality_deletes(spark: SparkSession, table: str, column: str, values: list[str]) -> None:
    """Commits one equality delete file that removes the rows whose `column` is one of
    `values` from every data file committed before it. Spark itself writes only position
    deletes and deletion vectors; this writes them as Flink and other engines do, through
    Iceberg's generic Parquet writer (in its Spark runtime jar)."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    iceberg = jvm.org.apache.iceberg
    loaded = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table)
    names = gateway.new_array(jvm.java.lang.String, 1)
    names[0] = column
    row_schema = loaded.schema().select(names)
    field_ids = gateway.new_array(jvm.int, 1)
    field_ids[0] = loaded.schema().findField(column).fieldId()
    factory = (
        getattr(iceberg.data, "GenericFileWriterFactory$Builder")(loaded)
        .deleteFileFormat(iceberg.FileFormat.PARQUET)
        .equalityFieldIds(field_ids)
        .equalityDeleteRowSchema(row_schema)
        .build()
    )
    out = loaded.io().newOutputFile(f"{loaded.location()}/data/equality-deletes-{random.randrange(10**9)}.parquet")
    writer = factory.newEqualityDeleteWriter(
        iceberg.encryption.EncryptedFiles.plainAsEncryptedOutput(out), loaded.spec(), None
    )
    for value in values:
        record = iceberg.data.GenericRecord.create(row_schema)
        record.setField(column, value)
        writer.write(record)
    writer.close()
    loaded.newRowDelta().addDeletes(writer.toDeleteFile()).commit()
    spark.sql(f"REFRESH TABLE {table}")


def test_equality_deletes_keep_deleted_rows_deleted_in_the_files_kept(spark: SparkSession, table: str) -> None:
    """A file is judged by its own values only; the task of a kept file keeps its equality
    deletes, which remove a key's old rows but not the rows written again after them."""
    lookup_table(spark, table, files=4, rows=2000)
    deleted = [key_of(i) for i in (7, 8, 1500)]
    commit_equality_deletes(spark, table, "k", deleted)
    keys(spark, 0, 10, 1).writeTo(table).append()  # ids 7 and 8 again, newer than the deletes
    files = len(data_files(spark, table))
    assert spark.sql(f"SELECT content FROM {table}.delete_files").collect() == [Row(content=2)]
    for i in (7, 8, 9, 1500, 1501):
        got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(i)}'")
        assert got == expected(spark, table, lambda r, i=i: r["k"] == key_of(i)), i
        assert len(got) == {1500: 0, 9: 2}.get(i, 1), (i, got)  # 9: in an old file and the new one
        assert pruning["files_total"] == files and pruning["files_skipped"] >= files - 2, pruning
    listed = ", ".join(f"'{k}'" for k in deleted + [key_of(1999)])
    got, _ = lookup(spark, f"SELECT id FROM {table} WHERE k IN ({listed})")
    assert got == [(7,), (8,), (1999,)]


def test_files_imported_without_field_ids_are_read(spark: SparkSession, table: str, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    with_conf(
        spark,
        {"spark.sparkbloom.enabled": "true"},
        lambda: keys(spark, 0, 400, 2).write.option("bloom_filter_columns", "k").parquet(str(plain)),
    )
    spark.sql(f"CREATE TABLE {table} (id BIGINT, k STRING, p INT) USING iceberg")
    spark.sql(
        f"CALL ice.system.add_files(table => '{table.removeprefix('ice.')}', source_table => '`parquet`.`{plain}`')"
    )
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(3)}'")
    assert got == expected(spark, table, lambda r: r["k"] == key_of(3)) and len(got) == 1
    # no field ids in the files: not judged (Iceberg resolves them through its name mapping)
    assert pruning["files_skipped"] == 0, pruning


def test_randomized_lookups_match_a_whole_read(spark: SparkSession, table: str) -> None:
    rng = random.Random(20261128)
    lookup_table(spark, table, files=6, rows=3000)
    spark.sql(f"DELETE FROM {table} WHERE id % 97 = 0")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO key")
    keys(spark, 3000, 600, 2).withColumnRenamed("k", "key").writeTo(table).append()
    for _ in range(12):
        ids = [rng.randrange(0, 4000) for _ in range(rng.choice([1, 1, 3, 40]))]
        wanted = [key_of(i) for i in ids]
        listed = ", ".join(f"'{k}'" for k in wanted)
        where = f"key IN ({listed})" if len(ids) > 1 else f"key = '{wanted[0]}'"
        got, _ = lookup(spark, f"SELECT * FROM {table} WHERE {where}")
        assert got == expected(spark, table, lambda r, wanted=wanted: r["key"] in wanted), where


def test_table_index_covers_the_current_snapshot_and_serves_every_snapshot(spark: SparkSession, table: str) -> None:
    """Files written without filters, indexed by field id: renames, deletes, later snapshots,
    time travel and tags each read the index's entries only for files they read."""
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING, p INT) USING iceberg "
        "TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')"
    )
    keys(spark, 0, 4000, 4).writeTo(table).append()
    first = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").first()[0]
    spark.sql(f"DELETE FROM {table} WHERE id % 10 = 0")  # position deletes: the files stay
    files = len(data_files(spark, table))
    assert filtered_columns(spark, data_files(spark, table)) == {}
    built = sparkbloom.build_index(spark, table, ["k"])
    assert built["files_indexed"] == files == 4, built
    assert sparkbloom.describe_index(spark, table)["files_covered"] == files
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = 'absent'")
    assert got == [] and pruning["files_skipped_by_index"] == pruning["files_total"] == files, pruning
    for i in (1234, 1230):  # 1230 was deleted: its file is read, the row stays deleted
        got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE k = '{key_of(i)}'")
        assert got == expected(spark, table, lambda r, i=i: r["k"] == key_of(i)) and len(got) == (i % 10 != 0)
        assert pruning["files_skipped_by_index"] == files - 1, pruning
    # time travel and a tag read the first snapshot's files, all indexed (before the rename:
    # Iceberg 1.11 cannot plan an older snapshot's scan with delete files after one)
    spark.sql(f"ALTER TABLE {table} CREATE TAG before_deletes AS OF VERSION {first}")
    for version in (first, "'before_deletes'"):
        got, pruning = lookup(spark, f"SELECT id FROM {table} VERSION AS OF {version} WHERE k = '{key_of(1230)}'")
        assert got == [(1230,)] and pruning["files_skipped_by_index"] == files - 1, pruning
    # a rename: the index finds the column by its field id
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO key")
    got, pruning = lookup(spark, f"SELECT * FROM {table} WHERE key = 'absent'")
    assert got == [] and pruning["files_skipped_by_index"] == files, pruning
    # a later snapshot's file is judged by its own filters (none: read) until a refresh
    keys(spark, 5000, 100, 1).withColumnRenamed("k", "key").writeTo(table).append()
    got, pruning = lookup(spark, f"SELECT id FROM {table} WHERE key = '{key_of(5050)}'")
    assert got == [(5050,)] and pruning["files_covered_by_index"] == files, pruning
    # the refresh reads only the new file, under the column's name now
    with pytest.raises(Exception, match="no longer the table's"):
        sparkbloom.build_index(spark, table)
    assert sparkbloom.build_index(spark, table, ["key"])["files_indexed"] == files + 1  # other columns: rebuilt
    assert sparkbloom.build_index(spark, table)["files_indexed"] == 0
    # now that the index's column is the table's, the session's refresh after a write indexes it
    keys(spark, 6000, 100, 1).withColumnRenamed("k", "key").writeTo(table).append()
    assert index_follows(spark, table)["files_covered"] == files + 2
    got, pruning = lookup(spark, f"SELECT id FROM {table} WHERE key IN ('{key_of(6001)}', 'absent')")
    assert got == [(6001,)] and pruning["files_skipped_by_index"] == files + 1, pruning
    # the table's directory is not a Parquet directory: every snapshot's files are in it
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()[1]
    with pytest.raises(Exception, match="Iceberg table's directory"):
        sparkbloom.build_index(spark, location, ["key"])
    # Iceberg's orphan file removal leaves the index's hidden directory alone, however old
    index_files = list(Path(location.removeprefix("file:"), "_sparkbloom_index").iterdir())
    assert index_files
    for f in index_files:
        os.utime(f, (0, 0))
    spark.sql(
        f"CALL ice.system.remove_orphan_files(table => '{table.removeprefix('ice.')}', "
        "older_than => TIMESTAMP '2000-01-01 00:00:00')"
    )
    assert all(f.exists() for f in index_files)
    assert sparkbloom.describe_index(spark, table)["files_covered"] == files + 2
    assert sparkbloom.drop_index(spark, table) is True


def test_a_wrong_filter_in_an_iceberg_file_is_not_trusted_and_said(spark: SparkSession, table: str) -> None:
    """An Iceberg file whose filter loses a value its dictionary holds (the bits cleared in
    place, tests/tamper.py) is not judged by it, and the report says why. Iceberg's own task
    reader still applies the file's filter and loses the rows, with or without sparkbloom: the
    answer is Iceberg's own, and the report is how a user learns the filter is wrong."""
    import tamper

    # Iceberg's own filter (sparkbloom's table property turns dictionaries off for its columns),
    # over dictionary-encoded pages of 200 rows until the dictionary reaches 1 KiB (its first
    # ~90 keys), then plain ones: parquet-java writes no filter for a chunk whose every page is
    # dictionary-encoded
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING) USING iceberg TBLPROPERTIES "
        "('write.parquet.bloom-filter-enabled.column.k' = 'true', "
        "'write.parquet.dict-size-bytes' = '1024', 'write.parquet.page-row-limit' = '200')"
    )
    spark.range(0, 3000, 1, 1).select(
        "id", F.concat(F.lit("key-"), (F.col("id") % 300).cast("string")).alias("k")
    ).sortWithinPartitions("k").writeTo(table).append()
    (file,) = data_files(spark, table)
    tamper.clear_value(file.removeprefix("file:"), "k", "key-0")
    query = f"SELECT id FROM {table} WHERE k = 'key-0'"
    spark.sql("CLEAR CACHE")  # a runtime that has not checked this writer yet
    try:
        got, report = lookup(spark, query)
    finally:
        spark.sql("CLEAR CACHE")
    assert report["files_by_decision"] == {"filter_fails_dictionary": 1}, report
    assert got == with_conf(spark, OFF, lambda: sorted(tuple(r) for r in spark.sql(query).collect()))


def test_footers_are_read_through_the_tables_own_file_io(spark: SparkSession) -> None:
    """Files that only the table's FileIO reads (Iceberg's in-memory IO; Hadoop has no file
    system for their scheme, as it has no credentials for a catalog that vends them) are
    judged through that IO, at planning and for join keys."""
    name = f"memory.db.t{random.randrange(10**9)}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS memory.db")
    try:
        lookup_table(spark, name, files=4, rows=2000)
        files = data_files(spark, name)
        assert len(files) == 4 and all(f.startswith("mem:") for f in files), files
        got, pruning = lookup(spark, f"SELECT * FROM {name} WHERE k = '{key_of(7)}'")
        assert got == expected(spark, name, lambda r: r["k"] == key_of(7)) and len(got) == 1
        assert pruning["files_skipped"] == 3, pruning
        spark.sql(f"CREATE OR REPLACE TEMP VIEW dim_memory AS SELECT * FROM VALUES ('{key_of(1999)}') AS v(k)")
        got, pruning = lookup(spark, f"SELECT t.id FROM {name} t JOIN dim_memory d ON t.k = d.k")
        assert got == [(1999,)] and pruning["join_keys"] == 1 and pruning["files_skipped"] == 3, pruning
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name} PURGE")


def test_filters_iceberg_writes_are_read_by_other_engines(spark: SparkSession, table: str) -> None:
    """Iceberg's writer, given sparkbloom's settings, writes filters DuckDB and DataFusion
    read: an absent key is ruled out in every row group, a present one nowhere it is."""
    import datafusion
    import duckdb

    spark.sql(f"CREATE TABLE {table} (id BIGINT, k STRING) USING iceberg TBLPROPERTIES ('bloom_filter_columns' = 'k')")
    keys(spark, 0, 3000, 3).select("id", "k").writeTo(table).append()
    files = data_files(spark, table)
    assert len(files) == 3
    for file in files:
        present = spark.read.parquet(file).first()["k"]
        for value, excluded in ((present, False), ("absent", True)):
            rows = duckdb.execute(
                "SELECT bloom_filter_excludes FROM parquet_bloom_probe(?, 'k', ?)", [file, value]
            ).fetchall()
            assert rows and all(bool(r[0]) == excluded for r in rows), (file, value, rows)
    ctx = datafusion.SessionContext()
    ctx.register_parquet("t", files[0])
    plan = ctx.sql("EXPLAIN ANALYZE SELECT count(*) FROM t WHERE k = 'absent'").collect()
    text = "\n".join(str(v) for batch in plan for v in batch.column(1).to_pylist())
    bloom = re.findall(r"row_groups_pruned_bloom_filter=(\d+) total \u2192 (\d+) matched", text)
    assert bloom and sum(int(t) for t, _ in bloom) > 0 and sum(int(m) for _, m in bloom) == 0, text


def splits_read(spark: SparkSession) -> int:
    """The data file splits Iceberg's readers read in the session's last SQL execution that
    read an Iceberg table (Iceberg's own task metric, summed by Spark)."""
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    for e in reversed(range(executions.size())):
        execution = executions.apply(e)
        metrics = [execution.metrics().apply(i) for i in range(execution.metrics().size())]
        found = [m for m in metrics if m.name() == "number of file splits read"]
        if found:
            values = store.executionMetrics(execution.executionId())
            # a node is listed once per plan AQE showed; one that never ran has no value
            read = [values.get(i) for i in {m.accumulatorId() for m in found}]
            return sum(int(str(v.get()).replace(",", "")) for v in read if v.isDefined())
    raise AssertionError("no execution read an Iceberg table")


def test_join_keys_leave_files_out_of_the_task_groups_they_read(spark: SparkSession, table: str) -> None:
    """Iceberg combines small files into one task: the files of a task that cannot hold a
    key are left out of it, the others read with their deletes."""
    lookup_table(spark, table, files=8, rows=8000)
    spark.sql(f"DELETE FROM {table} WHERE id = 5001")
    wanted = [key_of(i) for i in (5, 5001, 7100)]
    rows = ", ".join(f"('{k}')" for k in wanted)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW dim_narrow AS SELECT * FROM VALUES {rows} AS v(k)")
    query = f"SELECT t.id FROM {table} t JOIN dim_narrow d ON t.k = d.k"
    got = lookup(spark, query)
    splits = splits_read(spark)
    assert got[0] == [(5,), (7100,)] == sorted((r[0],) for r in expected(spark, table, lambda r: r["k"] in wanted)), got
    assert got[1]["files_skipped"] >= 5 and splits == 8 - got[1]["files_skipped"], (got[1], splits)
    with_conf(spark, OFF, lambda: spark.sql(query).collect())
    assert splits_read(spark) == 8


def test_join_keys_prune_iceberg_files_and_each_scan_keeps_its_own_keys(spark: SparkSession, table: str) -> None:
    lookup_table(spark, table, files=8, rows=8000)
    # one file per task, so that a task of files without a key can be left out
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('read.split.open-file-cost' = '1073741824')")
    first, second = [key_of(5), key_of(7100)], [key_of(3000)]
    for name, values in (("dim_first", first), ("dim_second", second)):
        rows = ", ".join(f"('{k}')" for k in values)
        spark.sql(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM VALUES {rows} AS v(k)")
    for query in (
        f"SELECT t.* FROM {table} t JOIN dim_first d ON t.k = d.k",
        f"SELECT * FROM {table} WHERE k IN (SELECT k FROM dim_first)",
    ):
        got, pruning = lookup(spark, query)
        assert got == expected(spark, table, lambda r: r["k"] in first) and len(got) == 2, query
        assert pruning["join_keys"] == 2 and pruning["files_skipped"] >= 6, (query, pruning)
        plan = spark.sql(f"EXPLAIN {query}").first()[0]
        assert "join keys" in plan, plan
    # the same table scanned twice in one plan for different keys: each scan keeps its own
    union = (
        f"SELECT t.id FROM {table} t JOIN dim_first d ON t.k = d.k "
        f"UNION ALL SELECT t.id FROM {table} t JOIN dim_second d ON t.k = d.k"
    )
    got = sorted(tuple(r) for r in spark.sql(union).collect())
    assert got == [(5,), (3000,), (7100,)]
    # switched off: the keys are not probed, the answer is the same
    got = with_conf(spark, {"spark.sparkbloom.join.enabled": "false"}, lambda: spark.sql(union).collect())
    assert sorted(tuple(r) for r in got) == [(5,), (3000,), (7100,)]


@contextmanager
def iceberg_member_named(spark: SparkSession, use: str, name: str) -> Iterator[None]:
    """Stands for an Iceberg release that names the member sparkbloom reaches as `use`
    otherwise (a system property sparkbloom reads on every call)."""
    system = spark.sparkContext._jvm.java.lang.System
    system.setProperty(f"sparkbloom.test.iceberg.{use}", name)
    try:
        yield
    finally:
        system.clearProperty(f"sparkbloom.test.iceberg.{use}")


@pytest.mark.parametrize("member", ["taskGroups", "resetTasks", "tasks"])
def test_a_change_to_icebergs_scan_that_does_not_take_reads_every_file_and_says_so(
    spark: SparkSession, table: str, member: str
) -> None:
    """After each change to one of Iceberg's objects, sparkbloom reads back that it took:
    where it cannot, the scan reads what Iceberg planned and no pruning is reported. So too
    where a member it reaches is missing: the task list (`tasks`), its reset (`resetTasks`),
    or the task groups read back after the reset (`taskGroups`: Iceberg's list is put back)."""
    lookup_table(spark, table, files=8, rows=8000)
    query = f"SELECT * FROM {table} WHERE k = '{key_of(17)}'"
    with iceberg_member_named(spark, member, "absent"):
        got, pruning = lookup(spark, query)
        splits = splits_read(spark)
        plan = spark.sql(f"EXPLAIN {query}").first()[0]
        absent_tasks = tasks_run(spark, lambda: spark.sql(f"SELECT * FROM {table} WHERE k = 'absent'").collect())
    assert got == expected(spark, table, lambda r: r["k"] == key_of(17)) and len(got) == 1, got
    assert pruning["files_skipped"] == 0 and splits == 8, (pruning, splits)
    assert "BloomPruning" not in plan, plan
    assert absent_tasks >= 1
    # and once it can, the same query prunes again
    got, pruning = lookup(spark, query)
    assert len(got) == 1 and pruning["files_skipped"] == 7 and splits_read(spark) == 1, pruning


def test_a_narrowed_input_partition_that_would_not_read_its_files_is_not_used(spark: SparkSession, table: str) -> None:
    """A join's narrowed copy of Iceberg's input partition is checked on the driver as an
    executor would receive it; one that would read other files leaves every partition as
    Iceberg planned it, and no file is reported skipped."""
    lookup_table(spark, table, files=8, rows=8000)
    wanted = [key_of(i) for i in (5, 7100)]
    rows = ", ".join(f"('{k}')" for k in wanted)
    spark.sql(f"CREATE OR REPLACE TEMP VIEW dim_copy AS SELECT * FROM VALUES {rows} AS v(k)")
    query = f"SELECT t.id FROM {table} t JOIN dim_copy d ON t.k = d.k"
    # the copy keeps the whole task group: it would read every file of the partition
    with iceberg_member_named(spark, "taskGroupField", "absent"):
        got, pruning = lookup(spark, query)
        splits = splits_read(spark)
    assert got == [(5,), (7100,)], got
    assert pruning["files_skipped"] == 0 and splits == 8, (pruning, splits)
    # the join's own member missing: the same
    with iceberg_member_named(spark, "taskGroup", "absent"):
        got, pruning = lookup(spark, query)
        splits = splits_read(spark)
    assert got == [(5,), (7100,)] and pruning["files_skipped"] == 0 and splits == 8, (pruning, splits)
    got, pruning = lookup(spark, query)
    assert got == [(5,), (7100,)] and pruning["files_skipped"] >= 6 and splits_read(spark) <= 2, pruning
