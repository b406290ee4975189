# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Objects replaced, deleted and gone on a real S3 server, while sparkbloom prunes: run by
tests/test_s3_changes.py in a child process (tests/s3_support.py). Every s3a:// request goes
through tests/s3_store_clock.py, so every object shows one whole-second `Last-Modified` a year
in the past: a replacement with the same length keeps length and time, and only its etag tells
it; and "modified long ago" is what a driver reads from a store whose clock is behind.

Each scenario checks its rows against an in-memory copy of what the bucket holds, and prints
`OK <scenario>`; the first wrong answer raises with the details.

Usage: python s3_changes_job.py <table prefix> [rounds]
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from s3_store_clock import StoreClockProxy
from s3_support import s3_path, spark_builder

import sparkbloom

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

PREFIX = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 12
ROWS_PER_FILE = 200
FILES = 4
# Variants are files of ROWS_PER_FILE distinct longs each, written alike (no dictionary, no
# compression), so any two have the same length: a replacement keeps it.
VARIANTS = 24


def main() -> None:
    proxy = StoreClockProxy(os.environ["SPARKBLOOM_S3_ENDPOINT"]).__enter__()
    spark = spark_builder({"spark.hadoop.fs.s3a.endpoint": proxy.endpoint}).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    jvm = spark.sparkContext._jvm
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()

    def jpath(p: str):  # noqa: ANN202 (a py4j object)
        return jvm.org.apache.hadoop.fs.Path(p)

    fs = jpath(s3_path(PREFIX)).getFileSystem(hadoop)
    rng = random.Random(20261128)

    # variant v holds the longs v * 1_000_000 + [0, ROWS_PER_FILE) * 7 + 1_000_003
    def values_of(variant: int) -> set[int]:
        return {variant * 1_000_000 + i * 7 + 1_000_003 for i in range(ROWS_PER_FILE)}

    staging = tempfile.mkdtemp(prefix="sparkbloom-s3-variants-")
    rows = [(v, x) for v in range(VARIANTS) for x in sorted(values_of(v))]
    (
        spark.createDataFrame(rows, "variant int, id long")
        .repartition("variant")
        .write.partitionBy("variant")
        .option("bloom_filter_columns", "id")
        .option("compression", "uncompressed")
        .option("parquet.enable.dictionary", "false")
        .option("parquet.page.write-checksum.enabled", "false")  # a CRC is a varint in the page header
        .parquet(staging + "/variants")
    )
    variant_files = {v: next(Path(staging, "variants", f"variant={v}").glob("part-*.parquet")) for v in range(VARIANTS)}
    lengths = {f.stat().st_size for f in variant_files.values()}
    assert len(lengths) == 1, f"variants must share one length for a replacement to keep it: {lengths}"

    # A whole object in one PUT (Hadoop 3.3.4's copyFromLocalFile fails on a single file).
    def put(variant: int, table: str, name: str) -> None:
        out = fs.create(jpath(f"{s3_path(table)}/{name}"), True)
        out.write(bytearray(variant_files[variant].read_bytes()))
        out.close()

    def delete(table: str, name: str) -> None:
        assert fs.delete(jpath(f"{s3_path(table)}/{name}"), False)

    def table_of(name: str, variants: list[int]) -> dict[str, int]:
        held = {}
        for i, v in enumerate(variants):
            put(v, name, f"part-{i:02d}.parquet")
            held[f"part-{i:02d}.parquet"] = v
        return held

    def lookup(table: str | DataFrame, keys: list[int]) -> list[int]:
        """Rows of `keys` in a table read afresh (a name) or through a kept DataFrame."""
        where = f"id = {keys[0]}" if len(keys) == 1 else f"id IN ({', '.join(map(str, keys))})"
        frame = spark.read.parquet(s3_path(table)) if isinstance(table, str) else table
        return sorted(r.id for r in frame.where(where).collect())

    def expected(held: dict[str, int], keys: list[int]) -> list[int]:
        return sorted(k for k in keys for v in held.values() if k in values_of(v))

    def check(what: str, got: list[int], want: list[int]) -> None:
        assert got == want, f"{what}: got {got}, want {want}"

    fresh_key = min(values_of(20))  # in no table until a file is replaced by variant 20

    # The driver's cache: the first lookup caches every footer and filter; the replacement,
    # same length and same time, must be read again.
    held = table_of(f"{PREFIX}/driver", [0, 1, 2, 3])
    check("before", lookup(f"{PREFIX}/driver", [fresh_key]), [])
    pruning = sparkbloom.last_pruning(spark)
    assert pruning["files_skipped"] == FILES, f"the filters must prune for this to test anything: {pruning}"
    put(20, f"{PREFIX}/driver", "part-02.parquet")
    check("driver cache after a same-second replacement", lookup(f"{PREFIX}/driver", [fresh_key]), [fresh_key])
    print("OK driver cache")

    # Executor probing: the executors' caches key on the listing's etag too.
    spark.conf.set("spark.sparkbloom.pruning.executorProbingAbove", "1")
    table_of(f"{PREFIX}/executors", [0, 1, 2, 3])
    check("before", lookup(f"{PREFIX}/executors", [fresh_key]), [])
    put(20, f"{PREFIX}/executors", "part-01.parquet")
    check("executor probing after a replacement", lookup(f"{PREFIX}/executors", [fresh_key]), [fresh_key])
    spark.conf.unset("spark.sparkbloom.pruning.executorProbingAbove")
    print("OK executor probing")

    # A Dataset executed again: its verdicts hold only while the file is the same version.
    table_of(f"{PREFIX}/again", [0, 1, 2, 3])
    again = spark.read.parquet(s3_path(f"{PREFIX}/again")).where(f"id = {fresh_key}")
    check("first execution", sorted(r.id for r in again.collect()), [])
    put(20, f"{PREFIX}/again", "part-03.parquet")
    check("second execution after a replacement", sorted(r.id for r in again.collect()), [fresh_key])
    print("OK executed again")

    # The table index, built before the replacement: the replaced file is no longer its to answer.
    table_of(f"{PREFIX}/index", [0, 1, 2, 3])
    built = sparkbloom.build_index(spark, s3_path(f"{PREFIX}/index"), ["id"])
    assert built["files_indexed"] == FILES, built
    check("indexed", lookup(f"{PREFIX}/index", [fresh_key]), [])
    pruning = sparkbloom.last_pruning(spark)
    assert pruning["files_skipped_by_index"] == FILES, pruning
    put(20, f"{PREFIX}/index", "part-00.parquet")
    check("index after a replacement", lookup(f"{PREFIX}/index", [fresh_key]), [fresh_key])
    pruning = sparkbloom.last_pruning(spark)
    assert pruning["files_covered_by_index"] == FILES - 1, pruning
    print("OK index")

    # A listing kept across queries (a DataFrame, a catalog table's cached relation) while an
    # object is replaced: Spark reads each file by path as it is then, so no verdict on the
    # listed version may decide, from the cache or the index. A flat table is confirmed by a
    # LIST, a file alone in its directory by a HEAD.
    table_of(f"{PREFIX}/kept", [0, 1, 2, 3])
    kept = spark.read.parquet(s3_path(f"{PREFIX}/kept"))
    check("kept, before", lookup(kept, [min(values_of(1))]), [min(values_of(1))])
    put(20, f"{PREFIX}/kept", "part-02.parquet")
    check("kept DataFrame after a replacement", lookup(kept, [fresh_key]), [fresh_key])
    pruning = sparkbloom.last_pruning(spark)
    assert pruning["files_skipped"] == FILES - 1, f"the files not replaced are still skipped: {pruning}"

    table_of(f"{PREFIX}/kept-table", [0, 1, 2, 3])
    assert sparkbloom.build_index(spark, s3_path(f"{PREFIX}/kept-table"), ["id"])["files_indexed"] == FILES
    spark.sql(f"CREATE TABLE kept_table USING parquet LOCATION '{s3_path(f'{PREFIX}/kept-table')}'")
    check("catalog table, before", lookup(spark.table("kept_table"), [fresh_key]), [])
    assert sparkbloom.last_pruning(spark)["files_skipped_by_index"] == FILES
    put(20, f"{PREFIX}/kept-table", "part-01.parquet")
    check("cached catalog table after a replacement", lookup(spark.table("kept_table"), [fresh_key]), [fresh_key])
    pruning = sparkbloom.last_pruning(spark)
    assert pruning["files_skipped_by_index"] == FILES - 1, pruning

    for i in range(FILES):
        put(i, f"{PREFIX}/kept-partitioned", f"p={i}/part-00.parquet")
    kept = spark.read.parquet(s3_path(f"{PREFIX}/kept-partitioned"))
    check("partitioned, before", lookup(kept, [fresh_key]), [])
    put(20, f"{PREFIX}/kept-partitioned", "p=3/part-00.parquet")
    check("kept partitioned DataFrame after a replacement", lookup(kept, [fresh_key]), [fresh_key])
    print("OK kept listing")

    # An object deleted: it is neither listed nor read.
    held = table_of(f"{PREFIX}/deleted", [0, 1, 2, 3])
    kept_key, deleted_key = min(values_of(0)), min(values_of(1))
    delete(f"{PREFIX}/deleted", "part-01.parquet")
    del held["part-01.parquet"]
    check("deleted", lookup(f"{PREFIX}/deleted", [kept_key, deleted_key]), [kept_key])
    print("OK deleted")

    # Listed, then gone by the time the lookup is planned: sparkbloom cannot read its footer,
    # so it keeps the file, and the query does what Spark does without sparkbloom: fails, or
    # with spark.sql.files.ignoreMissingFiles skips it.
    def gone_case(enabled: bool, ignore_missing: bool) -> str:
        table = f"{PREFIX}/gone-{enabled}-{ignore_missing}"
        table_of(table, [0, 1, 2, 3])
        spark.conf.set("spark.sparkbloom.enabled", str(enabled).lower())
        spark.conf.set("spark.sql.files.ignoreMissingFiles", str(ignore_missing).lower())
        try:
            listed = spark.read.parquet(s3_path(table))
            delete(table, "part-01.parquet")
            try:
                return repr(sorted(r.id for r in listed.where(f"id IN ({kept_key}, {deleted_key})").collect()))
            except Exception as e:  # noqa: BLE001 (the error is the answer compared)
                return "FAILED_READ_FILE" if "FILE_NOT_EXIST" in str(e) or "FileNotFound" in str(e) else str(e)[:300]
        finally:
            spark.conf.unset("spark.sparkbloom.enabled")
            spark.conf.unset("spark.sql.files.ignoreMissingFiles")

    for ignore_missing in (False, True):
        with_bloom, without = gone_case(True, ignore_missing), gone_case(False, ignore_missing)
        assert with_bloom == without, f"ignoreMissingFiles={ignore_missing}: {with_bloom} != {without}"
        if ignore_missing:
            assert with_bloom == repr([kept_key]), with_bloom
    print("OK gone by planning")

    # Randomized: files replaced by random variants (some holding the keys looked up), lookups
    # of keys present and absent, `=` and `IN`, against the in-memory copy.
    # Half the lookups go through one DataFrame kept from the start, whose listing ages.
    held = table_of(f"{PREFIX}/random", rng.sample(range(VARIANTS), FILES))
    kept = spark.read.parquet(s3_path(f"{PREFIX}/random"))
    lookups = 0
    for _ in range(ROUNDS):
        for name in rng.sample(sorted(held), rng.randint(1, 2)):
            held[name] = rng.randrange(VARIANTS)
            put(held[name], f"{PREFIX}/random", name)
        for _ in range(3):
            keys = [rng.choice(sorted(values_of(rng.randrange(VARIANTS)))) for _ in range(rng.choice([1, 1, 3]))]
            keys = sorted(set(keys))
            table = kept if rng.random() < 0.5 else f"{PREFIX}/random"
            check(f"round with {held}", lookup(table, keys), expected(held, keys))
            lookups += 1
    print(f"OK randomized {ROUNDS} rounds {lookups} lookups")

    spark.stop()
    proxy.__exit__()


if __name__ == "__main__":
    main()
