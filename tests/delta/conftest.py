# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""One real local SparkSession with Delta Lake and sparkbloom, shared by the Delta tests.

These tests need a session of their own (Delta's catalog and extension), so they run as
their own pytest run: ``tests/conftest.py`` leaves this directory out of ``pytest tests``.
Spark lines without a Delta release (see ``dev/spark-lines``) skip them, saying so.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from delta_session import DELTA_EXTENSION, delta_release, session_conf
from pyspark.sql import SparkSession
from table_formats import LINE

import sparkbloom


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    if delta_release() is None:
        pytest.skip(f"Delta Lake has no release for Spark {LINE} (dev/spark-lines)")
    import delta  # noqa: F401  (the PyPI package is installed with the line's pyspark)

    builder = SparkSession.builder.master("local[2]").appName("sparkbloom-delta-tests")
    for key, value in session_conf(tmp_path_factory.mktemp("warehouse")).items():
        builder = builder.config(key, value)
    # Delta's extension first: sparkbloom's own order is tested in a child process
    session = sparkbloom.configure(builder.config("spark.sql.extensions", DELTA_EXTENSION)).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def table_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "table"
    yield path
    shutil.rmtree(path, ignore_errors=True)
