# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Delta Lake tables: filters in the files of every kind of Delta write, pruning of Delta
scans after Delta's own skipping, and the answers Delta gives without sparkbloom, with
deletion vectors, column mapping, row tracking, time travel and change data feed.

Expected answers come from the same query with sparkbloom off and Parquet filter pushdown
off (``answer_without_pruning``); pruning counts come from ``sparkbloom.last_pruning``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from delta.tables import DeltaTable
from delta_session import DELTA_EXTENSION, delta_jars, run_child
from index_follows import index_follows as wait_for_index
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom

OFF = {"spark.sparkbloom.enabled": "false", "spark.sql.parquet.filterPushdown": "false"}


def rows(spark: SparkSession, query: str, conf: dict[str, str] | None = None) -> list[tuple]:
    saved = {k: spark.conf.get(k, None) for k in (conf or {})}
    try:
        for k, v in (conf or {}).items():
            spark.conf.set(k, v)
        return sorted(tuple(r) for r in spark.sql(query).collect())
    finally:
        for k, v in saved.items():
            spark.conf.unset(k) if v is None else spark.conf.set(k, v)


def answer_without_pruning(spark: SparkSession, query: str) -> list[tuple]:
    return rows(spark, query, OFF)


def checked(spark: SparkSession, query: str) -> tuple[list[tuple], dict[str, int]]:
    """The query's rows with sparkbloom on, equal to the rows without pruning, and the pruning."""
    got = rows(spark, query)
    pruning = sparkbloom.last_pruning(spark)
    assert got == answer_without_pruning(spark, query), query
    return got, pruning


def keys_frame(spark: SparkSession, start: int, count: int, files: int) -> DataFrame:
    """Rows whose key is a UUID-like string: min/max statistics cannot prune it."""
    return spark.range(start, start + count, 1, files).select(
        F.col("id"), F.sha2(F.col("id").cast("string"), 256).alias("k"), (F.col("id") % 3).alias("p")
    )


def key_of(spark: SparkSession, i: int) -> str:
    return spark.sql(f"SELECT sha2('{i}', 256)").first()[0]


def current_files(spark: SparkSession, table: str) -> set[str]:
    return {Path(f).name for f in spark.table(table).inputFiles()}


def assert_every_file_has_filters(spark: SparkSession, table: str, column: str) -> None:
    report = sparkbloom.inspect(spark, table).where(F.col("column") == column).collect()
    files = {Path(r["file"]).name for r in report}
    assert files == current_files(spark, table)
    missing = [(r["file"], r["row_group"]) for r in report if not r["has_filter"] and r["num_values"] > 0]
    assert not missing, missing
    # parquet-java's filters are powers of two, which every reader accepts
    assert all(r["filter_bytes"] & (r["filter_bytes"] - 1) == 0 for r in report if r["has_filter"])


def version(spark: SparkSession, table: str) -> int:
    return spark.sql(f"DESCRIBE HISTORY {table}").agg(F.max("version")).first()[0]


# --- writing -----------------------------------------------------------------------------


def test_every_write_form_puts_filters_in_every_file(spark: SparkSession) -> None:
    spark.sql(
        "CREATE TABLE writes (id BIGINT, k STRING, p BIGINT) USING delta PARTITIONED BY (p) "
        "TBLPROPERTIES ('bloom_filter_columns' = 'k', 'delta.enableDeletionVectors' = 'false')"
    )
    spark.sql("INSERT INTO writes SELECT id, sha2(cast(id AS STRING), 256), id % 3 FROM range(0, 3000)")
    assert_every_file_has_filters(spark, "writes", "k")
    keys_frame(spark, 3000, 3000, 2).write.format("delta").mode("append").saveAsTable("writes")
    source = keys_frame(spark, 5000, 2000, 2).withColumn("k", F.concat("k", F.lit("-merged")))
    (
        DeltaTable.forName(spark, "writes")
        .alias("t")
        .merge(source.alias("s"), "t.id = s.id")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )
    spark.sql("UPDATE writes SET k = concat(k, '-updated') WHERE id % 7 = 0")  # rewrites: no deletion vectors
    spark.sql("DELETE FROM writes WHERE id % 11 = 0")
    assert_every_file_has_filters(spark, "writes", "k")
    before = current_files(spark, "writes")
    spark.sql("OPTIMIZE writes")
    assert current_files(spark, "writes").isdisjoint(before)
    assert_every_file_has_filters(spark, "writes", "k")
    got, pruning = checked(spark, f"SELECT id FROM writes WHERE k = '{key_of(spark, 14)}-updated'")
    assert got == [(14,)] and pruning["files_total"] == 3 and pruning["files_skipped"] == 2


