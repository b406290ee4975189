# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Executor probing against driver probing on S3 with a round-trip delay per request
(bench/README.md, "Executor probing on S3, 50 ms per request").

    nice -n 10 .venv/bin/python bench/s3_executor_probing.py --files 500,1000,2000,5000,10000 --repeats 3

Where, by file count, reading the footers and filters of a point lookup's candidate files in
a Spark job on the executors (``spark.sparkbloom.pruning.executorProbingAbove``, 20,000 by
default; jvm/.../read/ExecutorProbing.scala) beats reading them on the driver. For each
``--files`` count N, a table of N small Parquet files (one row group of ``--rows-per-file``
rows each: a unique long ``key`` spread so that every file's min/max spans the table, and a
24-character ``payload``; sparkbloom's filter on ``key``) is written on local disk and
uploaded straight to the loopback S3 server (dev/s3-server; ``SPARKBLOOM_S3_RUN`` picks its
directory). Every query then goes through a proxy that holds each HTTP request
``--delay-ms`` (bench/s3.py's LatencyProxy, which also counts and logs the requests).

Configurations, on the same files, each in a ``local-cluster[E,1,2048]`` session (``E`` =
``--executors`` executor JVMs of one core each): **driver** probing
(``executorProbingAbove=1000000000``) and **executor** probing (``executorProbingAbove=1``);
and, for reference, **local**: ``local[2]`` with driver probing (no executor JVMs).
``spark.sparkbloom.index.enabled=false`` (there is no index; this saves its LIST). The query:
``spark.read.parquet(path).where("key = <absent>").collect()``, a key no file holds and no
file's filter lets through (the setup picks it), so every file is probed and none is read.

Each measurement is a new process (JVM, S3A clients, sparkbloom's caches all new), warmed up
first by the same query on a table of its own (``--warmup-files`` tiny files: more than
ExecutorProbing's 2,000 files per task, so that both executors run a probing task and load
their S3A client and sparkbloom's classes before the measured query). Processes run one at a
time; within a round the configurations are interleaved (their order rotated per round).
Reported: wall seconds of the query (``spark.read.parquet``: listing and schema, then the
collect: planning with the probe, and the one task), ``probe_time_ms`` of
``sparkbloom.last_pruning``, the proxy's request counts, and for executor probing the job's
timeline from Spark's status store (submission to completion, each task's launch and run
time and executor). Medians over ``--repeats`` rounds; counts are the last round's; every
round's measurement is kept under ``runs``.

Writes bench/results/s3_executor_probing.json (or ``--output``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from s3 import LatencyProxy, request_kind, s3a_jars, server_env, spark_s3_conf
from s3_lookup import upload

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

HERE = Path(__file__).resolve().parent
#: keys are ((id * MULTIPLIER) mod 2^40) * 2: unique, even, spread over [0, 2^41) in every file
MULTIPLIER = 2654435761
MODULUS = 1 << 40
#: odd keys, which no file holds, inside every file's min/max: the setup takes the first from
#: here on that no file's filter lets through (at ~3e-5 false positives per filter, one file of
#: 10,000 may), so that every file is probed and none read
FIRST_ABSENT_KEY = (1 << 40) + 1
WARMUP_ABSENT_KEY = (1 << 39) + 1
CONFIGS = ("driver", "executor", "local")
#: executorProbingAbove of each configuration
THRESHOLDS = {"driver": "1000000000", "executor": "1", "local": "1000000000"}
PROBE_JOB = "sparkbloom: probing the footers"  # ExecutorProbing's job description
RESULT = "RESULT "


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", default="500,1000,2000,5000,10000", help="file counts N, comma-separated")
    parser.add_argument("--rows-per-file", type=int, default=2000)
    parser.add_argument("--warmup-files", type=int, default=2100)
    parser.add_argument("--executors", type=int, default=2, help="executor JVMs of the local-cluster sessions")
    parser.add_argument("--delay-ms", type=float, default=50.0)
    parser.add_argument("--repeats", type=int, default=3, help="rounds; each measures every configuration anew")
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting of the measured sessions (repeatable), e.g. spark.sparkbloom.pruning.parallelism=32",
    )
    parser.add_argument("--prefix", default="s3_executor_probing", help="the tables' key prefix in the bucket")
    parser.add_argument("--reuse", action="store_true", help="query the tables a previous run wrote")
    parser.add_argument("--work", default=str(HERE / "results" / "tmp" / "s3_executor_probing"))
    parser.add_argument("--output", default=str(HERE / "results" / "s3_executor_probing.json"))
    parser.add_argument("--role", default="main", help=argparse.SUPPRESS)
    parser.add_argument("--config", default="", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--absent-key", type=int, default=FIRST_ABSENT_KEY, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.counts = [int(n) for n in args.files.split(",") if n]
    if args.role == "setup":
        setup(args)
    elif args.role == "measure":
        measure(args)
    else:
        run(args)


def table_name(args: argparse.Namespace, files: int) -> str:
    return f"{args.prefix}/{args.rows_per_file}/{files}"


def warmup_name(args: argparse.Namespace) -> str:
    return f"{args.prefix}/warmup/{args.warmup_files}"


def url(name: str) -> str:
    return f"s3a://{os.environ['SPARKBLOOM_S3_BUCKET']}/{name}"


def child(args: argparse.Namespace, role: str, **extra: str) -> dict[str, Any]:
    """Runs this script in a new process with ``role`` and returns the JSON it printed."""
    command = [sys.executable, str(Path(__file__).resolve()), "--role", role]
    for key in ("files", "rows_per_file", "warmup_files", "executors", "delay_ms", "prefix", "work"):
        command += [f"--{key.replace('_', '-')}", str(getattr(args, key))]
    for setting in args.conf:
        command += ["--conf", setting]
    if args.reuse:
        command.append("--reuse")
    for key, value in extra.items():
        command += [f"--{key}", value]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT)]
    log = Path(args.work) / "logs" / "-".join([role, *extra.values()])
    log.parent.mkdir(parents=True, exist_ok=True)
    log.with_suffix(".log").write_text(done.stderr)
    if done.returncode != 0 or not lines:
        # Python's traceback, not the executors' shutdown noise that follows it
        error = done.stderr[done.stderr.rfind("Traceback") :] if "Traceback" in done.stderr else done.stderr
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}), log {log}.log:\n{error[:4000]}")
    result = json.loads(lines[-1][len(RESULT) :])
    result["process_seconds"] = time.perf_counter() - started
    return result


