# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Table index benchmark (bench/README.md, "Table index"), two parts:

- ``backfill``: the lookup benchmark's table written **without** filters, indexed on
  ``uuid`` and ``user_id`` with ``sparkbloom.build_index`` (timed), against (a) the same
  files with vanilla Spark and (e) the table written with sparkbloom's in-file filters;
  layouts interleaved in every repetition.

      .venv/bin/python bench/index.py backfill --rows 20000000 --files 200

- ``scale``: a table of ``--tiny-files`` files of one row group each (10 rows), made
  cheaply by patching the values of one template file. Cold planning (the driver's caches
  emptied; the OS page cache stays warm) and warm planning of a point lookup, with the
  index, without it (footers on the driver) and without it with footers probed by an
  executor job; index bytes per file and per distinct key; and a projection to 1,000,000
  files from the measured costs.

      .venv/bin/python bench/index.py scale --tiny-files 100000

Writes bench/results/index_backfill.json or index_scale.json and prints Markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import struct
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import xxhash
from common import (
    Measured,
    bench_session,
    block_size,
    interleaved,
    lookup_table,
    lookup_table_arguments,
    repeats_and_output,
)
from lookup import ABSENT_UUID, lookup_keys
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom

HERE = Path(__file__).resolve().parent
INDEXED = "i_no_filters_indexed"
IN_FILE = "e_sparkbloom_in_file"
VANILLA = "a_no_filters_vanilla"


def backfill(args: argparse.Namespace) -> None:
    out = Path(args.output)
    spark = bench_session("sparkbloom-bench-index-backfill")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    data = lookup_table(spark, args.rows, args.files)
    keys = lookup_keys(data)
    rows_per_group = max(1, args.rows // args.files // args.row_groups_per_file)
    shape = {"parquet.block.size": block_size(rows_per_group)}
    plain, filtered = str(work / "plain"), str(work / "in_file")
    data.write.options(**shape).parquet(plain)
    data.write.options(**shape).options(**sparkbloom.write_options(["uuid", "user_id"])).parquet(filtered)

    builds = []
    for attempt in range(args.builds):
        sparkbloom.drop_index(spark, plain)
        started = time.perf_counter()
        built = sparkbloom.build_index(spark, plain, ["uuid", "user_id"])
        builds.append(time.perf_counter() - started)
        print(f"build {attempt}: {builds[-1]:.1f} s {built}", flush=True)
    described = sparkbloom.describe_index(spark, plain)
    data_bytes = sum(f.stat().st_size for f in Path(plain).rglob("*.parquet"))
    in_file_bytes = sum(f.stat().st_size for f in Path(filtered).rglob("*.parquet"))

    tables = {
        IN_FILE: spark.read.parquet(filtered),
        INDEXED: spark.read.parquet(plain),
        VANILLA: spark.read.parquet(plain),
    }
    queries: dict[str, Callable[[DataFrame], DataFrame]] = {
        "uuid = present": lambda t: t.where(F.col("uuid") == keys["uuid"]),
        "uuid = absent": lambda t: t.where(F.col("uuid") == ABSENT_UUID),
        "uuid IN (10)": lambda t: t.where(F.col("uuid").isin(keys["in10"])),
        "uuid IN (100)": lambda t: t.where(F.col("uuid").isin(keys["in100"])),
        "uuid IN (100 spread)": lambda t: t.where(F.col("uuid").isin(keys["in100_spread"])),
        "user_id = present": lambda t: t.where(F.col("user_id") == keys["user_id"]),
    }

    def counts(name: str, _query: str, _m: Measured) -> dict[str, float]:
        if name == VANILLA:
            return {}
        p = sparkbloom.last_pruning(spark)
        return {
            "row_groups_read": p["row_groups_total"] - p["row_groups_skipped"],
            "probe_time_ms": p["probe_time_ms"],
            "files_skipped_by_index": p["files_skipped_by_index"],
        }

    results = interleaved(
        spark,
        list(tables),
        list(queries),
        args.repeats,
        {IN_FILE, INDEXED},
        lambda name, query: queries[query](tables[name]),
        counts,
    )
    output = {
        "rows": args.rows,
        "files": args.files,
        "row_groups": described["units"].get("uuid"),
        "build_seconds": builds,
        "build_seconds_median": statistics.median(builds),
        "index": described,
        "data_bytes": data_bytes,
        "in_file_filter_table_bytes": in_file_bytes,
        "results": results,
    }
    out.write_text(json.dumps(output, indent=2, default=str))
    print(
        f"\nbuild: median {statistics.median(builds):.1f} s of {builds}; index {described['index_bytes']:,} bytes "
        f"(data without filters {data_bytes:,}; with in-file filters {in_file_bytes:,})"
    )
    print("\n| query | (a) vanilla | (i) index | (e) in-file | (a)/(i) | (i)/(e) | row groups read (i) / (e) |")
    print("|---|---|---|---|---|---|---|")
    for q in queries:
        a, i, e = (results[n][q] for n in (VANILLA, INDEXED, IN_FILE))
        print(
            f"| {q} | {a['seconds']:.3f} | {i['seconds']:.3f} | {e['seconds']:.3f} | {a['seconds'] / i['seconds']:.1f}x "
            f"| {i['seconds'] / e['seconds']:.2f} | {int(i['row_groups_read'])} / {int(e['row_groups_read'])} |"
        )
    shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------------------
# scale
# --------------------------------------------------------------------------------------

ROWS_PER_FILE = 10


SALTS = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)


