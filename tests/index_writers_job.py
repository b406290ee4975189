# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""One process of tests/test_index_writers.py: a writer, or a refresher, of two indexed tables
at once, one on the local disk and one on the S3 server, while the other processes work on the
same tables. The processes meet through marker files in a shared directory.

- ``writer``: writes both tables and indexes them, then appends ROUNDS batches to each through
  sparkbloom (each append refreshes the index in the background), marking each batch once it
  has committed. Once every refresher is done it waits for its background refreshes, refreshes
  once more and checks: every key of every batch found exactly once, absent keys never,
  ``describe_index`` covering every file, and no refresh logged as failed.
- ``refresher``: THREADS threads each call ``build_index`` ROUNDS times per table, as a
  scheduled job would; the first thread of the process given ``--rebuild`` also rebuilds the
  index with another fpp halfway (a compaction into one segment), with a short retention, so
  expired segments are removed while others read them. One more thread looks keys up in a loop
  until the writer is done: keys of batches marked committed before the lookup started must be
  found once, absent keys never.

Every failure is collected and printed as ``FAILED ...``; the process exits 1 if any.
Prints ``MAX_ATTEMPTS <n>`` (the most commit attempts one build needed) and ``LOOKUPS <n>``.

Usage: python index_writers_job.py writer|refresher WORKDIR LOCAL_TABLE S3_TABLE --rounds N --seed S
       [--refreshers N] [--process P --threads T [--rebuild]]
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
import traceback
from pathlib import Path

from s3_support import spark_builder

import sparkbloom

parser = argparse.ArgumentParser()
parser.add_argument("role", choices=["writer", "refresher"])
parser.add_argument("workdir", type=Path)
parser.add_argument("local")
parser.add_argument("s3")
parser.add_argument("--rounds", type=int, required=True)
parser.add_argument("--seed", required=True)
parser.add_argument("--refreshers", type=int, default=2)
parser.add_argument("--process", type=int, default=0)
parser.add_argument("--threads", type=int, default=2)
parser.add_argument("--rebuild", action="store_true")
ARGS = parser.parse_args()
ROUNDS_N = ARGS.rounds
SEED = ARGS.seed
THREADS = ARGS.threads
REBUILD = ARGS.rebuild
TABLES = (ARGS.local, ARGS.s3)
WORK = ARGS.workdir
INITIAL_ROWS = 2000
BATCH_ROWS = 300
failures: list[str] = []
attempts: list[int] = []


def key_of(i: int) -> str:
    return f"key-{i:09d}"


def batch_keys(batch: int) -> range:
    """Batch 0 is the table as first written; batch b >= 1 is the b-th append."""
    if batch == 0:
        return range(INITIAL_ROWS)
    start = 1_000_000 * batch
    return range(start, start + BATCH_ROWS)


def marker(name: str) -> Path:
    return WORK / name


def wait_for(names: list[str], timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while not all(marker(n).exists() for n in names):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {names}")
        time.sleep(0.2)


def committed_batches() -> list[int]:
    return [0] + [b for b in range(1, ROUNDS_N + 1) if marker(f"batch-{b}").exists()]


def rows(spark, batch: int, files: int):  # noqa: ANN001, ANN201 (pyspark objects)
    from pyspark.sql import functions as F

    keys = batch_keys(batch)
    return spark.range(keys.start, keys.stop, 1, files).select(
        F.format_string("key-%09d", F.col("id")).alias("k"), F.col("id").alias("v")
    )


def count(spark, table: str, key: str) -> int:  # noqa: ANN001
    return spark.read.parquet(table).where(f"k = '{key}'").count()


def check_lookup(spark, rnd: random.Random, table: str, batches: list[int], what: str) -> None:  # noqa: ANN001
    batch = rnd.choice(batches)
    key = key_of(rnd.choice(batch_keys(batch)))
    absent = key_of(rnd.randrange(1_000_000, 1_000_000 * (ROUNDS_N + 2)) * 10 + 5)  # never written
    got = (count(spark, table, key), count(spark, table, absent))
    if got != (1, 0):
        failures.append(f"{what}: {table}: {key} (batch {batch}) and absent {absent} counted {got}")


def guarded(name: str, body) -> None:  # noqa: ANN001
    try:
        body()
    except Exception:  # noqa: BLE001 (every failure is reported)
        failures.append(f"{name}: {traceback.format_exc()[-3000:]}")


def writer(spark, rnd: random.Random) -> None:  # noqa: ANN001
    s3 = s3_file_system(spark, ARGS.s3)
    print("CONDITIONAL_CREATE", str(s3.hasPathCapability(path(spark, ARGS.s3), CONDITIONAL)).lower())
    for table in TABLES:
        rows(spark, 0, 4).write.parquet(table)
        before = requests(s3)
        sparkbloom.build_index(spark, table, ["k"])
        if table == ARGS.s3:
            print("S3_REQUESTS of the first build", {k: v - before.get(k, 0) for k, v in requests(s3).items()})
    marker("ready").touch()
    for batch in range(1, ROUNDS_N + 1):
        for table in TABLES:
            rows(spark, batch, rnd.choice([1, 2])).write.mode("append").parquet(table)
        marker(f"batch-{batch}").touch()
        time.sleep(rnd.uniform(0, 0.5))
    marker("writer-wrote").touch()
    wait_for([f"refresher-{p}-done" for p in range(ARGS.refreshers)])
    # the background refreshes of the last appends, so that one that fails is logged before the
    # end (where a store's commits are not exclusive, a lost one may leave files uncovered)
    for table in TABLES:
        deadline = time.monotonic() + 60
        while sparkbloom.describe_index(spark, table)["files_covered"] < files_of(spark, table):
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
    for table in TABLES:
        last = sparkbloom.build_index(spark, table)
        attempts.append(last["commit_attempts"])
        described = sparkbloom.describe_index(spark, table)
        if not described["files_covered"] == described["files_total"] == files_of(spark, table):
            failures.append(f"{table}: after the last refresh {described}")
        total = spark.read.parquet(table).count()
        if total != INITIAL_ROWS + ROUNDS_N * BATCH_ROWS:
            failures.append(f"{table}: {total} rows")
        for batch in range(ROUNDS_N + 1):
            for key in rnd.sample(batch_keys(batch), 3):
                if count(spark, table, key_of(key)) != 1:
                    failures.append(f"{table}: {key_of(key)} of batch {batch} not found once")
        found = count(spark, table, "absent")
        pruning = sparkbloom.last_pruning(spark)
        if found != 0 or pruning["files_covered_by_index"] != files_of(spark, table):
            failures.append(
                f"{table}: an absent key found {found} times, or not every file judged by the index: {pruning}"
            )
        print(f"TABLE {table} {described['segments']} segments, {described['files_total']} files")


CONDITIONAL = "fs.option.create.conditional.overwrite"


def path(spark, name: str):  # noqa: ANN001, ANN201 (py4j objects)
    return spark.sparkContext._jvm.org.apache.hadoop.fs.Path(name)


def s3_file_system(spark, name: str):  # noqa: ANN001, ANN201
    return path(spark, name).getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())


