# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Lookups on an S3 table with a round-trip delay per request (bench/README.md, "Lookups on S3").

    .venv/bin/python bench/s3_lookup.py --rows 20000000 --files 2000 --delay-ms 50 --vanilla-phases cold

The lookup benchmark's table (bench/lookup.py: unique uuids, shuffled so min/max cannot
prune), written with sparkbloom's filters on uuid and user_id to the loopback S3 server
(dev/s3-server) as ``--files`` files, straight to the server; then indexed on uuid with
``sparkbloom.build_index``. Every query then goes through a proxy that holds each HTTP request
``--delay-ms`` (bench/s3.py's LatencyProxy, which also counts the requests).

The present key and ``IN (10)``'s keys are one file's, from the middle of the table (not the
first file, which Spark reads for the schema). ``--input-stream classic`` measures S3A's
input stream of Hadoop 3.4 and earlier; ``--conf KEY=VALUE`` adds a setting to the measured
Spark sessions (e.g. ``spark.sparkbloom.pruning.parallelism=64``); ``--reuse`` queries the
tables an earlier run of the same scale left on the server.

Configurations, on the same files: vanilla Spark (Parquet pushdown on: parquet-java uses the
files' filters in the tasks), sparkbloom with its index off, sparkbloom with the index, and
DuckDB (httpfs from PyPI's duckdb-extension-httpfs, in a venv of its own: its DuckDB version
must be the extension's). Queries: a present uuid, an absent uuid, ``uuid IN (10)``.

Cold: a new process (JVM, S3A client, sparkbloom's caches, Spark's listing cache all new),
warmed up by the same query on a small table of its own so that JIT and class loading are
not counted; the query includes ``spark.read.parquet`` (listing, schema). Warm: the same
query again in that process; warm, relation kept: the cold run's DataFrame filtered again
(no new listing, as with a catalog table). Processes run one at a time; within a round the
configurations are interleaved. Seconds are medians over ``--repeats`` rounds; requests are the last
round's (the proxy's count: GET of an object, HEAD, LIST; and S3A's own IOStatistics).

``--format delta`` puts the same files in a Delta table (``CONVERT TO DELTA``, on the newest
Spark line with a Delta release); ``--format iceberg`` writes the same rows, as as many files,
through Iceberg into a table of a Hadoop catalog on the server (on the newest line with an
Iceberg release; files Iceberg did not write carry no field ids). Each is indexed, and measure vanilla (the format alone: its own statistics
and pushdown) against sparkbloom without and with the index; each runs on its line's venv
with the checkout's package (``python/``).

Writes bench/results/s3_lookup.json (or ``--output``), each phase's request log (method,
target, Range, arrival time) under ``--work``/requests, and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from s3 import KINDS, ROOT, LatencyProxy, request_kind, s3a_jars, server_env, spark_s3_conf

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import DataFrame, SparkSession

HERE = Path(__file__).resolve().parent
ABSENT_UUID = "7f3a9c2e-1b4d-4e8f-9a6b-0c5d2e7f1a3b"  # as bench/lookup.py's
SPARK_CONFIGS = ("vanilla", "sparkbloom_no_index", "sparkbloom_index")
FORMATS = ("parquet", "delta", "iceberg")
#: the table format's name and the (catalog) name its tables are read by
ICEBERG_TABLES = {"table": "ice.db.events", "warmup": "ice.db.warmup"}
CONFIGS = (*SPARK_CONFIGS, "duckdb")
QUERIES = ("present", "absent", "in10")
QUERY_NAMES = {"present": "uuid = present", "absent": "uuid = absent", "in10": "uuid IN (10)"}
S3A_COUNTERS = (
    "action_http_get_request",
    "action_http_head_request",
    "object_list_request",
    "stream_read_opened",
    "op_open",
)
DUCKDB_VERSION = "1.5.5"  # PyPI's duckdb-extension-httpfs is built for exactly this DuckDB
RESULT = "RESULT "
#: cold: a new process; warm: the same query again (spark.read.parquet lists anew);
#: warm_relation: the cold run's DataFrame filtered again (its listing kept)
PHASES = ("cold", "warm", "warm_relation")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--format", choices=FORMATS, default="parquet", help="the table format the files are read as")
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--row-groups-per-file", type=int, default=1)
    parser.add_argument("--delay-ms", type=float, default=50.0)
    parser.add_argument("--repeats", type=int, default=1, help="rounds; each measures every cold query anew")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--queries", default=",".join(QUERIES))
    parser.add_argument(
        "--input-stream",
        default="",
        help="fs.s3a.input.stream.type (empty: S3A's default, 'analytics' in Hadoop 3.5; 'classic' as in 3.4)",
    )
    parser.add_argument("--prefix", default="", help="the tables' key prefix in the bucket (default from the scale)")
    parser.add_argument(
        "--vanilla-phases",
        default=",".join(PHASES),
        help="vanilla Spark's phases (cold,warm,warm_relation): each reads every file, so a large scale may measure cold only",
    )
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting of the measured sessions (repeatable), e.g. spark.sparkbloom.pruning.parallelism=64",
    )
    parser.add_argument("--reuse", action="store_true", help="query the tables a previous run of this scale wrote")
    parser.add_argument("--duckdb-venv", default=str(ROOT / ".cache" / "s3" / f"duckdb-{DUCKDB_VERSION}"))
    parser.add_argument("--work", default=str(HERE / "results" / "tmp" / "s3_lookup"))
    parser.add_argument("--output", default=str(HERE / "results" / "s3_lookup.json"))
    parser.add_argument("--role", default="main", help=argparse.SUPPRESS)
    parser.add_argument("--config", default="", help=argparse.SUPPRESS)
    parser.add_argument("--query", default="", help=argparse.SUPPRESS)
    parser.add_argument("--phases", default=",".join(PHASES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.prefix = args.prefix or f"s3_lookup/{args.rows}-{args.files}-{args.row_groups_per_file}"
    if args.role == "setup":
        setup(args)
    elif args.role == "setup-format":
        setup_format(args)
    elif args.role == "measure":
        measure_spark(args) if args.config in SPARK_CONFIGS else measure_duckdb(args)
    else:
        run(args)


def table_paths(args: argparse.Namespace, scheme: str) -> tuple[str, str]:
    """The table's and the warm-up table's URLs in the bucket."""
    base = f"{scheme}://{os.environ['SPARKBLOOM_S3_BUCKET']}/{args.prefix}"
    return f"{base}/table", f"{base}/warmup"


def format_paths(args: argparse.Namespace, table_format: str) -> tuple[str, str]:
    """Where a table format's copy of the table and of the warm-up table are uploaded: Delta's
    tables themselves; the files Iceberg's tables are written from."""
    base = f"s3a://{os.environ['SPARKBLOOM_S3_BUCKET']}/{args.prefix}/{table_format}"
    return (
        (f"{base}/source/table", f"{base}/source/warmup")
        if table_format == "iceberg"
        else (f"{base}/table", f"{base}/warmup")
    )


def iceberg_warehouse(args: argparse.Namespace) -> str:
    return f"s3a://{os.environ['SPARKBLOOM_S3_BUCKET']}/{args.prefix}/iceberg/warehouse"


def format_line(table_format: str) -> str:
    """The Spark line a format runs on: the newest with a release of it (dev/spark-lines)."""
    column = {"parquet": None, "delta": 4, "iceberg": 5}[table_format]
    rows = [r.split() for r in (ROOT / "dev" / "spark-lines").read_text().splitlines() if r and not r.startswith("#")]
    return rows[-1][0] if column is None else [r[0] for r in rows if r[column] != "-"][-1]


def format_python(table_format: str) -> str:
    return (
        sys.executable
        if table_format == "parquet"
        else str(ROOT / ".cache" / "lines" / format_line(table_format) / "venv" / "bin" / "python")
    )


def format_settings(args: argparse.Namespace, table_format: str) -> dict[str, str]:
    """The jars and settings of a table format's sessions."""
    line = format_line(table_format)
    if table_format == "delta":
        jars = sorted(str(j) for j in (ROOT / ".cache" / "delta" / line / "jars").glob("*.jar"))
        return {
            "jars": ",".join(jars),
            "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        }
    if table_format == "iceberg":
        (jar,) = sorted(str(j) for j in (ROOT / ".cache" / "iceberg" / line / "jars").glob("*.jar"))
        warehouse = iceberg_warehouse(args)
        return {
            "jars": jar,
            "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
            "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
            "spark.sql.catalog.ice.type": "hadoop",
            "spark.sql.catalog.ice.warehouse": warehouse,
        }
    return {"jars": ""}


def child(args: argparse.Namespace, role: str, python: str, **extra: str) -> dict[str, Any]:
    """Runs this script in a new process with ``role`` and returns the JSON it printed."""
    command = [python, str(Path(__file__).resolve()), "--role", role]
    for key in ("rows", "files", "row_groups_per_file", "delay_ms", "prefix", "work", "input_stream", "format"):
        command += [f"--{key.replace('_', '-')}", str(getattr(args, key))]
    for setting in args.conf:
        command += ["--conf", setting]
    for key, value in extra.items():
        command += [f"--{key}", value]
    started = time.perf_counter()
    # another line's venv: the checkout's package, with the jars dev/build-jars bundled
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")} if python != sys.executable else None
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    result = json.loads(lines[-1][len(RESULT) :])
    result["process_seconds"] = time.perf_counter() - started
    return result


def run(args: argparse.Namespace) -> None:
    os.environ.update(server_env(start=True))
    work, out = Path(args.work), Path(args.output)
    work.mkdir(parents=True, exist_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta_path = work / f"{args.prefix.replace('/', '_')}.json"
    if args.reuse and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        print(f"reusing {args.prefix}: {meta['setup']}", flush=True)
    else:
        meta = child(args, "setup", sys.executable)
        meta_path.write_text(json.dumps(meta, indent=2))
        print(f"setup: {meta['setup']}", flush=True)
    if args.format != "parquet":
        format_meta = work / f"{args.prefix.replace('/', '_')}-{args.format}.json"
        if not (args.reuse and format_meta.exists()):
            format_meta.write_text(json.dumps(child(args, "setup-format", format_python(args.format)), indent=2))
        print(f"{args.format}: {json.loads(format_meta.read_text())}", flush=True)
    configs = [c for c in args.configs.split(",") if c and (args.format == "parquet" or c != "duckdb")]
    duckdb_python = duckdb_interpreter(Path(args.duckdb_venv)) if "duckdb" in configs else None
    queries = [q for q in args.queries.split(",") if q]
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {c: {q: [] for q in queries} for c in configs}
    for round_ in range(args.repeats):
        for query in queries:
            for config in configs:
                python = duckdb_python if config == "duckdb" else format_python(args.format)
                assert python is not None
                phases = args.vanilla_phases if config == "vanilla" else ",".join(PHASES)
                result = child(args, "measure", python, config=config, query=query, phases=phases)
                runs[config][query].append(result)
                cells = "  ".join(
                    f"{p} {result[p]['seconds']:7.3f} s {counts_cell(result[p])}" for p in PHASES if p in result
                )
                print(f"round {round_} {config:20s} {query:8s} {cells}", flush=True)
    results = {c: {q: summarize(runs[c][q]) for q in queries} for c in configs}
    output = {
        "format": args.format,
        "spark_line": format_line(args.format),
        "rows": args.rows,
        "files": args.files,
        "row_groups_per_file": args.row_groups_per_file,
        "delay_ms": args.delay_ms,
        "repeats": args.repeats,
        "input_stream": args.input_stream or "S3A default",
        "conf": args.conf,
        "setup": meta["setup"],
        "results": results,
        "per_file_requests": per_file_requests(work, args.prefix, configs, queries, data_prefix(args)),
    }
    out.write_text(json.dumps(output, indent=2))
    print_tables(output)


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median seconds over the rounds, with the last round's counts."""
    last = runs[-1]
    phases = [p for p in PHASES if p in last]
    return {
        p: {
            **last[p],
            "seconds": statistics.median(r[p]["seconds"] for r in runs),
            "all_seconds": [r[p]["seconds"] for r in runs],
        }
        | (
            {"planning_seconds": statistics.median(r[p]["steps"]["planning"]["seconds"] for r in runs)}
            if "steps" in last[p]
            else {}
        )
        for p in phases
    } | {"process_seconds": last["process_seconds"]}


def counts_cell(phase: dict[str, Any]) -> str:
    r = phase["requests"]
    return f"GET {r['GET']} HEAD {r['HEAD']} LIST {r['LIST']}"


# ---------------------------------------------------------------------------------------------
# setup: the tables, written straight to the server


def setup(args: argparse.Namespace) -> None:
    from common import block_size, lookup_table
    from pyspark.sql import functions as F

    import sparkbloom

    env = server_env(start=False)
    spark = spark_session("sparkbloom-bench-s3-setup", env, None, sparkbloom_on=True, extra={})
    table, warmup = table_paths(args, "s3a")
    started = time.perf_counter()
    data = lookup_table(spark, args.rows, args.files)
    # Keys of one file in the middle of the table (one partition is written as one file): not
    # the first file's, which Spark reads for the schema before any query is planned.
    keys = [r["uuid"] for r in data.where(F.spark_partition_id() == args.files // 2).select("uuid").limit(10).collect()]
    rows_per_group = max(1, args.rows // args.files // args.row_groups_per_file)
    options = {**sparkbloom.write_options(["uuid", "user_id"]), "parquet.block.size": block_size(rows_per_group)}
    local = Path(args.work) / "upload"
    shutil.rmtree(local, ignore_errors=True)
    data.write.options(**options).parquet(str(local / "table"))
    # its own keys, so that a warm-up never touches the table's
    data.limit(max(4, args.rows // 500)).repartition(4).write.options(**options).parquet(str(local / "warmup"))
    needed = probe_bytes(spark, local / "table", "uuid")
    upload(spark, local / "table", table)
    upload(spark, local / "warmup", warmup)
    if args.format != "parquet":  # the same files, where the format's table keeps them (Iceberg: its input)
        format_table, format_warmup = format_paths(args, args.format)
        upload(spark, local / "table", format_table)
        upload(spark, local / "warmup", format_warmup)
    shutil.rmtree(local, ignore_errors=True)
    written = time.perf_counter()
    sparkbloom.drop_index(spark, table)
    sparkbloom.build_index(spark, table, ["uuid"])
    indexed = time.perf_counter()
    sparkbloom.build_index(spark, warmup, ["uuid"])
    warmup_key = spark.read.parquet(warmup).first()["uuid"]  # type: ignore[index]
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    path = jvm.org.apache.hadoop.fs.Path(table)
    fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())  # type: ignore[union-attr]
    files = [s for s in fs.listStatus(path) if s.getPath().getName().endswith(".parquet")]
    index = sparkbloom.describe_index(spark, table)
    meta = {
        "keys": {"present": keys[0], "in10": keys, "warmup": warmup_key},
        "setup": {
            "data_files": len(files),
            "table_bytes": sum(int(s.getLen()) for s in files),
            "index_bytes": index.get("index_bytes"),
            **needed,
            "write_seconds": round(written - started, 1),
            "index_seconds": round(indexed - written, 1),
        },
        "index": {k: str(v) for k, v in index.items()},
    }
    print(RESULT + json.dumps(meta), flush=True)


def setup_format(args: argparse.Namespace) -> None:
    """Makes the uploaded copy of the files a Delta or Iceberg table, and indexes it."""
    import sparkbloom

    env = server_env(start=False)
    settings = format_settings(args, args.format)
    spark = spark_session(f"sparkbloom-bench-s3-setup-{args.format}", env, None, True, settings, args.format)
    started = time.perf_counter()
    tables = []
    for data in format_paths(args, args.format):
        if args.format == "delta":
            spark.sql(f"CONVERT TO DELTA parquet.`{data}`")
            tables.append(data)
        else:
            # written through Iceberg (files imported by add_files carry no field ids, so no
            # column of theirs is found): the same rows and file count, with uuid's filters
            name = ICEBERG_TABLES["table" if data.endswith("/table") else "warmup"]
            rows = spark.read.parquet(data)
            spark.sql("CREATE NAMESPACE IF NOT EXISTS ice.db")
            spark.sql(f"DROP TABLE IF EXISTS {name} PURGE")
            spark.sql(
                f"CREATE TABLE {name} ({', '.join(f'`{f.name}` {f.dataType.simpleString()}' for f in rows.schema)}) "
                "USING iceberg TBLPROPERTIES ('write.parquet.bloom-filter-enabled.column.uuid' = 'true', "
                "'write.distribution-mode' = 'none')"
            )
            files = len(rows.inputFiles())
            rows.repartition(files).writeTo(name).append()
            tables.append(name)
    converted = time.perf_counter()
    for table in tables:
        sparkbloom.build_index(spark, table, ["uuid"])
    indexed = time.perf_counter()
    described = sparkbloom.describe_index(spark, tables[0])
    print(
        RESULT
        + json.dumps(
            {
                "tables": tables,
                "files_covered": described["files_covered"],
                "index_bytes": described["index_bytes"],
                "convert_seconds": round(converted - started, 1),
                "index_seconds": round(indexed - converted, 1),
            }
        ),
        flush=True,
    )


def probe_bytes(spark: SparkSession, table: Path, column: str) -> dict[str, int]:
    """What a lookup on ``column`` must read of the table's files to judge them all by their
    filters: each file's footer with its length and magic (8 bytes), and ``column``'s filters
    (header and bitset), by parquet-java's reading of the footers."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    conf = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[union-attr]
    footers = filters = 0
    for file in sorted(table.glob("*.parquet")):
        with file.open("rb") as f:
            f.seek(-8, os.SEEK_END)
            footers += struct.unpack("<i", f.read(4))[0] + 8
        path = jvm.org.apache.hadoop.fs.Path(str(file.resolve()))
        reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(
            jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(path, conf)
        )
        try:
            for block in reader.getFooter().getBlocks():
                for chunk in block.getColumns():
                    if chunk.getPath().toDotString() == column:
                        length = chunk.getBloomFilterLength()
                        if length < 0:
                            raise RuntimeError(f"{file}: no bloom_filter_length for {column}")
                        filters += length
        finally:
            reader.close()
    return {"footer_bytes": footers, f"{column}_filter_bytes": filters}


def upload(spark: SparkSession, local: Path, url: str) -> None:
    """Copies a table written on local disk to ``url``, replacing what is there, a file at a
    time on 8 threads: much faster than Spark writing through S3A, whose commit protocol
    renames (copies) every file twice."""
    from concurrent.futures import ThreadPoolExecutor

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    hadoop_path = jvm.org.apache.hadoop.fs.Path
    target = hadoop_path(url)
    fs = target.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())  # type: ignore[union-attr]
    fs.delete(target, True)
    files = [f for f in local.iterdir() if f.name.endswith(".parquet")]
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda f: fs.copyFromLocalFile(
                    False, True, hadoop_path(str(f.resolve())), hadoop_path(f"{url}/{f.name}")
                ),
                files,
            )
        )


# ---------------------------------------------------------------------------------------------
# measure: one process, one configuration, one query: cold, then warm


def spark_session(  # type: ignore[no-untyped-def]
    app: str,
    env: dict[str, str],
    endpoint: str | None,
    sparkbloom_on: bool,
    extra: dict[str, str],
    table_format: str = "parquet",
):
    from pyspark.sql import SparkSession

    import sparkbloom

    builder = SparkSession.builder.master("local[2]").appName(app)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.memory": "6g",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.shuffle.partitions": "8",
        **spark_s3_conf(env, endpoint),
        **{k: v for k, v in extra.items() if k != "jars"},
        "spark.jars": ",".join([*s3a_jars(format_line(table_format)), *filter(None, [extra.get("jars")])]),
    }
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = (sparkbloom.configure(builder) if sparkbloom_on else builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def meta_of(args: argparse.Namespace) -> dict[str, Any]:
    return json.loads((Path(args.work) / f"{args.prefix.replace('/', '_')}.json").read_text())


def predicate(query: str, keys: dict[str, Any], key: str | None = None) -> str:
    """The query's WHERE clause (``key`` replaces the present key, for the warm-up)."""
    if query == "present" or key is not None:
        return f"uuid = '{key or keys['present']}'"
    if query == "absent":
        return f"uuid = '{ABSENT_UUID}'"
    return "uuid IN (" + ", ".join(f"'{k}'" for k in keys["in10"]) + ")"


def measure_spark(args: argparse.Namespace) -> None:
    from common import scan_files_read

    import sparkbloom

    env = server_env(start=False)
    keys = meta_of(args)["keys"]
    table, warmup = table_paths(args, "s3a")
    with LatencyProxy(env["SPARKBLOOM_S3_ENDPOINT"], args.delay_ms, log_requests=True) as proxy:
        extra = {"spark.hadoop.fs.s3a.input.stream.type": args.input_stream} if args.input_stream else {}
        if args.config == "sparkbloom_no_index":
            extra["spark.sparkbloom.index.enabled"] = "false"
        extra.update(format_settings(args, args.format))
        extra.update(setting.split("=", 1) for setting in args.conf)
        on = args.config != "vanilla"
        spark = spark_session(f"sparkbloom-bench-s3-{args.config}", env, proxy.endpoint, on, extra, args.format)
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        fs = jvm.org.apache.hadoop.fs.FileSystem.get(
            jvm.java.net.URI(table), spark.sparkContext._jsc.hadoopConfiguration()
        )  # type: ignore[union-attr]

        def s3a_counters() -> dict[str, int]:
            counters = fs.getIOStatistics().counters()
            return {name: int(counters.get(name) or 0) for name in S3A_COUNTERS}

        def mark() -> tuple[float, dict[str, int], int]:
            return time.perf_counter(), proxy.counts(), proxy.response_bytes()

        def between(start: tuple[float, dict[str, int], int], end: tuple[float, dict[str, int], int]) -> dict[str, Any]:
            return {
                "seconds": end[0] - start[0],
                "requests": {k: end[1][k] - start[1][k] for k in end[1]},
                "bytes": end[2] - start[2],
            }

        def planning(df: DataFrame, log: list[tuple[str, str, str, str]]) -> dict[str, Any]:
            """The query's optimization and physical planning, by Spark's own tracker of its
            phases (inside collect, where sparkbloom judges a lookup's literal keys; Spark
            alone requests nothing there), and the requests that arrived meanwhile."""
            phases = df._jdf.queryExecution().tracker().phases()
            start_ms = phases.get("optimization").get().startTimeMs()
            end_ms = phases.get("planning").get().endTimeMs()
            epoch_at_zero = time.time() - proxy.clock()  # the request log's time 0, as epoch seconds
            start, end = start_ms / 1000 - epoch_at_zero, end_ms / 1000 - epoch_at_zero
            kinds = Counter(request_kind(method, target) for method, target, _, at in log if start <= float(at) <= end)
            return {
                "seconds": (end_ms - start_ms) / 1000,
                "requests": {k: kinds[k] for k in KINDS},
                "bytes": proxy.response_bytes_between(start, end),
            }

        def once(table: Callable[[], DataFrame], where: str) -> dict[str, Any]:
            before_s3a, logged = s3a_counters(), len(proxy.requests())
            started = mark()
            df = table().where(where)
            read = mark()
            rows = df.collect()
            done = mark()
            after_s3a = s3a_counters()
            whole = between(started, done)
            log = proxy.requests()[logged:]
            planned = planning(df, log)
            collected = between(read, done)
            phase: dict[str, Any] = {
                "seconds": whole["seconds"],
                "rows": len(rows),
                "files_read": scan_files_read(df),
                "requests": whole["requests"],
                "bytes": whole["bytes"],
                # spark.read (listing and schema; nothing with a kept relation), planning
                # (within collect), and the rest of collect: the job (the tasks' reads, and
                # sparkbloom's confirmation of what it ruled out)
                "steps": {
                    "read": between(started, read),
                    "planning": planned,
                    "execution": {
                        "seconds": collected["seconds"] - planned["seconds"],
                        "requests": {
                            k: collected["requests"][k] - planned["requests"][k] for k in collected["requests"]
                        },
                        "bytes": collected["bytes"] - planned["bytes"],
                    },
                },
                "s3a": {k: after_s3a[k] - before_s3a[k] for k in after_s3a},
                "log": log,
            }
            if on:
                phase["pruning"] = sparkbloom.last_pruning(spark)
            return phase

        relation: list[DataFrame] = []

        def reader(which: str) -> DataFrame:
            if args.format == "iceberg":
                return spark.table(ICEBERG_TABLES[which])
            path = dict(
                zip(("table", "warmup"), format_paths(args, args.format) if args.format == "delta" else (table, warmup))
            )[which]
            return spark.read.format(args.format).load(path)

        def read_table() -> DataFrame:
            relation.append(reader("table"))
            return relation[-1]

        once(lambda: reader("warmup"), predicate(args.query, keys, keys["warmup"]))
        phases = {"cold": once(read_table, predicate(args.query, keys))}
        if "warm" in args.phases:
            phases["warm"] = once(lambda: reader("table"), predicate(args.query, keys))
        if "warm_relation" in args.phases:
            # the cold run's relation again: its listing is kept, as a catalog table's would be
            phases["warm_relation"] = once(lambda: relation[0], predicate(args.query, keys))
    finish_measure(args, phases)


def finish_measure(args: argparse.Namespace, phases: dict[str, dict[str, Any]]) -> None:
    """Keeps each phase's request log in the work directory and prints the result."""
    logs = Path(args.work) / "requests" / args.prefix.replace("/", "_")
    logs.mkdir(parents=True, exist_ok=True)
    for phase, measured in phases.items():
        lines = ["\t".join(entry) for entry in measured.pop("log")]
        (logs / f"{args.config}-{args.query}-{phase}.tsv").write_text("\n".join(lines) + "\n")
    print(RESULT + json.dumps(phases), flush=True)


def duckdb_interpreter(venv: Path) -> str:
    """The DuckDB venv's python, made on first use: DuckDB and httpfs from PyPI, of one version."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"making {venv} (duckdb {DUCKDB_VERSION} and duckdb-extension-httpfs from PyPI)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        packages = [f"duckdb=={DUCKDB_VERSION}", f"duckdb-extension-httpfs=={DUCKDB_VERSION}"]
        subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True)
    return str(python)


def measure_duckdb(args: argparse.Namespace) -> None:
    import duckdb  # type: ignore[import-not-found]
    import duckdb_extension_httpfs  # type: ignore[import-not-found]

    env = server_env(start=False)
    keys = meta_of(args)["keys"]
    table, warmup = table_paths(args, "s3")
    extension = next(Path(duckdb_extension_httpfs.__file__).parent.glob("extensions/*/httpfs.duckdb_extension"))
    with LatencyProxy(env["SPARKBLOOM_S3_ENDPOINT"], args.delay_ms, log_requests=True) as proxy:
        con = duckdb.connect()
        con.execute(f"LOAD '{extension}'")
        con.execute(
            "CREATE SECRET (TYPE s3, KEY_ID ?, SECRET ?, ENDPOINT ?, URL_STYLE 'path', USE_SSL false, REGION 'us-east-1')",
            [env["SPARKBLOOM_S3_ACCESS_KEY"], env["SPARKBLOOM_S3_SECRET_KEY"], urlsplit(proxy.endpoint).netloc],
        )

        def once(path: str, where: str) -> dict[str, Any]:
            before, logged = proxy.counts(), len(proxy.requests())
            started = time.perf_counter()
            rows = con.execute(f"SELECT * FROM read_parquet('{path}/*.parquet') WHERE {where}").fetchall()
            seconds = time.perf_counter() - started
            after = proxy.counts()
            return {
                "seconds": seconds,
                "rows": len(rows),
                "requests": {k: after[k] - before[k] for k in after},
                "log": proxy.requests()[logged:],
            }

        once(warmup, predicate(args.query, keys, keys["warmup"]))
        cold = once(table, predicate(args.query, keys))
        warm = once(table, predicate(args.query, keys))
        con.close()
    finish_measure(args, {"cold": cold, "warm": warm})


# ---------------------------------------------------------------------------------------------
# reporting


def data_prefix(args: argparse.Namespace) -> str:
    """The key prefix of the measured table's data files."""
    table = {
        "parquet": table_paths(args, "s3a")[0],
        "delta": format_paths(args, "delta")[0],
        "iceberg": f"{iceberg_warehouse(args)}/db/events/data",
    }[args.format]
    return urlsplit(table).path.lstrip("/")


def per_file_requests(work: Path, prefix: str, configs: list[str], queries: list[str], data: str) -> dict[str, Any]:
    """Per configuration and query, cold: how many data files got how many requests of each
    kind ("GET 1 HEAD 1": 2,000 files), from the request logs; the other requests (listing,
    index, directory probes) are counted apart."""
    logs = work / "requests" / prefix.replace("/", "_")
    table_prefix = f"/{os.environ['SPARKBLOOM_S3_BUCKET']}/{data}/"
    summary: dict[str, Any] = {}
    for config in configs:
        for query in queries:
            path = logs / f"{config}-{query}-cold.tsv"
            if not path.exists():
                continue
            per_file: dict[str, Counter[str]] = {}
            other: Counter[str] = Counter()
            for line in path.read_text().splitlines():
                if not line.strip():
                    continue
                method, target, *_ = line.split("\t")
                kind = request_kind(method, target)
                object_path = unquote(urlsplit(target).path)
                name = object_path[len(table_prefix) :] if object_path.startswith(table_prefix) else ""
                if kind in ("GET", "HEAD") and name.endswith(".parquet") and "/" not in name:
                    per_file.setdefault(name, Counter())[kind] += 1
                else:
                    other[f"{kind} {'index' if '_sparkbloom_index' in unquote(target) else 'table'}"] += 1
            shapes = Counter(" ".join(f"{m} {n}" for m, n in sorted(c.items())) for c in per_file.values())
            summary[f"{config}/{query}"] = {
                "files_touched": len(per_file),
                "per_file": dict(shapes.most_common()),
                "other_requests": dict(other),
            }
    return summary


def print_tables(output: dict[str, Any]) -> None:
    results = output["results"]
    print(
        f"\n{output['files']} files, {output['rows']:,} rows, {output['delay_ms']:g} ms per request, "
        f"S3A input stream {output['input_stream']}, settings {output['conf']}; cells: seconds / GET / HEAD / LIST"
    )
    print("| query | configuration | cold | warm | warm, relation kept | files read (cold) |")
    print("|---|---|---|---|---|---|")
    queries = list(next(iter(results.values())))
    for query in queries:
        for config, by_query in results.items():
            r = by_query[query]
            cells = [
                f"{r[p]['seconds']:.3f} / {r[p]['requests']['GET']} / {r[p]['requests']['HEAD']} / {r[p]['requests']['LIST']}"
                if p in r
                else "-"
                for p in PHASES
            ]
            print(f"| {QUERY_NAMES[query]} | {config} | {' | '.join(cells)} | {r['cold'].get('files_read', '-')} |")
    if "vanilla" in results:
        print("\n| query | configuration | cold: vanilla / this | warm: vanilla / this |")
        print("|---|---|---|---|")
        for query in queries:
            v = results["vanilla"][query]
            for config, by_query in results.items():
                if config == "vanilla":
                    continue
                r = by_query[query]
                warm = f"{v['warm']['seconds'] / r['warm']['seconds']:.1f}x" if "warm" in v else "-"
                print(
                    f"| {QUERY_NAMES[query]} | {config} | {v['cold']['seconds'] / r['cold']['seconds']:.1f}x | {warm} |"
                )
    print_share(output)
    print("\nper data file, cold (requests of one file: how many files):")
    for key, summary in output["per_file_requests"].items():
        print(f"  {key}: {summary['files_touched']} files {summary['per_file']}; other {summary['other_requests']}")


def print_share(output: dict[str, Any]) -> None:
    """sparkbloom's share of each lookup: its planning time beyond vanilla Spark's (the same
    query and phase, vanilla's processes run in the same order), and what was requested while
    planning (sparkbloom's judgement: Spark's own planning requests nothing) against what the
    rest of the query requested (Spark's listing, schema and tasks, and sparkbloom's
    confirmation LIST in the job)."""
    results = output["results"]
    if "vanilla" not in results:
        return
    setup = output["setup"]
    print(
        f"\nsparkbloom's share (planning: median seconds; requests GET/HEAD/LIST and bytes of the last round). "
        f"Needed to judge every file by its filters: footers {setup.get('footer_bytes', '-')} B "
        f"+ uuid filters {setup.get('uuid_filter_bytes', '-')} B; the index {setup.get('index_bytes', '-')} B"
    )
    # spark.read and execution are Spark's but for sparkbloom's confirmation LIST, where the
    # job confirms the files it ruled out (vanilla's job lists nothing)
    print(
        "| query | configuration | phase | planning | vanilla's planning | added | planning's requests "
        "| planning's bytes | read and execution's requests | their bytes |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")

    def requests(step: dict[str, Any]) -> str:
        r = step["requests"]
        return f"{r['GET']}/{r['HEAD']}/{r['LIST']}"

    for query in next(iter(results.values())):
        vanilla = results["vanilla"][query]
        for config, by_query in results.items():
            if config in ("vanilla", "duckdb"):
                continue
            for phase in PHASES:
                if phase not in by_query[query] or phase not in vanilla:
                    continue
                r, v = by_query[query][phase], vanilla[phase]
                steps = r["steps"]
                spark_requests = {
                    k: steps["read"]["requests"][k] + steps["execution"]["requests"][k] for k in ("GET", "HEAD", "LIST")
                }
                print(
                    f"| {QUERY_NAMES[query]} | {config} | {phase} | {r['planning_seconds']:.3f} | "
                    f"{v['planning_seconds']:.3f} | {r['planning_seconds'] - v['planning_seconds']:+.3f} | "
                    f"{requests(steps['planning'])} | {steps['planning']['bytes']} | "
                    f"{requests({'requests': spark_requests})} | {steps['read']['bytes'] + steps['execution']['bytes']} |"
                )


if __name__ == "__main__":
    main()