def test_ctas_and_save_as_table_and_a_path_write_create_tables_with_filters(
    spark: SparkSession, table_dir: Path
) -> None:
    spark.sql(
        "CREATE TABLE ctas USING delta TBLPROPERTIES ('bloom_filter_columns' = 'k') "
        "AS SELECT id, sha2(cast(id AS STRING), 256) AS k FROM range(0, 2000)"
    )
    assert_every_file_has_filters(spark, "ctas", "k")
    keys_frame(spark, 0, 2000, 2).write.format("delta").option("bloom_filter_columns", "k").saveAsTable("saved")
    assert_every_file_has_filters(spark, "saved", "k")
    assert dict(spark.sql("SHOW TBLPROPERTIES saved").collect())["bloom_filter_columns"] == "k"
    # a path write under column mapping: the files name the column by its physical name
    (
        keys_frame(spark, 0, 2000, 2)
        .write.format("delta")
        .partitionBy("p")
        .option("bloom_filter_columns", "k")
        .option("bloom_filter_fpp", "0.001")
        .option("delta.columnMapping.mode", "name")
        .save(str(table_dir))
    )
    table = f"delta.`{table_dir}`"
    assert_every_file_has_filters(spark, table, "k")
    physical = {
        r["column"]
        for r in spark.read.parquet(*spark.table(table).inputFiles()[:1]).schema.jsonValue()["fields"]
        for r in [{"column": r["name"]}]
    }
    assert "k" not in physical  # the file says col-<uuid>; inspect showed the table's name
    keys_frame(spark, 2000, 1000, 1).write.format("delta").mode("append").save(str(table_dir))
    assert_every_file_has_filters(spark, table, "k")
    _, pruning = checked(spark, f"SELECT id FROM {table} WHERE k = '{key_of(spark, 2500)}'")
    assert pruning["files_skipped"] >= 1


def file_columns(spark: SparkSession, table: str) -> set[str]:
    """The column names one of the table's files holds (physical names under column mapping)."""
    return set(spark.read.parquet(spark.table(table).inputFiles()[0]).columns)


def test_column_mapped_tables_get_filters_in_one_statement(spark: SparkSession, table_dir: Path) -> None:
    def created_then_inserted(name: str, mapping: str) -> None:
        """The filters of a CREATE are on the physical name Delta gave `k`, in the INSERT's files."""
        spark.sql(
            f"CREATE TABLE {name} (id BIGINT, k STRING) USING delta "
            f"TBLPROPERTIES ({mapping}, 'bloom_filter_columns' = 'k')"
        )
        spark.sql(f"INSERT INTO {name} SELECT id, sha2(cast(id AS STRING), 256) FROM range(0, 3000)")
        assert "k" not in file_columns(spark, name)
        assert_every_file_has_filters(spark, name, "k")

    created_then_inserted("mapped", "'delta.columnMapping.mode' = 'name'")
    assert dict(spark.sql("SHOW TBLPROPERTIES mapped").collect())["bloom_filter_columns"] == "k"
    _, pruning = checked(spark, f"SELECT id FROM mapped WHERE k = '{key_of(spark, 42)}'")
    assert pruning["row_groups_skipped"] >= 1
    # CTAS, partitioned, and a path table; the rows arrive with filters
    spark.sql(
        "CREATE TABLE mapped_ctas USING delta PARTITIONED BY (p) "
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'id', 'bloom_filter_columns' = 'k', 'bloom_filter_fpp' = '0.001') "
        "AS SELECT id, sha2(cast(id AS STRING), 256) AS k, id % 3 AS p FROM range(0, 3000, 1, 3)"
    )
    assert_every_file_has_filters(spark, "mapped_ctas", "k")
    assert spark.table("mapped_ctas").count() == 3000
    path_table = f"delta.`{table_dir}`"
    spark.sql(
        f"CREATE TABLE {path_table} USING delta TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
        "'bloom_filter_columns' = 'k') AS SELECT id, sha2(cast(id AS STRING), 256) AS k FROM range(0, 1000)"
    )
    assert "k" not in file_columns(spark, path_table)
    assert_every_file_has_filters(spark, path_table, "k")
    # a DataFrame's saveAsTable with column mapping as a delta.* write option
    keys_frame(spark, 0, 2000, 2).write.format("delta").option("delta.columnMapping.mode", "name").option(
        "bloom_filter_columns", "k"
    ).saveAsTable("mapped_saved")
    assert "k" not in file_columns(spark, "mapped_saved")
    assert_every_file_has_filters(spark, "mapped_saved", "k")
    # IcebergCompatV2 turns column mapping on by itself
    created_then_inserted("mapped_compat", "'delta.enableIcebergCompatV2' = 'true'")
    # IF NOT EXISTS on an existing table changes nothing
    before = version(spark, "mapped")
    spark.sql(
        "CREATE TABLE IF NOT EXISTS mapped (id BIGINT, k STRING) USING delta "
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'bloom_filter_columns' = 'id')"
    )
    assert version(spark, "mapped") == before
    assert dict(spark.sql("SHOW TBLPROPERTIES mapped").collect())["bloom_filter_columns"] == "k"


