# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Shared pieces of the benchmarks: the dataset, the layouts, and measuring a query."""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import sparkbloom


def lookup_table_arguments(parser: argparse.ArgumentParser, work: str, shapes: bool = True) -> None:
    """The command-line options of the benchmarks over the lookup table (bench/README.md)."""
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--row-groups-per-file", type=int, default=5)
    if shapes:
        parser.add_argument("--large-files", type=int, default=16)
        parser.add_argument("--shapes", default="small,large")
    parser.add_argument("--work", default=work)


def repeats_and_output(parser: argparse.ArgumentParser, name: str) -> None:
    """``--repeats`` and ``--output`` (bench/results/<name>.json): another run (another Spark
    line, a reduced size) names its own output, so the published results stay."""
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--output", default=str(Path(__file__).resolve().parent / "results" / f"{name}.json"))


def fresh_run(
    args: argparse.Namespace, app: str, extra: dict[str, str] | None = None
) -> tuple[SparkSession, Path, Path]:
    """The benchmark's session, an empty work directory and the output path (its directory made)."""
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    spark = bench_session(app, extra)
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    return spark, work, out


def bench_session(app: str, extra: dict[str, str] | None = None) -> SparkSession:
    spark = sparkbloom.session(
        master="local[2]",
        app_name=app,
        conf={
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.driver.memory": "6g",
            "spark.sql.shuffle.partitions": "8",
            # bytes are measured from the file system's counters: no vectored reads
            "spark.hadoop.parquet.hadoop.vectored.io.enabled": "false",
            **(extra or {}),
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def dataset(spark: SparkSession, rows: int, user_ids: int, partitions: int) -> DataFrame:
    """uuid (unique string), user_id (~user_ids distinct), country (~50), amount, payload;
    shuffled so min/max statistics cannot prune."""
    h = F.md5(F.col("id").cast("string"))
    uuid = F.concat_ws("-", h.substr(1, 8), h.substr(9, 4), h.substr(13, 4), h.substr(17, 4), h.substr(21, 12))
    return (
        spark.range(0, rows, 1, partitions)
        .select(
            uuid.alias("uuid"),
            ((F.col("id") * 7919) % user_ids).alias("user_id"),
            F.concat(F.lit("C"), (F.col("id") % 50).cast("string")).alias("country"),
            (F.col("id") % 10000 / 100.0).alias("amount"),
            F.sha2(F.col("id").cast("string"), 256).substr(1, 40).alias("payload"),
        )
        .repartition(partitions, F.rand(seed=11))
    )


def lookup_table(spark: SparkSession, rows: int, files: int) -> DataFrame:
    """The lookup benchmarks' table (user_id ~rows/10 distinct), shuffled into ``files``
    partitions once and kept on disk, so every layout is written from the same rows."""
    data = dataset(spark, rows, user_ids=max(1, rows // 10), partitions=files).persist(StorageLevel.DISK_ONLY)
    data.count()
    return data


def block_size(rows_per_group: int) -> str:
    """``parquet.block.size`` for row groups of about ``rows_per_group`` rows of this table
    (~110 bytes a row in parquet-java's write buffers)."""
    return str(max(1 << 20, rows_per_group * 110))


#: Write options of each layout: (a) none, (b)-(d) parquet-java's own, (e) sparkbloom.
def layouts(ndv_per_row_group: dict[str, int]) -> dict[str, dict[str, str]]:
    pj = {f"parquet.bloom.filter.enabled#{c}": "true" for c in ("uuid", "user_id")}
    # sparkbloom first: the first layout measured pays for JIT warm-up, so (e) is never
    # favoured by running after the others.
    return {
        "e_sparkbloom": sparkbloom.write_options(["uuid", "user_id"]),
        "a_none": {},
        "b_pj_default": pj,
        "c_pj_ndv": {**pj, **{f"parquet.bloom.filter.expected.ndv#{c}": str(n) for c, n in ndv_per_row_group.items()}},
        "d_pj_adaptive": {
            **pj,
            "parquet.bloom.filter.adaptive.enabled": "true",
            "parquet.bloom.filter.candidates.number": "5",
        },
    }


def fs_bytes_read(spark: SparkSession) -> int:
    """Bytes read from the local file system by this JVM (driver and, locally, executors)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    total = 0
    for stats in jvm.org.apache.hadoop.fs.FileSystem.getAllStatistics():
        if stats.getScheme() == "file":
            total += stats.getBytesRead()
    return int(total)


@dataclass
class Measured:
    seconds: float
    tasks: int
    files_read: int
    bytes_read: int
    result: Any
    frame: DataFrame


def measure_once(spark: SparkSession, run: Callable[[], DataFrame]) -> Measured:
    """One run of a query: wall time, tasks, data files read and bytes read."""
    sc = spark.sparkContext
    group = f"bench-{time.monotonic_ns()}"
    sc.setJobGroup(group, group)
    before = fs_bytes_read(spark)
    start = time.perf_counter()
    df = run()
    result = df.collect()
    seconds = time.perf_counter() - start
    read = fs_bytes_read(spark) - before
    tasks = tasks_of_group(spark, group)
    sc.setJobGroup("", "")
    return Measured(seconds, tasks, scan_files_read(df), read, result, df)


def tasks_of_group(spark: SparkSession, group: str) -> int:
    tracker = spark.sparkContext.statusTracker()
    tasks = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info else []:
            stage_info = tracker.getStageInfo(stage)
            tasks += stage_info.numTasks if stage_info else 0
    return tasks


def planning_tasks(spark: SparkSession, plan: Callable[[], DataFrame]) -> int:
    """Tasks that planning a query runs (Delta's data skipping is a Spark job over its log)."""
    group = f"plan-{time.monotonic_ns()}"
    spark.sparkContext.setJobGroup(group, group)
    plan()._jdf.queryExecution().executedPlan()
    tasks = tasks_of_group(spark, group)
    spark.sparkContext.setJobGroup("", "")
    return tasks


Results = dict[str, dict[str, dict[str, float]]]


def interleaved(
    spark: SparkSession,
    layouts: list[str],
    queries: list[str],
    repeats: int,
    sparkbloom_layout: str | set[str],
    run: Callable[[str, str], DataFrame],
    counts: Callable[[str, str, Measured], dict[str, float]],
) -> Results:
    """Every query on every layout, layouts interleaved within each round, sparkbloom on for
    its layout(s) only (the others are vanilla Spark): per layout and query, the median seconds
    and the last round's ``counts`` (of layout, query and measurement). Round 0 warms up (JIT, caches) and is not counted."""
    times: dict[tuple[str, str], list[float]] = {}
    last: dict[tuple[str, str], dict[str, float]] = {}
    for round_ in range(repeats + 1):
        for query in queries:
            for layout in layouts:
                on = layout in sparkbloom_layout if isinstance(sparkbloom_layout, set) else layout == sparkbloom_layout
                spark.conf.set("spark.sparkbloom.enabled", str(on).lower())
                m = measure_once(spark, lambda layout=layout, query=query: run(layout, query))
                if round_ == 0:
                    continue
                times.setdefault((layout, query), []).append(m.seconds)
                last[(layout, query)] = {
                    "tasks": m.tasks,
                    "files_read": m.files_read,
                    "bytes_read": m.bytes_read,
                    **counts(layout, query, m),
                }
        print(f"round {round_} done", flush=True)
    spark.conf.unset("spark.sparkbloom.enabled")
    results: Results = {}
    for (layout, query), seconds in times.items():
        results.setdefault(layout, {})[query] = {"seconds": statistics.median(seconds), **last[(layout, query)]}
    return results


def scan_files_read(df: DataFrame) -> int:
    """The scans' ``number of files read`` metric of an executed DataFrame."""
    return plan_metric(df, "numFiles")


def plan_metric(df: DataFrame, metric: str) -> int:
    """A SQL metric summed over the nodes of an executed DataFrame's plan (adaptive stages,
    subqueries excluded)."""
    plan = df._jdf.queryExecution().executedPlan()
    total = 0
    nodes = [plan]
    while nodes:
        node = nodes.pop()
        metrics = node.metrics()
        if metrics.contains(metric):
            total += int(metrics.apply(metric).value())
        children = node.children()
        nodes.extend(children.apply(i) for i in range(children.size()))
        name = node.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            nodes.append(node.executedPlan())
        elif name.endswith("QueryStageExec"):
            nodes.append(node.plan())
    return total


def print_format_table(
    title: str,
    results: Results,
    sizes: dict[str, int],
    sparkbloom_layout: str,
    baselines: tuple[str, str],
    counted: tuple[str, str],
) -> None:
    """A table-format benchmark's Markdown table: per query and layout the seconds and two
    counts, and how many times faster sparkbloom's layout ran than each baseline ((a), (b)),
    then each layout's bytes on disk."""
    names = sorted(results)
    print(f"\n{title}")
    print("| query | " + " | ".join(names) + " | (a)/(c) | (b)/(c) |")
    print("|---" * (len(names) + 3) + "|")
    for q in results[names[0]]:
        cells = [
            " / ".join([f"{results[n][q]['seconds']:.3f}"] + [f"{int(results[n][q][k])}" for k in counted])
            for n in names
        ]
        c = results[sparkbloom_layout][q]["seconds"]
        ratios = [f"{results[b][q]['seconds'] / c:.1f}x" for b in baselines]
        print(f"| {q} | " + " | ".join(cells + ratios) + " |")
    print(
        "\ntable bytes: "
        + ", ".join(f"{n} {sizes[n]:,}" for n in names)
        + f"; (c)/(a) {sizes[sparkbloom_layout] / sizes[baselines[0]]:.3f}"
        + f", (b)/(a) {sizes[baselines[1]] / sizes[baselines[0]]:.3f}"
    )
