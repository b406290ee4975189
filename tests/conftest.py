# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""One real local SparkSession with sparkbloom, shared by every test (startup is slow)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pyspark.sql import SparkSession
from s3_support import start_s3_server, stop_s3_server

import sparkbloom
from sparkbloom import cli

# The Delta Lake and Iceberg tests need sessions of their own (the format's jars, catalog and
# extension): they run as their own pytest runs, `pytest tests/delta` and `pytest
# tests/iceberg` (dev/test does).
collect_ignore = ["delta", "iceberg"]


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    session = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-tests",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.driver.memory": "2g",
            # Spark 4's default, named so every line writes ancient dates alike (3.5 refuses them)
            "spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
            "spark.sql.parquet.int96RebaseModeInWrite": "CORRECTED",
        },
    )
    session.sparkContext.setLogLevel("WARN")
    yield session
    session.stop()


CliHere = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli_here(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> CliHere:
    """Runs what the `sparkbloom` command runs, from parsing to exit code, in this process on
    the shared session (one exists, so the CLI's settings that are not runtime settings are
    ignored): (exit code, stdout, stderr). A command in a process of its own starts a JVM,
    ~15 s on 2 cores; the tests that need one (entry point, exit status, --conf, --master)
    still run it so."""

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = cli.main(list(args))
        finally:
            spark.sparkContext.setLogLevel("WARN")  # the CLI quiets its session; this one is shared
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session")
def s3_env() -> Iterator[dict[str, str]]:
    """The environment of the S3 server on loopback (tests/s3_support.py), started for the
    run's first test that asks for it and stopped after the run's last."""
    env = start_s3_server()
    try:
        yield env
    finally:
        stop_s3_server()