def test_column_mapped_create_that_fails_leaves_no_table(spark: SparkSession, table_dir: Path) -> None:
    failing = (
        "SELECT id, CASE WHEN id = 777 THEN raise_error('no row 777') ELSE sha2(cast(id AS STRING), 256) END AS k "
        "FROM range(0, 1000)"
    )
    with pytest.raises(Exception, match="no row 777"):
        spark.sql(
            "CREATE TABLE mapped_failed USING delta TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
            f"'bloom_filter_columns' = 'k') AS {failing}"
        )
    assert not spark.catalog.tableExists("mapped_failed")
    with pytest.raises(Exception, match="no row 777"):
        spark.sql(
            f"CREATE TABLE delta.`{table_dir}` USING delta TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
            f"'bloom_filter_columns' = 'k') AS {failing}"
        )
    assert not table_dir.exists()
    # an empty directory given as LOCATION is left as it was
    location = table_dir.parent / "empty-location"
    location.mkdir()
    with pytest.raises(Exception, match="no row 777"):
        spark.sql(
            f"CREATE TABLE mapped_located USING delta LOCATION '{location}' TBLPROPERTIES "
            f"('delta.columnMapping.mode' = 'name', 'bloom_filter_columns' = 'k') AS {failing}"
        )
    assert location.exists() and not (location / "_delta_log").exists()
    assert not spark.catalog.tableExists("mapped_located")
    # settings that cannot work fail before Delta commits anything
    spark.conf.set("spark.databricks.delta.write.txnAppId", "job")
    spark.conf.set("spark.databricks.delta.write.txnVersion", "1")
    try:
        with pytest.raises(Exception, match=r"\[sparkbloom\] an idempotent Delta write"):
            spark.sql(
                "CREATE TABLE mapped_txn USING delta TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
                "'bloom_filter_columns' = 'k') AS SELECT id, cast(id AS STRING) AS k FROM range(10)"
            )
    finally:
        spark.conf.unset("spark.databricks.delta.write.txnAppId")
        spark.conf.unset("spark.databricks.delta.write.txnVersion")
    assert not spark.catalog.tableExists("mapped_txn")
    with pytest.raises(Exception, match=r"\[sparkbloom\] column 'nope' in bloom_filter_columns does not exist"):
        spark.sql(
            "CREATE TABLE mapped_bad (id BIGINT, k STRING) USING delta "
            "TBLPROPERTIES ('bloom_filter_columns' = 'nope', 'delta.columnMapping.mode' = 'name')"
        )
    assert not spark.catalog.tableExists("mapped_bad")
    spark.sql("CREATE TABLE mapped_replaced (id BIGINT, k STRING) USING delta")
    before = version(spark, "mapped_replaced")
    with pytest.raises(Exception, match=r"\[sparkbloom\] .*REPLACE gives new ones"):
        spark.sql(
            "REPLACE TABLE mapped_replaced (id BIGINT, k STRING) USING delta "
            "TBLPROPERTIES ('bloom_filter_columns' = 'k', 'delta.columnMapping.mode' = 'name')"
        )
    assert version(spark, "mapped_replaced") == before


def test_bad_settings_fail_before_delta_commits_anything(spark: SparkSession, table_dir: Path) -> None:
    with pytest.raises(Exception, match=r"\[sparkbloom\] column 'nope' in bloom_filter_columns does not exist"):
        spark.sql("CREATE TABLE bad (id BIGINT, k STRING) USING delta TBLPROPERTIES ('bloom_filter_columns' = 'nope')")
    assert not spark.catalog.tableExists("bad")
    with pytest.raises(Exception, match=r"\[sparkbloom\] option 'bloom_filter_fpp' must be a number"):
        keys_frame(spark, 0, 10, 1).write.format("delta").option("bloom_filter_columns", "k").option(
            "bloom_filter_fpp", "2"
        ).save(str(table_dir))
    assert not table_dir.exists()
    with pytest.raises(Exception, match=r"\[sparkbloom\] column 'p' is a partition column"):
        keys_frame(spark, 0, 10, 1).write.format("delta").partitionBy("p").option("bloom_filter_columns", "p").save(
            str(table_dir)
        )
    assert not table_dir.exists()
    with pytest.raises(Exception, match=r"(?i)\[sparkbloom\] an idempotent Delta write \(txnAppId, txnVersion\)"):
        keys_frame(spark, 0, 10, 1).write.format("delta").option("bloom_filter_columns", "k").option(
            "txnAppId", "job"
        ).option("txnVersion", "1").save(str(table_dir))
    assert not table_dir.exists()
    keys_frame(spark, 0, 10, 1).write.format("delta").option("bloom_filter_columns", "k").save(str(table_dir))
    table = f"delta.`{table_dir}`"
    before = version(spark, table)
    with pytest.raises(
        Exception, match=r"\[sparkbloom\] this Delta table writes the Bloom filters its table properties name"
    ):
        keys_frame(spark, 10, 10, 1).write.format("delta").mode("append").option("bloom_filter_columns", "id").save(
            str(table_dir)
        )
    with pytest.raises(Exception, match=r"\[sparkbloom\] unknown option 'bloom_filter_colums'"):
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('bloom_filter_colums' = 'k')")
    assert version(spark, table) == before
    spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('bloom_filter_columns')")
    left = [k for k in dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect()) if k.startswith("parquet.")]
    assert left == []


def parquet_keys(spark: SparkSession, table: str) -> dict[str, str]:
    """parquet-java's settings among the table's properties, which sparkbloom derives."""
    return {k: v for k, v in spark.sql(f"SHOW TBLPROPERTIES {table}").collect() if k.startswith("parquet.")}


