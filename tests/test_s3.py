# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Parquet on s3a:// against a real S3 server on loopback (SeaweedFS, dev/s3-server), with each
Spark line's S3A jars (dev/s3-jars). Plain Spark, without sparkbloom: the S3 groundwork.

Each case runs Spark in a child process, as the JVM needs the S3A jars at start (this process's
shared session has none) and another line's case runs that line's venv (dev/lines). The server,
the lines' interpreters and jars come from tests/s3_support.py; a server that cannot be
installed or started fails the tests that need it."""

from __future__ import annotations

import subprocess
import textwrap

import pytest
from s3_support import CURRENT_LINE, line_python, s3_jars

pytestmark = pytest.mark.s3


# Writes 1,000 rows as Parquet in 2 files to s3a://<bucket>/<argv[1]>, reads them back, and
# prints what it read.
ROUND_TRIP = textwrap.dedent(
    """
    import glob, os, sys
    from pyspark.sql import SparkSession
    jars, table = sys.argv[1], sys.argv[2]
    builder = (
        SparkSession.builder.master("local[1]")
        .config("spark.jars", ",".join(sorted(glob.glob(jars + "/*.jar"))))
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
    )
    for setting in os.environ["SPARKBLOOM_S3_SPARK_CONF"].split():
        builder = builder.config(*setting.split("=", 1))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    path = "s3a://%s/%s" % (os.environ["SPARKBLOOM_S3_BUCKET"], table)
    spark.range(1000).selectExpr("id", "cast(id % 7 as string) as s").repartition(2).write.parquet(path)
    rows = spark.read.parquet(path).where("id < 3 or id = 999").orderBy("id").collect()
    files = spark.read.parquet(path).inputFiles()
    print("ROWS", [(r.id, r.s) for r in rows], spark.read.parquet(path).count())
    print("FILES", len(files), all(f.startswith(path + "/part-") for f in files))
    spark.stop()
    """
)


@pytest.mark.parametrize("line", sorted({CURRENT_LINE, "3.5"}))
def test_parquet_round_trip_through_s3a(s3_env: dict[str, str], line: str) -> None:
    python = line_python(line)
    if python is None:
        pytest.skip(f"no venv for Spark {line} (dev/setup makes it)")
    table = f"round-trip-{line}"
    done = subprocess.run(
        [str(python), "-c", ROUND_TRIP, str(s3_jars(line)), table],
        env=s3_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.splitlines()
    assert "ROWS [(0, '0'), (1, '1'), (2, '2'), (999, '5')] 1000" in out, done.stdout
    assert "FILES 2 True" in out, done.stdout