def requests(fs) -> dict[str, int]:  # noqa: ANN001
    """S3A's request counters (PUT, GET, HEAD, LIST, DELETE) so far, where its statistics have them."""
    try:
        counters = fs.getIOStatistics().counters()
    except Exception:  # noqa: BLE001 (Hadoop 3.3's S3A has other statistics)
        return {}
    names = (
        "object_put_request",
        "object_list_request",
        "object_metadata_request",
        "object_delete_request",
        "action_http_get_request",
        "object_copy_requests",
    )
    return {n: int(counters.get(n)) for n in names if counters.get(n) is not None}


def files_of(spark, table: str) -> int:  # noqa: ANN001
    return len(spark.read.parquet(table).inputFiles())


def refresher(spark, rnd: random.Random, process: int) -> None:  # noqa: ANN001
    wait_for(["ready"])
    done = threading.Event()

    def refreshing(thread: int) -> None:
        trnd = random.Random(f"{SEED}-{process}-{thread}")
        for round_ in range(ROUNDS_N):
            for table in trnd.sample(TABLES, 2):
                if REBUILD and thread == 0 and round_ == ROUNDS_N // 2:
                    # another fpp: the whole index rebuilt into one segment, the rest expiring
                    built = sparkbloom.build_index(spark, table, ["k"], fpp=0.001)
                    if not built["rebuilt"]:
                        failures.append(f"{table}: a rebuild with another fpp did not rebuild: {built}")
                else:
                    built = sparkbloom.build_index(spark, table)
                attempts.append(built["commit_attempts"])
            time.sleep(trnd.uniform(0, 0.3))

    lookups = [0]

    def looking_up() -> None:
        lrnd = random.Random(f"{SEED}-{process}-lookups")
        while not done.is_set():
            batches = committed_batches()  # committed before the lookup starts: must be found
            check_lookup(spark, lrnd, lrnd.choice(TABLES), batches, "during the commits")
            lookups[0] += 1
            if lookups[0] % 10 == 0:
                guarded("describe", lambda: [sparkbloom.describe_index(spark, t) for t in TABLES])

    threads = [
        threading.Thread(target=guarded, args=(f"refresher {t}", lambda t=t: refreshing(t))) for t in range(THREADS)
    ]
    reader = threading.Thread(target=guarded, args=("lookups", looking_up))
    for t in [*threads, reader]:
        t.start()
    for t in threads:
        t.join()
    wait_for(["writer-wrote"])
    done.set()
    reader.join()
    print(f"LOOKUPS {lookups[0]}")
    marker(f"refresher-{process}-done").touch()


def main() -> None:
    conf = {"spark.sparkbloom.index.retention": "3s"} if REBUILD else {}
    spark = spark_builder(conf).getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    rnd = random.Random(f"{SEED}-{ARGS.role}-{ARGS.process}")
    if ARGS.role == "writer":
        guarded("writer", lambda: writer(spark, rnd))
    else:
        guarded("refresher", lambda: refresher(spark, rnd, ARGS.process))
    print(f"MAX_ATTEMPTS {max(attempts, default=0)}")
    for failure in failures:
        print(f"FAILED {failure}")
    sys.stdout.flush()
    spark.stop()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