def test_changes_of_filter_settings_derive_every_key_again(spark: SparkSession) -> None:
    spark.sql(
        "CREATE TABLE changed (id BIGINT, k STRING, u STRING) USING delta "
        "TBLPROPERTIES ('bloom_filter_columns' = 'k', 'bloom_filter_fpp' = '0.01')"
    )
    assert parquet_keys(spark, "changed")["parquet.bloom.filter.fpp#k"] == "0.01"
    # the fpp alone
    spark.sql("ALTER TABLE changed SET TBLPROPERTIES ('bloom_filter_fpp' = '0.001')")
    assert parquet_keys(spark, "changed")["parquet.bloom.filter.fpp#k"] == "0.001"
    # another column list: k's keys go, u's come
    spark.sql("ALTER TABLE changed SET TBLPROPERTIES ('bloom_filter_columns' = 'u')")
    keys = parquet_keys(spark, "changed")
    assert not [k for k in keys if k.endswith("#k")], keys
    assert keys["parquet.bloom.filter.enabled#u"] == "true" and keys["parquet.bloom.filter.fpp#u"] == "0.001"
    spark.sql(
        "INSERT INTO changed SELECT id, sha2(cast(id AS STRING), 256), sha2(cast(id AS STRING), 224) FROM range(500)"
    )
    report = sparkbloom.inspect(spark, "changed").collect()
    assert {r["column"] for r in report if r["has_filter"]} == {"u"}
    # UNSET of the fpp: back to the default
    spark.sql("ALTER TABLE changed UNSET TBLPROPERTIES ('bloom_filter_fpp')")
    keys = parquet_keys(spark, "changed")
    assert "bloom_filter_fpp" not in dict(spark.sql("SHOW TBLPROPERTIES changed").collect())
    assert float(keys["parquet.bloom.filter.fpp#u"]) != 0.001 and keys["parquet.bloom.filter.enabled#u"] == "true"
    # a mistake changes nothing
    before = version(spark, "changed")
    with pytest.raises(Exception, match=r"\[sparkbloom\] column 'nope' in bloom_filter_columns does not exist"):
        spark.sql("ALTER TABLE changed SET TBLPROPERTIES ('bloom_filter_columns' = 'nope')")
    assert version(spark, "changed") == before
    spark.sql("ALTER TABLE changed UNSET TBLPROPERTIES ('bloom_filter_columns')")
    assert parquet_keys(spark, "changed") == {}


def test_create_options_and_streaming_writes(spark: SparkSession, tmp_path: Path) -> None:
    # OPTIONS of a CREATE are the table's properties: its writes have filters
    spark.sql("CREATE TABLE with_options (id BIGINT, k STRING) USING delta OPTIONS ('bloom_filter_columns' = 'k')")
    spark.sql("INSERT INTO with_options SELECT id, sha2(cast(id AS STRING), 256) FROM range(0, 1000)")
    assert_every_file_has_filters(spark, "with_options", "k")
    # a stream into a table whose properties name the filters writes them
    source = tmp_path / "source"
    keys_frame(spark, 0, 1000, 2).select("id", "k").write.parquet(str(source))
    stream = spark.readStream.schema("id BIGINT, k STRING").parquet(str(source))
    existing = tmp_path / "existing"
    spark.sql(
        f"CREATE TABLE delta.`{existing}` (id BIGINT, k STRING) USING delta TBLPROPERTIES ('bloom_filter_columns' = 'k')"
    )
    query = (
        stream.writeStream.format("delta")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .option("bloom_filter_columns", "k")
        .trigger(availableNow=True)
        .start(str(existing))
    )
    query.awaitTermination()
    assert query.exception() is None
    assert_every_file_has_filters(spark, f"delta.`{existing}`", "k")
    assert spark.table(f"delta.`{existing}`").count() == 1000
    # a stream cannot create a table with filters: it fails before its first batch
    new = tmp_path / "new"
    with pytest.raises(Exception, match=r"\[sparkbloom\] a streaming write does not create a Delta table"):
        stream.writeStream.format("delta").option("checkpointLocation", str(tmp_path / "checkpoint-new")).option(
            "bloom_filter_columns", "k"
        ).trigger(availableNow=True).start(str(new)).awaitTermination()
    assert not (new / "_delta_log").exists()
    # nor ask for other filters than the table's
    with pytest.raises(Exception, match=r"\[sparkbloom\] this Delta table writes the Bloom filters"):
        stream.writeStream.format("delta").option("checkpointLocation", str(tmp_path / "checkpoint-other")).option(
            "bloom_filter_columns", "id"
        ).trigger(availableNow=True).start(str(existing)).awaitTermination()


def test_table_index_covers_the_current_snapshot(spark: SparkSession, table_dir: Path) -> None:
    # files written without filters, columns mapped, partitioned, rows deleted by deletion vectors
    path, table = str(table_dir), f"delta.`{table_dir}`"
    keys_frame(spark, 0, 4000, 4).write.format("delta").partitionBy("p").option(
        "delta.columnMapping.mode", "name"
    ).option("delta.enableDeletionVectors", "true").save(path)
    spark.sql(f"DELETE FROM {table} WHERE id % 10 = 0")
    built = sparkbloom.build_index(spark, path, ["k"])
    assert built["files_indexed"] == len(current_files(spark, table)) > 0
    assert sparkbloom.describe_index(spark, path)["files_covered"] == built["files_indexed"]
    absent = key_of(spark, 999999)
    _, pruning = checked(spark, f"SELECT id FROM {table} WHERE k = '{absent}'")
    assert pruning["files_skipped_by_index"] == pruning["files_total"] > 0, pruning
    got, _ = checked(spark, f"SELECT id FROM {table} WHERE k IN ('{key_of(spark, 1234)}', '{key_of(spark, 1230)}')")
    assert got == [(1234,)]  # 1230 was deleted: its file is read, the row stays deleted
    # a rename keeps the physical name the index holds
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO key")
    _, pruning = checked(spark, f"SELECT id FROM {table} WHERE key = '{absent}'")
    assert pruning["files_skipped_by_index"] == pruning["files_total"], pruning
    # a later version's files are indexed in the background once it has committed (until then
    # they are judged by their own filters); time travel reads the index's entries of its files
    keys_frame(spark, 5000, 100, 1).withColumnRenamed("k", "key").write.format("delta").mode("append").save(path)
    described = index_follows(spark, path, table)
    got, pruning = checked(spark, f"SELECT id FROM {table} WHERE key = '{key_of(spark, 5050)}'")
    assert got == [(5050,)] and pruning["files_covered_by_index"] == described["files_total"], pruning
    got, _ = checked(spark, f"SELECT id FROM {table} VERSION AS OF 0 WHERE k = '{key_of(spark, 1230)}'")
    assert got == [(1230,)]
    assert sparkbloom.build_index(spark, path)["files_indexed"] == 0  # nothing left to refresh
    _, pruning = checked(spark, f"SELECT id FROM {table} WHERE key = '{absent}'")
    assert pruning["files_skipped_by_index"] == pruning["files_total"], pruning