def run(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    os.environ.update(server_env(start=True))
    work, out = Path(args.work), Path(args.output)
    work.mkdir(parents=True, exist_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    prepared = child(args, "setup")
    tables, absent_key = prepared["tables"], prepared["absent_key"]
    for name, table in tables.items():
        print(f"table {name}: {table}", flush=True)
    print(f"absent key {absent_key}", flush=True)
    setup_seconds = time.perf_counter() - started
    configs = [c for c in args.configs.split(",") if c]
    runs: dict[int, dict[str, list[dict[str, Any]]]] = {n: {c: [] for c in configs} for n in args.counts}
    for round_ in range(args.repeats):
        for n in args.counts:
            # rotated, so that no configuration always runs first (on a server page cache
            # or a machine state the previous process left)
            shift = (round_ + args.counts.index(n)) % len(configs)
            for config in configs[shift:] + configs[:shift]:
                result = child(args, "measure", config=config, n=str(n), **{"absent-key": str(absent_key)})
                runs[n][config].append(result)
                # kept as it goes: a failure later leaves what was measured
                (work / "runs.json").write_text(json.dumps({str(k): v for k, v in runs.items()}, indent=2))
                q = result["query"]
                job = q.get("probe_job") or {}
                job_cell = f"  job {job['duration_ms']} ms, {len(job['tasks'])} tasks" if job else ""
                print(
                    f"round {round_} N {n:6d} {config:8s} {q['seconds']:7.3f} s  probe {q['pruning']['probe_time_ms']:6d} ms"
                    f"  read {q['read_seconds']:.3f} s  {counts_cell(q['requests'])}{job_cell}"
                    f"  (warm-up {result['warmup']['seconds']:.2f} s, process {result['process_seconds']:.0f} s)",
                    flush=True,
                )
    results = {str(n): {c: summarize(runs[n][c]) for c in configs} for n in args.counts}
    output = {
        "files": args.counts,
        "rows_per_file": args.rows_per_file,
        "executors": args.executors,
        "delay_ms": args.delay_ms,
        "repeats": args.repeats,
        "conf": args.conf,
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "jar": runs[args.counts[-1]][configs[-1]][-1].get("jar"),
        "sparkbloom_version": runs[args.counts[-1]][configs[-1]][-1].get("sparkbloom_version"),
        "tables": tables,
        "absent_key": absent_key,
        "setup_seconds": round(setup_seconds, 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "results": results,
        "runs": {str(n): runs[n] for n in args.counts},
    }
    out.write_text(json.dumps(output, indent=2))
    print_table(output)


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the rounds, with the last round's counts and job timeline."""
    last = runs[-1]["query"]

    def med(get: Any) -> float:
        return statistics.median(get(r["query"]) for r in runs)

    summary = {
        "seconds": med(lambda q: q["seconds"]),
        "read_seconds": med(lambda q: q["read_seconds"]),
        "collect_seconds": med(lambda q: q["collect_seconds"]),
        "probe_ms": med(lambda q: q["pruning"]["probe_time_ms"]),
        "all_seconds": [r["query"]["seconds"] for r in runs],
        "all_probe_ms": [r["query"]["pruning"]["probe_time_ms"] for r in runs],
        "load_average": statistics.median(r["query"]["load_average"][0] for r in runs),
        "warmup_seconds": [r["warmup"]["seconds"] for r in runs],
        "warmup_probe_ms": [r["warmup"]["pruning"]["probe_time_ms"] for r in runs],
        "last": last,
    }
    jobs = [r["query"]["probe_job"] for r in runs if r["query"].get("probe_job")]
    if jobs:
        summary["probe_job_ms"] = statistics.median(j["duration_ms"] for j in jobs)
        summary["probe_job_submitted_after_collect_start_ms"] = statistics.median(
            j["submitted_after_collect_start_ms"] for j in jobs
        )
        summary["all_probe_job_ms"] = [j["duration_ms"] for j in jobs]
    return summary


def counts_cell(requests: dict[str, int]) -> str:
    return f"GET {requests['GET']} HEAD {requests['HEAD']} LIST {requests['LIST']}"


# ---------------------------------------------------------------------------------------------
# setup: the tables, written on local disk and uploaded straight to the server


def setup(args: argparse.Namespace) -> None:
    from pyspark.sql import functions as F

    import sparkbloom

    env = server_env(start=False)
    # footers and filters cached, so that trying another absent key reads nothing again
    cache = {"spark.sparkbloom.cache.maxBytes": str(2 << 30), "spark.sparkbloom.index.enabled": "false"}
    spark = session("local[2]", "sparkbloom-bench-s3-executor-probing-setup", env, None, cache)
    meta_path = Path(args.work) / "tables.json"
    meta: dict[str, Any] = json.loads(meta_path.read_text()) if args.reuse and meta_path.exists() else {}
    wanted = [(warmup_name(args), args.warmup_files, 20)] + [
        (table_name(args, n), n, args.rows_per_file) for n in args.counts
    ]
    for name, files, rows_per_file in wanted:
        if name in meta:
            continue
        started = time.perf_counter()
        rows = files * rows_per_file
        # a few tasks, each cutting its rows into files of rows_per_file (one row group each)
        data = spark.range(0, rows, 1, math.gcd(files, 8)).select(
            (((F.col("id") * MULTIPLIER) % MODULUS) * 2).alias("key"),
            F.sha2(F.col("id").cast("string"), 256).substr(1, 24).alias("payload"),
        )
        local = Path(args.work) / "upload" / name.replace("/", "_")
        shutil.rmtree(local, ignore_errors=True)
        options = {**sparkbloom.write_options(["key"]), "maxRecordsPerFile": str(rows_per_file)}
        data.write.options(**options).parquet(str(local))
        written = time.perf_counter()
        upload(spark, local, url(name))
        uploaded = time.perf_counter()
        sizes = [f.stat().st_size for f in local.iterdir() if f.name.endswith(".parquet")]
        shutil.rmtree(local, ignore_errors=True)
        assert len(sizes) == files, (name, len(sizes))
        assert spark.read.parquet(url(name)).where(f"key = {WARMUP_ABSENT_KEY}").count() == 0
        meta[name] = {
            "files": files,
            "rows_per_file": rows_per_file,
            "bytes": sum(sizes),
            "mean_file_bytes": round(sum(sizes) / files),
            "write_seconds": round(written - started, 1),
            "upload_seconds": round(uploaded - written, 1),
        }
        meta_path.parent.mkdir(parents=True, exist_ok=True)
        meta_path.write_text(json.dumps(meta, indent=2))
        print(f"{name}: {meta[name]}", file=sys.stderr, flush=True)
    absent_key = absent_everywhere(spark, [table_name(args, n) for n in args.counts])
    spark.stop()
    tables = {name: meta[name] for name, _, _ in wanted}
    print(RESULT + json.dumps({"tables": tables, "absent_key": absent_key}), flush=True)


def absent_everywhere(spark: SparkSession, names: list[str]) -> int:
    """The first odd key from FIRST_ABSENT_KEY on that every file of every table rules out."""
    import sparkbloom

    for key in range(FIRST_ABSENT_KEY, FIRST_ABSENT_KEY + 200, 2):
        for name in names:
            rows = spark.read.parquet(url(name)).where(f"key = {key}").collect()
            pruning = sparkbloom.last_pruning(spark)
            if rows or pruning["files_skipped"] != pruning["files_total"]:
                print(
                    f"key {key}: {name} keeps {pruning['files_total'] - pruning['files_skipped']} files",
                    file=sys.stderr,
                )
                break
        else:
            return key
    raise RuntimeError("no key that every file rules out")


# ---------------------------------------------------------------------------------------------
# measure: one process, one configuration, one table: a warm-up query, then the query


def session(master: str, app: str, env: dict[str, str], endpoint: str | None, extra: dict[str, str]) -> SparkSession:
    import sparkbloom

    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.memory": "2g",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.shuffle.partitions": "8",
        "spark.jars": ",".join(s3a_jars("4.3")),
        **spark_s3_conf(env, endpoint),
        **extra,
    }
    spark = sparkbloom.session(master=master, app_name=app, conf=settings)
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def executor_ids(sc: Any) -> list[str]:
    ids = sc.getExecutorIds()  # a Scala Seq
    return sorted(str(ids.apply(i)) for i in range(ids.size()))


def wait_for_executors(spark: SparkSession, executors: int, timeout: float = 180) -> None:
    sc = spark.sparkContext._jsc.sc()  # type: ignore[union-attr]
    deadline = time.monotonic() + timeout
    while sc.getExecutorIds().size() < executors:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{sc.getExecutorIds().size()} of {executors} executors registered")
        time.sleep(0.2)


def measure(args: argparse.Namespace) -> None:
    import sparkbloom

    env = server_env(start=False)
    cluster = args.config != "local"
    master = f"local-cluster[{args.executors},1,2048]" if cluster else "local[2]"
    extra = {
        "spark.sparkbloom.index.enabled": "false",
        "spark.sparkbloom.pruning.executorProbingAbove": THRESHOLDS[args.config],
    }
    if cluster:
        extra["spark.executor.memory"] = "1536m"
    extra.update(setting.split("=", 1) for setting in args.conf)
    table, warmup = url(table_name(args, args.n)), url(warmup_name(args))
    with LatencyProxy(env["SPARKBLOOM_S3_ENDPOINT"], args.delay_ms, log_requests=True) as proxy:
        spark = session(master, f"sparkbloom-bench-s3-executor-probing-{args.config}", env, proxy.endpoint, extra)
        if cluster:
            wait_for_executors(spark, args.executors)
        jvm_sc = spark.sparkContext._jsc.sc()  # type: ignore[union-attr]

        def once(path: str, key: int, measured: bool) -> dict[str, Any]:
            load = os.getloadavg()[0]
            before, logged = proxy.counts(), len(proxy.requests())
            at = time.monotonic() - proxy._started  # the proxy log's clock
            wall = time.time()
            started = time.perf_counter()
            df = spark.read.parquet(path)
            read = time.perf_counter()
            rows = df.where(f"key = {key}").collect()
            done = time.perf_counter()
            after = proxy.counts()
            pruning = sparkbloom.last_pruning(spark)
            # the warm-up table's 64-byte filters may let a file through; the table's may not
            assert not rows and (pruning["files_skipped"] == pruning["files_total"] or not measured), pruning
            collect_wall = (wall + (read - started), wall + (done - started))
            return {
                "seconds": done - started,
                "read_seconds": read - started,
                "collect_seconds": done - read,
                "pruning": pruning,
                "requests": {k: after[k] - before[k] for k in after},
                "data_file_gets": data_file_gets(proxy.requests()[logged:], path, at),
                "probe_job": probe_job(jvm_sc, *collect_wall) if cluster else None,
                "executors": executor_ids(jvm_sc) if cluster else [],
                "load_average": [round(load, 2), round(os.getloadavg()[0], 2)],  # before, after
            }

        warm = once(warmup, WARMUP_ABSENT_KEY, measured=False)
        query = once(table, args.absent_key, measured=True)
        jar = {"jar": sparkbloom.jar_path(), "sparkbloom_version": sparkbloom.version(spark)}
        spark.stop()
    print(RESULT + json.dumps({"warmup": warm, "query": query, **jar}), flush=True)


def data_file_gets(log: list[tuple[str, str, str, str]], path: str, at: float) -> dict[str, Any]:
    """The GETs of the table's Parquet files in a query's request log: how many, of how many
    files, and when the first and the last arrived (seconds from the query's start)."""
    prefix = "/" + urlsplit(path).netloc + urlsplit(path).path + "/"
    times, names = [], set()
    for method, target, _, arrived in log:
        name = unquote(urlsplit(target).path)
        if request_kind(method, target) == "GET" and name.startswith(prefix) and name.endswith(".parquet"):
            times.append(float(arrived) - at)
            names.add(name)
    if not times:
        return {"gets": 0}
    return {"gets": len(times), "files": len(names), "first_s": round(min(times), 3), "last_s": round(max(times), 3)}


def probe_job(sc: Any, collect_started: float, collect_done: float) -> dict[str, Any] | None:
    """ExecutorProbing's job of the collect run from ``collect_started`` to ``collect_done``
    (epoch seconds), from Spark's status store: its submission and completion relative to the
    collect's, and each task's executor, launch and times."""
    sc.listenerBus().waitUntilEmpty()
    store = sc.statusStore()
    jobs = store.jobsList(None)  # a Scala Seq
    for j in range(jobs.size()):
        job = jobs.apply(j)
        description = str(job.description().get()) if job.description().isDefined() else ""
        if not description.startswith(PROBE_JOB) or not job.submissionTime().isDefined():
            continue
        submitted = job.submissionTime().get().getTime()
        if submitted < collect_started * 1000 - 5:
            continue  # the warm-up's
        completed = job.completionTime().get().getTime()
        tasks = []
        stages = job.stageIds()
        for i in range(stages.size()):
            stage = stages.apply(i)
            listed = store.taskList(stage, 0, 10_000)
            for t in range(listed.size()):
                task = listed.apply(t)
                metrics = task.taskMetrics().get() if task.taskMetrics().isDefined() else None
                tasks.append(
                    {
                        "executor": str(task.executorId()),
                        "launched_after_submit_ms": task.launchTime().getTime() - submitted,
                        "duration_ms": int(task.duration().get()) if task.duration().isDefined() else None,
                        "run_ms": int(metrics.executorRunTime()) if metrics is not None else None,
                        "deserialize_ms": int(metrics.executorDeserializeTime()) if metrics is not None else None,
                        "result_bytes": int(metrics.resultSize()) if metrics is not None else None,
                    }
                )
        tasks.sort(key=lambda t: t["launched_after_submit_ms"])
        return {
            "description": description,
            "duration_ms": completed - submitted,
            "submitted_after_collect_start_ms": round(submitted - collect_started * 1000),
            "completed_before_collect_end_ms": round(collect_done * 1000 - completed),
            "tasks": tasks,
        }
    return None


# ---------------------------------------------------------------------------------------------
# reporting


def print_table(output: dict[str, Any]) -> None:
    results = output["results"]
    print(
        f"\n{output['executors']} executors of 1 core, {output['delay_ms']:g} ms per request, "
        f"{output['rows_per_file']} rows per file, medians of {output['repeats']}; settings {output['conf']}"
    )
    print(
        "| files | driver probing: query s (probe s) | executor probing: query s (probe s, job s) "
        "| driver / executor (query) | local[2] driver probing: query s (probe s) | requests (GET / HEAD / LIST) |"
    )
    print("|---|---|---|---|---|---|")
    for n, by_config in results.items():
        d, e, loc = by_config.get("driver"), by_config.get("executor"), by_config.get("local")
        cells = [
            f"{d['seconds']:.2f} ({d['probe_ms'] / 1000:.2f})" if d else "-",
            f"{e['seconds']:.2f} ({e['probe_ms'] / 1000:.2f}, {e.get('probe_job_ms', 0) / 1000:.2f})" if e else "-",
            f"{d['seconds'] / e['seconds']:.2f}x" if d and e else "-",
            f"{loc['seconds']:.2f} ({loc['probe_ms'] / 1000:.2f})" if loc else "-",
            " ; ".join(
                f"{c} {r['last']['requests']['GET']} / {r['last']['requests']['HEAD']} / {r['last']['requests']['LIST']}"
                for c, r in by_config.items()
            ),
        ]
        print(f"| {int(n):,} | {' | '.join(cells)} |")
    print("\nexecutor probing, last round's job (task: executor, launched after submission ms, run ms):")
    for n, by_config in results.items():
        job = by_config.get("executor", {}).get("last", {}).get("probe_job")
        if job:
            tasks = ", ".join(f"{t['executor']}@{t['launched_after_submit_ms']}+{t['run_ms']}" for t in job["tasks"])
            print(
                f"  N {n}: job {job['duration_ms']} ms, submitted {job['submitted_after_collect_start_ms']} ms "
                f"after the collect began, done {job['completed_before_collect_end_ms']} ms before it ended; {tasks}"
            )


if __name__ == "__main__":
    main()
