# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""One real local SparkSession with Apache Iceberg and sparkbloom, shared by the Iceberg tests.

These tests need a session of their own (Iceberg's catalog and extension), so they run as
their own pytest run: ``tests/conftest.py`` leaves this directory out of ``pytest tests``.
Spark lines without an Iceberg release (see ``dev/spark-lines``) skip them, saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from iceberg_session import iceberg_release, session_conf
from pyspark.sql import SparkSession
from table_formats import LINE

import sparkbloom


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("warehouse")


@pytest.fixture(scope="session")
def spark(warehouse: Path) -> Iterator[SparkSession]:
    if iceberg_release() is None:
        pytest.skip(f"Apache Iceberg has no release for Spark {LINE} (dev/spark-lines)")
    builder = SparkSession.builder.master("local[2]").appName("sparkbloom-iceberg-tests")
    for key, value in session_conf(warehouse).items():
        builder = builder.config(key, value)
    session = sparkbloom.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