def sbbf(values: list[bytes], num_bytes: int) -> bytes:
    """The split block Bloom filter of `values` (plain encodings), as the format defines it."""
    words = [0] * (num_bytes // 4)
    blocks = num_bytes // 32
    for value in values:
        h = xxhash.xxh64_intdigest(value)
        block = ((h >> 32) * blocks) >> 32
        key = h & 0xFFFFFFFF
        for i, salt in enumerate(SALTS):
            words[block * 8 + i] |= 1 << (((key * salt) & 0xFFFFFFFF) >> 27)
    return struct.pack(f"<{len(words)}I", *words)


def tiny_files(directory: Path, count: int) -> None:
    """`count` files of one row group of ROWS_PER_FILE rows (id, key, user_id), all different,
    with Bloom filters on key and user_id (so that judging a file without the index means
    reading its footer and filters), made from one pyarrow template by replacing its
    sentinel values and filters: no dictionaries, no compression and no statistics, so each
    value is stored once, verbatim."""
    directory.mkdir(parents=True)
    id_sentinel = [0x5EED_0000_0000_0000 + i for i in range(ROWS_PER_FILE)]
    user_sentinel = [0x7EED_0000_0000_0000 + i for i in range(ROWS_PER_FILE)]
    key_sentinel = [f"sentinel-key-{i:02d}-" + "x" * 20 for i in range(ROWS_PER_FILE)]  # 36 characters, as every key
    table = pa.table(
        {
            "id": pa.array(id_sentinel, pa.int64()),
            "key": pa.array(key_sentinel, pa.string()),
            "user_id": pa.array(user_sentinel, pa.int64()),
        }
    )
    template_path = directory.parent / "template.parquet"
    pq.write_table(
        table,
        template_path,
        compression="NONE",
        use_dictionary=False,
        write_statistics=False,
        bloom_filter_options={c: {"ndv": ROWS_PER_FILE, "fpp": 0.0001} for c in ("key", "user_id")},
    )
    template = template_path.read_bytes()
    template_path.unlink()
    longs = lambda vs: [v.to_bytes(8, "little") for v in vs]  # noqa: E731
    filters = {}  # column -> (offset of the bitset, its length): the template's own, recomputed and found
    for column, values in (("key", [k.encode() for k in key_sentinel]), ("user_id", longs(user_sentinel))):
        for size in (32, 64, 128, 256, 512):
            at = template.find(sbbf(values, size))
            if at >= 0:
                filters[column] = (at, size)
                break
        assert column in filters, f"the template's {column} filter is not the one computed here"
    for n in range(count):
        rows = range(n * ROWS_PER_FILE, (n + 1) * ROWS_PER_FILE)
        keys = [tiny_key(r).encode() for r in rows]
        users = longs([r * 7919 % 10**9 for r in rows])
        data = bytearray(template)
        for i, row in enumerate(rows):
            data = data.replace(id_sentinel[i].to_bytes(8, "little"), row.to_bytes(8, "little"))
            data = data.replace(user_sentinel[i].to_bytes(8, "little"), users[i])
            data = data.replace(key_sentinel[i].encode(), keys[i])
        for column, values in (("key", keys), ("user_id", users)):
            at, size = filters[column]
            data[at : at + size] = sbbf(values, size)
        (directory / f"part-{n:07d}.parquet").write_bytes(bytes(data))


def tiny_key(row: int) -> str:
    return f"key-{row * 2654435761 % 2**48:012x}-{row:020d}"[:36].ljust(36, "k")


def clear_driver_caches(spark: SparkSession) -> None:
    jvm = spark.sparkContext._jvm
    jvm.sparkbloom.read.ProbeCache.shared().clear()  # type: ignore[union-attr]
    jvm.sparkbloom.index.TableIndex.invalidate("")  # type: ignore[union-attr]


def plan_once(spark: SparkSession, path: str, predicate: str) -> dict[str, float]:
    """Listing, then planning and pruning of one point lookup, in seconds (no task runs)."""
    started = time.perf_counter()
    df = spark.read.parquet(path)
    listed = time.perf_counter()
    df.where(predicate)._jdf.queryExecution().executedPlan().execute()  # plans, lists and prunes; runs nothing
    planned = time.perf_counter()
    p = sparkbloom.last_pruning(spark)
    return {
        "listing": listed - started,
        "planning": planned - listed,
        "total": planned - started,
        "probe_ms": p["probe_time_ms"],
        "files_kept": p["files_total"] - p["files_skipped"],
        "skipped_by_index": p["files_skipped_by_index"],
    }


def scale(args: argparse.Namespace) -> None:
    out = Path(args.output)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    table = work / "tiny"
    started = time.perf_counter()
    tiny_files(table, args.tiny_files)
    generated = time.perf_counter() - started
    print(f"{args.tiny_files} files generated in {generated:.1f} s", flush=True)
    spark = bench_session("sparkbloom-bench-index-scale", {"spark.sparkbloom.cache.maxBytes": str(2 << 30)})
    path = str(table)
    key = tiny_key(args.tiny_files // 2)
    lookup = f"key = '{key}'"
    assert spark.read.parquet(path).where(lookup).count() == 1

    started = time.perf_counter()
    built = sparkbloom.build_index(spark, path, ["key", "user_id"])
    build_seconds = time.perf_counter() - started
    described = sparkbloom.describe_index(spark, path)
    print(f"build {build_seconds:.1f} s: {built}\n{described}", flush=True)

    modes = {
        "index": {"spark.sparkbloom.index.enabled": "true"},
        "no index, driver probing": {
            "spark.sparkbloom.index.enabled": "false",
            "spark.sparkbloom.pruning.executorProbingAbove": "0",
        },
        "no index, executor probing": {
            "spark.sparkbloom.index.enabled": "false",
            "spark.sparkbloom.pruning.executorProbingAbove": "1",
        },
        "vanilla (sparkbloom off)": {"spark.sparkbloom.enabled": "false"},
    }
    results: dict[str, dict[str, list[dict[str, float]]]] = {m: {"cold": [], "warm": []} for m in modes}
    for round_ in range(args.repeats):
        for mode, conf in modes.items():  # interleaved
            for k, v in conf.items():
                spark.conf.set(k, v)
            clear_driver_caches(spark)
            cold = plan_once(spark, path, lookup)
            warm = plan_once(spark, path, lookup)
            for k in conf:
                spark.conf.unset(k)
            results[mode]["cold"].append(cold)
            results[mode]["warm"].append(warm)
            print(f"round {round_} {mode}: cold {cold}, warm {warm}", flush=True)

    def median(mode: str, phase: str, field: str) -> float:
        return statistics.median(r[field] for r in results[mode][phase])

    files = args.tiny_files
    index_bytes = described["index_bytes"]
    keys = files * ROWS_PER_FILE
    per_key_read = files * 32  # one block row per column probed: 32 bytes per file
    summary = {
        "files": files,
        "rows_per_file": ROWS_PER_FILE,
        "generated_seconds": generated,
        "build_seconds": build_seconds,
        "index": described,
        "index_bytes_per_file": index_bytes / files,
        "index_bytes_per_distinct_key": index_bytes / keys / 2,
        "bytes_read_per_key_and_column": per_key_read,
        "median": {
            m: {p: {f: median(m, p, f) for f in ("listing", "planning", "total", "probe_ms")} for p in ("cold", "warm")}
            for m in modes
        },
        "runs": results,
    }
    out.write_text(json.dumps(summary, indent=2, default=str))
    print(
        f"\n{files:,} files; index {index_bytes:,} bytes = {index_bytes / files:.0f} bytes per file, "
        f"{index_bytes / keys / 2:.1f} bytes per distinct key and column; a key reads {per_key_read:,} bytes per column"
    )
    print(
        "\n| planning a point lookup | cold: listing + planning (s) | cold: sparkbloom probe (s) | warm: planning (s) "
        "| warm: sparkbloom probe (s) |"
    )
    print("|---|---|---|---|---|")
    for m in modes:
        print(
            f"| {m} | {median(m, 'cold', 'listing'):.2f} + {median(m, 'cold', 'planning'):.2f} "
            f"| {median(m, 'cold', 'probe_ms') / 1000:.2f} | {median(m, 'warm', 'planning'):.3f} "
            f"| {median(m, 'warm', 'probe_ms') / 1000:.3f} |"
        )
    shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parts = parser.add_subparsers(dest="part", required=True)
    b = parts.add_parser("backfill")
    lookup_table_arguments(b, str(HERE / "results" / "tmp" / "index"), shapes=False)
    repeats_and_output(b, "index_backfill")
    b.add_argument("--builds", type=int, default=3)
    s = parts.add_parser("scale")
    s.add_argument("--tiny-files", type=int, default=100_000)
    s.add_argument("--work", default=str(HERE / "results" / "tmp" / "index_scale"))
    repeats_and_output(s, "index_scale")
    args = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", "python3")
    backfill(args) if args.part == "backfill" else scale(args)


if __name__ == "__main__":
    main()