def index_follows(spark: SparkSession, path: str, table: str) -> dict[str, object]:
    """The index once its background refresh after a write covers every current file."""
    return wait_for_index(spark, path, len(current_files(spark, table)))


def test_index_follows_every_delta_write(spark: SparkSession, table_dir: Path) -> None:
    """After an append, MERGE, UPDATE, DELETE and OPTIMIZE, the session's background refresh
    indexes the new files and drops the removed ones: a lookup then probes no file by itself."""
    path, table = str(table_dir), f"delta.`{table_dir}`"
    keys_frame(spark, 0, 3000, 3).write.format("delta").option("delta.enableDeletionVectors", "false").save(path)
    sparkbloom.build_index(spark, path, ["k"])
    source = keys_frame(spark, 2500, 1000, 1).withColumn("k", F.concat("k", F.lit("-merged")))
    writes = {
        "append": lambda: keys_frame(spark, 3000, 500, 2).write.format("delta").mode("append").save(path),
        "insert": lambda: spark.sql(
            f"INSERT INTO {table} SELECT id, sha2(cast(id AS STRING), 256), id % 3 FROM range(3500, 3600)"
        ),
        "merge": lambda: (
            DeltaTable.forPath(spark, path)
            .alias("t")
            .merge(source.alias("s"), "t.id = s.id")
            .whenMatchedUpdateAll()
            .whenNotMatchedInsertAll()
            .execute()
        ),
        "update": lambda: spark.sql(f"UPDATE {table} SET k = concat(k, '-updated') WHERE id % 7 = 0"),
        "delete": lambda: spark.sql(f"DELETE FROM {table} WHERE id % 11 = 0"),
        "optimize": lambda: spark.sql(f"OPTIMIZE {table}"),
    }
    for name, write in writes.items():
        before = current_files(spark, table)
        write()
        assert current_files(spark, table) != before, name
        index_follows(spark, path, table)
        for key in (key_of(spark, 14), f"{key_of(spark, 2600)}-merged", f"{key_of(spark, 21)}-updated", "absent"):
            got, pruning = checked(spark, f"SELECT id FROM {table} WHERE k = '{key}'")
            assert pruning["files_covered_by_index"] == pruning["files_total"] > 0, (name, key, pruning)
            if not got:
                assert pruning["files_skipped_by_index"] == pruning["files_total"], (name, key, pruning)
    # OPTIMIZE removed every file the index held before it: their segments are gone
    assert sparkbloom.describe_index(spark, path)["entries"] == len(current_files(spark, table))
    assert sparkbloom.build_index(spark, path)["files_indexed"] == 0


# --- reading -----------------------------------------------------------------------------


@pytest.mark.parametrize("use_metadata_row_index", ["true", "false"])
def test_deletion_vectors_keep_deleted_rows_deleted_when_files_are_skipped(
    spark: SparkSession, table_dir: Path, use_metadata_row_index: str
) -> None:
    spark.sql(
        f"CREATE TABLE delta.`{table_dir}` (id BIGINT, k STRING, p BIGINT) USING delta "
        "TBLPROPERTIES ('bloom_filter_columns' = 'k', 'delta.enableDeletionVectors' = 'true', "
        "'parquet.block.size' = '65536')"
    )  # many row groups per file
    table = f"delta.`{table_dir}`"
    keys_frame(spark, 0, 40000, 4).write.format("delta").mode("append").save(str(table_dir))
    spark.sql(f"DELETE FROM {table} WHERE id % 5 = 0")
    assert (
        spark.sql(f"DESCRIBE HISTORY {table}")
        .where("operation = 'DELETE'")
        .first()["operationMetrics"]["numDeletionVectorsAdded"]
        != "0"
    )
    spark.conf.set("spark.databricks.delta.deletionVectors.useMetadataRowIndex", use_metadata_row_index)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "200000")  # splits inside files
    try:
        for i in (0, 1, 5, 39999, 20000, 20001):
            got, pruning = checked(spark, f"SELECT id, k FROM {table} WHERE k = '{key_of(spark, i)}'")
            assert [r[0] for r in got] == ([] if i % 5 == 0 else [i])
            assert pruning["files_total"] == 4 and pruning["files_skipped"] == 3
        keys = ", ".join(f"'{key_of(spark, i)}'" for i in range(100, 130))
        got, _ = checked(spark, f"SELECT id FROM {table} WHERE k IN ({keys})")
        assert [r[0] for r in got] == [i for i in range(100, 130) if i % 5]
        assert rows(spark, f"SELECT count(*) FROM {table}") == [(32000,)]
        # the deletion vector filter on every scan is nothing to judge: planned as by Delta
        assert "BloomPruning" not in spark.sql(f"EXPLAIN SELECT count(*) FROM {table} WHERE id > 5").first()[0]
        # beside it, a lookup's pruning shows in the plan before it runs
        plan = spark.sql(f"EXPLAIN SELECT id FROM {table} WHERE k = '{key_of(spark, 7)}'").first()[0]
        assert "BloomPruning files 4 -> 1" in plan, plan
    finally:
        spark.conf.unset("spark.databricks.delta.deletionVectors.useMetadataRowIndex")
        spark.conf.unset("spark.sql.files.maxPartitionBytes")


