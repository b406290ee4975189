# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Runs in its own process (one SparkContext per process): sparkbloom on a
local-cluster[2,1,1024] session, executors in separate JVMs, the jar shipped through
spark.jars. Prints one JSON line of findings for tests/test_local_cluster.py."""

from __future__ import annotations

import json
import sys
import threading
import time

from pyspark.sql import functions as F

import sparkbloom

ROWS = 200_000


def main(root: str) -> None:
    spark = sparkbloom.session(
        master="local-cluster[2,1,1024]",
        app_name="sparkbloom-local-cluster",
        conf={
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.task.maxFailures": "8",
            "spark.executor.memory": "768m",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    findings: dict[str, object] = {"version": sparkbloom.version()}

    def data(slow: bool):  # type: ignore[no-untyped-def]
        keys = spark.range(0, ROWS, 1, 8).select(F.col("id").alias("k"), F.concat(F.lit("v"), F.col("id")).alias("s"))
        if slow:  # a few sleeps per task, so an executor can be killed while the write runs
            # reflect is nondeterministic, so the optimizer keeps the sleeps
            pause = F.when(
                F.col("k") % 20000 == 0, F.expr("reflect('java.lang.Thread', 'sleep', cast(1500 as bigint))")
            )
            keys = keys.where(F.coalesce(pause, F.lit("go")) != F.lit("never"))
        return keys

    # 1. write with filters on executors, prune on the driver
    path = f"{root}/plain"
    data(slow=False).write.options(**sparkbloom.write_options(["k", "s"])).parquet(path)
    findings["present"] = spark.read.parquet(path).where(F.col("s") == "v4242").count()
    findings["pruning"] = sparkbloom.last_pruning(spark)
    findings["absent"] = spark.read.parquet(path).where(F.col("k") == -5).count()
    findings["pruning_absent"] = sparkbloom.last_pruning(spark)
    findings["filters"] = sparkbloom.inspect(spark, path, ["k"]).where("has_filter").count()
    findings["chunks"] = sparkbloom.inspect(spark, path, ["k"]).count()

    # 2. keys from a join's broadcast (built on an executor, shipped to the driver) prune
    dim_path = f"{root}/dim"
    spark.range(0, 20, 1, 1).select((F.col("id") * 7).alias("k"), F.lit("a").alias("segment")).write.parquet(dim_path)
    dim = spark.read.parquet(dim_path).where(F.col("segment") == "a")
    joined = spark.read.parquet(path).join(F.broadcast(dim), "k")
    findings["join_rows"] = joined.count()
    findings["join_pruning"] = sparkbloom.last_pruning(spark)
    findings["join_broadcast"] = "BroadcastHashJoin" in joined._jdf.queryExecution().executedPlan().toString()

    # 3. footers probed by a job on the executors (listings above the threshold), whose caches
    # follow the driver's invalidations and budget
    spark.conf.set("spark.sparkbloom.pruning.executorProbingAbove", "2")
    findings["probed_present"] = spark.read.parquet(path).where(F.col("s") == "v4242").count()
    findings["probed_pruning"] = sparkbloom.last_pruning(spark)
    spark.sql(f"REFRESH '{path}'")
    findings["probed_after_refresh"] = spark.read.parquet(path).where(F.col("k") == 77).count()
    spark.conf.set("spark.sparkbloom.cache.maxBytes", "0")
    findings["probed_uncached"] = spark.read.parquet(path).where(F.col("k") == -5).count()
    findings["probed_uncached_pruning"] = sparkbloom.last_pruning(spark)
    spark.conf.unset("spark.sparkbloom.cache.maxBytes")
    spark.conf.unset("spark.sparkbloom.pruning.executorProbingAbove")

    # 4. an executor killed during a write; the retried job's output must be complete
    killed: dict[str, object] = {"ok": False}

    def kill_one_executor() -> None:
        deadline = time.time() + 60
        while time.time() < deadline:
            if sc.statusTracker().getActiveStageIds():
                time.sleep(1.0)
                ids = sc._jsc.sc().getExecutorIds()  # a Scala Seq
                if ids.size() > 0:
                    killed["id"] = ids.apply(0)
                    killed["ok"] = bool(sc._jsc.sc().killExecutor(ids.apply(0)))
                return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_one_executor)
    killer.start()
    retried = f"{root}/retried"
    data(slow=True).write.options(**sparkbloom.write_options(["k"])).parquet(retried)
    killer.join()
    findings["killed"] = killed["ok"]
    table = spark.read.parquet(retried)
    findings["retried_rows"] = table.count()
    findings["retried_distinct"] = table.select("k").distinct().count()
    findings["retried_lookup"] = table.where(F.col("k") == 123457).count()
    findings["retried_filters_missing"] = sparkbloom.inspect(spark, retried, ["k"]).where("not has_filter").count()
    print("FINDINGS " + json.dumps(findings))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
