# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""One real local SparkSession with sparkbloom, shared by every test (startup is slow)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

import sparkbloom

# The Delta Lake tests need a session of their own (Delta's jars, catalog and extension):
# they run as their own pytest run, `pytest tests/delta` (dev/test does).
collect_ignore = ["delta"]


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