@pytest.mark.parametrize("mode", ["name", "id"])
def test_column_mapping_prunes_by_physical_column_after_rename_and_re_add(
    spark: SparkSession, table_dir: Path, mode: str
) -> None:
    table = f"delta.`{table_dir}`"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING, p BIGINT) USING delta "
        f"TBLPROPERTIES ('delta.columnMapping.mode' = '{mode}')"
    )
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('bloom_filter_columns' = 'k')")
    keys_frame(spark, 0, 4000, 4).write.format("delta").mode("append").save(str(table_dir))
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO old_k")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN k STRING")
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('bloom_filter_columns' = 'old_k, k')")
    spark.sql(f"INSERT INTO {table} SELECT id, 'x', id % 3, sha2(cast(id AS STRING), 256) FROM range(0, 100)")
    key = key_of(spark, 7)
    got, pruning = checked(spark, f"SELECT id FROM {table} WHERE old_k = '{key}'")
    assert got == [(7,)] and pruning["files_skipped"] == pruning["files_total"] - 1
    # `k` is another column now: the old files' column of that name must not answer for it
    got, pruning = checked(spark, f"SELECT id FROM {table} WHERE k = '{key}'")
    assert got == [(7,)]
    got, _ = checked(spark, f"SELECT id FROM {table} WHERE old_k = '{key}' OR k = '{key_of(spark, 8)}'")
    assert got == [(7,), (8,)]


def test_time_travel_change_data_feed_and_row_tracking(spark: SparkSession, table_dir: Path) -> None:
    table = f"delta.`{table_dir}`"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, k STRING, p BIGINT) USING delta TBLPROPERTIES "
        "('bloom_filter_columns' = 'k', 'delta.enableChangeDataFeed' = 'true', 'delta.enableRowTracking' = 'true')"
    )
    keys_frame(spark, 0, 3000, 3).write.format("delta").mode("append").save(str(table_dir))
    spark.sql(f"UPDATE {table} SET k = 'changed' WHERE id = 42")
    key = key_of(spark, 42)
    assert checked(spark, f"SELECT id FROM {table} WHERE k = '{key}'")[0] == []
    got, pruning = checked(spark, f"SELECT id FROM {table} VERSION AS OF 1 WHERE k = '{key}'")
    assert got == [(42,)] and pruning["files_skipped"] == 2
    got, _ = checked(spark, f"SELECT id, _change_type FROM table_changes_by_path('{table_dir}', 2) WHERE k = '{key}'")
    assert got == [(42, "update_preimage")]
    got, _ = checked(spark, f"SELECT _metadata.row_id, id FROM {table} WHERE k = '{key_of(spark, 43)}'")
    assert len(got) == 1 and got[0][1] == 43


def test_explain_metrics_and_last_pruning_show_delta_pruning(spark: SparkSession, table_dir: Path) -> None:
    keys_frame(spark, 0, 4000, 4).write.format("delta").option("bloom_filter_columns", "k").save(str(table_dir))
    query = f"SELECT id FROM delta.`{table_dir}` WHERE k = '{key_of(spark, 3)}'"
    for aqe in ("true", "false"):
        spark.conf.set("spark.sql.adaptive.enabled", aqe)
        try:
            plan = spark.sql("EXPLAIN " + query).first()[0]
            assert "BloomPruning files 4 -> 1" in plan, plan
        finally:
            spark.conf.unset("spark.sql.adaptive.enabled")
    assert checked(spark, query)[1] | {"probe_time_ms": 0, "filter_bytes_read": 0, "filters": []} == {
        "files_total": 4,
        "files_skipped": 3,
        "row_groups_total": 4,
        "row_groups_skipped": 3,
        "join_keys": 0,
        "probe_time_ms": 0,
        "filter_bytes_read": 0,
        "files_covered_by_index": 0,
        "files_skipped_by_index": 0,
        "files_by_decision": {"maybe": 1, "skipped_by_filter": 3},
        "row_groups_by_decision": {"maybe": 1, "skipped_by_filter": 3},
        "filters": [],
        "scan_unjudged": None,
    }
    spark.conf.set("spark.sparkbloom.enabled", "false")
    try:
        plan = spark.sql("EXPLAIN " + query).first()[0]
        assert "BloomPruning" not in plan  # switched off, Delta's scan is planned as Delta plans it
    finally:
        spark.conf.unset("spark.sparkbloom.enabled")


def test_a_delta_lookup_again_reads_no_footer_or_filter_again(spark: SparkSession, table_dir: Path) -> None:
    """Delta never writes a path twice: what one lookup read of a snapshot's files serves the
    next, and a file a later commit adds is read when a lookup first meets it."""
    keys_frame(spark, 0, 3000, 3).write.format("delta").option("bloom_filter_columns", "k").save(str(table_dir))
    query = f"SELECT id FROM delta.`{table_dir}` WHERE k = '{{}}'"
    got, pruning = checked(spark, query.format(key_of(spark, 5)))
    assert got == [(5,)] and pruning["files_skipped"] == 2 and pruning["filter_bytes_read"] > 0, pruning
    got, pruning = checked(spark, query.format(key_of(spark, 2500)))
    assert got == [(2500,)] and pruning["files_skipped"] == 2 and pruning["filter_bytes_read"] == 0, pruning
    keys_frame(spark, 3000, 1000, 1).write.format("delta").mode("append").save(str(table_dir))
    got, pruning = checked(spark, query.format(key_of(spark, 3500)))
    assert got == [(3500,)] and pruning["files_total"] == 4 and pruning["files_skipped"] == 3, pruning
    assert pruning["filter_bytes_read"] > 0, pruning


def test_a_wrong_filter_in_a_delta_file_is_not_trusted(spark: SparkSession, table_dir: Path) -> None:
    """A Delta file whose filter loses a value its dictionary holds (the bits cleared in place,
    tests/tamper.py) is not judged by it, and says why. The file is Delta's own write with
    parquet-java's filter, as a table written without sparkbloom has (sparkbloom's writer turns
    dictionaries off for its filter columns): pages of 200 rows stay dictionary-encoded until
    the dictionary reaches 1 KiB (its first ~90 keys). Delta's own task reader still applies the file's filter with
    Parquet pushdown on: the lookup runs with it off, as the oracle does."""
    import tamper

    frame = spark.range(0, 3000, 1, 1).select(
        "id", F.concat(F.lit("key-"), (F.col("id") % 300).cast("string")).alias("k")
    )
    writer_conf = {
        "parquet.bloom.filter.enabled#k": "true",
        "parquet.dictionary.page.size": "1024",
        "parquet.page.row.count.limit": "200",
    }
    try:
        for key, value in writer_conf.items():
            spark.conf.set(key, value)
        frame.sortWithinPartitions("k").write.format("delta").save(str(table_dir))
    finally:
        for key in writer_conf:
            spark.conf.unset(key)
    (name,) = current_files(spark, f"delta.`{table_dir}`")
    tamper.clear_value(str(table_dir / name), "k", "key-0")
    query = f"SELECT id FROM delta.`{table_dir}` WHERE k = 'key-0'"
    spark.sql("CLEAR CACHE")  # a runtime that has not checked this writer yet
    try:
        got = rows(spark, query, {"spark.sql.parquet.filterPushdown": "false"})
        report = sparkbloom.last_pruning(spark)
    finally:
        spark.sql("CLEAR CACHE")
    assert got == [(i,) for i in range(0, 3000, 300)] == answer_without_pruning(spark, query)
    assert report["files_by_decision"] == {"filter_fails_dictionary": 1}, report


def test_a_delta_lookup_is_sized_by_what_it_keeps_and_broadcast(spark: SparkSession, tmp_path: Path) -> None:
    """A lookup that keeps 1 of 200 files is sized as that file while the plan is optimized,
    as on plain Parquet: joined to a table above the broadcast threshold, it is broadcast
    (adaptive execution off, so the first plan is the plan); without sparkbloom, sort-merged."""
    lookup, orders = tmp_path / "lookup", tmp_path / "orders"
    keys_frame(spark, 0, 100_000, 200).write.format("delta").option("bloom_filter_columns", "k").save(str(lookup))
    # broadcast what is at most four lookup files (Delta 3.3's files are mostly their 1 MiB
    # filters), and make the other side twice that, at ~70 bytes a row
    threshold = 4 * max(f.stat().st_size for f in lookup.glob("*.parquet"))
    spark.range(0, max(20_000, 2 * threshold // 60), 1, 20).select(
        F.col("id"), F.sha2(F.concat(F.lit("order"), F.col("id").cast("string")), 256).alias("note")
    ).write.format("delta").save(str(orders))
    order_bytes = sum(f.stat().st_size for f in orders.glob("*.parquet"))
    assert threshold < order_bytes, (threshold, order_bytes)
    query = (
        f"SELECT l.id, o.note FROM delta.`{lookup}` l JOIN delta.`{orders}` o ON l.id = o.id "
        f"WHERE l.k = '{key_of(spark, 1234)}'"
    )
    conf = {"spark.sql.adaptive.enabled": "false", "spark.sql.autoBroadcastJoinThreshold": str(threshold)}

    def plan(extra: dict[str, str]) -> str:
        saved = {k: spark.conf.get(k, None) for k in {**conf, **extra}}
        try:
            for k, v in {**conf, **extra}.items():
                spark.conf.set(k, v)
            return str(spark.sql(query)._jdf.queryExecution().executedPlan().toString())
        finally:
            for k, v in saved.items():
                spark.conf.unset(k) if v is None else spark.conf.set(k, v)

    with_pruning = plan({})
    assert "BroadcastHashJoin" in with_pruning and "BloomPruning files 200 -> 1" in with_pruning, with_pruning
    without = plan({"spark.sparkbloom.enabled": "false"})
    assert "SortMergeJoin" in without and "BroadcastHashJoin" not in without, without
    assert rows(spark, query, conf) == answer_without_pruning(spark, query) == [(1234, rows(spark, query)[0][1])]


def test_inspect_sees_only_the_current_files_under_table_names(spark: SparkSession, table_dir: Path) -> None:
    (
        keys_frame(spark, 0, 2000, 4)
        .write.format("delta")
        .option("bloom_filter_columns", "k")
        .option("delta.columnMapping.mode", "name")
        .save(str(table_dir))
    )
    spark.sql(f"OPTIMIZE delta.`{table_dir}`")
    on_disk = {p.name for p in table_dir.rglob("*.parquet")}
    report = sparkbloom.inspect(spark, str(table_dir), ["k"]).collect()
    current = current_files(spark, f"delta.`{table_dir}`")
    assert len(current) == 1 and current < on_disk and {Path(r["file"]).name for r in report} == current
    assert {r["column"] for r in report} == {"k"} and all(r["has_filter"] for r in report)
    probe = sparkbloom.might_contain(spark, str(table_dir), "k", [key_of(spark, 5), "absent"]).collect()
    assert {r["value"]: r["might_contain"] for r in probe}[key_of(spark, 5)] is True
    sql = spark.sql(f"SELECT count(*) FROM sparkbloom_inspect('{table_dir}')").first()[0]
    assert sql == 3  # one file: id, k, p


ORDER_SCRIPT = """
import sys, uuid
import sparkbloom
from pyspark.sql import SparkSession
jars, extensions, path = sys.argv[1], sys.argv[2], sys.argv[3]
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.jars", jars + "," + sparkbloom.jar_path())
         .config("spark.sql.extensions", extensions)
         .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.databricks.delta.snapshotPartitions", "2").getOrCreate())
spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, k STRING) USING delta TBLPROPERTIES "
          "('delta.enableDeletionVectors' = 'true', 'delta.columnMapping.mode' = 'name')")
spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('bloom_filter_columns' = 'k')")
spark.range(0, 4000, 1, 4).selectExpr("id", "sha2(cast(id AS STRING), 256) AS k").write.format("delta").mode("append").save(path)
spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 2 = 0")
for enabled in ("true", "false"):
    spark.conf.set("spark.sparkbloom.enabled", enabled)
    print("count", enabled, spark.sql(f"SELECT count(*), sum(id) FROM delta.`{path}`").first()[:])
    for i in (6, 7):
        got = spark.sql(f"SELECT id FROM delta.`{path}` WHERE k = sha2('{i}', 256)").collect()
        print(i, enabled, [r[0] for r in got], sparkbloom.last_pruning(spark).get("files_skipped", 0))
spark.conf.set("spark.sparkbloom.enabled", "true")
spark.range(0, 10).write.parquet(path + "-plain")
spark.sql(f"SELECT * FROM parquet.`{path}-plain` WHERE id = 3").collect()
print("plain", sparkbloom.last_pruning(spark)["files_total"])
"""


def test_sparkbloom_listed_before_delta_prunes_delta_and_keeps_its_deletion_vectors(tmp_path: Path) -> None:
    """The shared session lists Delta's extension first; here, in a JVM of its own, sparkbloom's is."""
    order = ["sparkbloom.SparkBloomExtensions", DELTA_EXTENSION]
    out = run_child(ORDER_SCRIPT, ",".join(delta_jars()), ",".join(order), str(tmp_path / "t")).splitlines()
    assert "6 true [] 3" in out and "7 true [7] 3" in out and "plain 1" in out, out
    assert "6 false [] 0" in out and "7 false [7] 0" in out, out
    assert "count true (2000, 4000000)" in out and "count false (2000, 4000000)" in out, out


def test_parquet_scans_prune_with_delta_listed_first(spark: SparkSession, tmp_path: Path) -> None:
    """Delta's planner plans every file scan when its extension comes first (this session's
    order): plain Parquet scans are still pruned, files and row groups, and joins still answer."""
    path = str(tmp_path / "plain")
    keys_frame(spark, 0, 4000, 4).write.option("bloom_filter_columns", "k").parquet(path)
    got, pruning = checked(spark, f"SELECT id FROM parquet.`{path}` WHERE k = '{key_of(spark, 9)}'")
    assert got == [(9,)] and pruning["files_total"] == 4 and pruning["files_skipped"] == 3
    present = spark.sql(f"EXPLAIN SELECT id FROM parquet.`{path}` WHERE k = '{key_of(spark, 9)}'").first()[0]
    assert "BloomPruning files 4 -> 1" in present, present
    # a key no file holds: the scan keeps none
    absent = spark.sql(f"EXPLAIN SELECT id FROM parquet.`{path}` WHERE k = 'x'").first()[0]
    assert "BloomPruning files 4 -> 0" in absent, absent
    spark.createDataFrame([(key_of(spark, i),) for i in (3, 5, 3000)], "k STRING").createOrReplaceTempView("wanted")
    got, _ = checked(spark, f"SELECT f.id FROM parquet.`{path}` f JOIN wanted w ON f.k = w.k")
    assert got == [(3,), (5,), (3000,)]
