"""One real local SparkSession with sparkbloom, shared by every test (startup is slow)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

import sparkbloom


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    session = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-tests",
        conf={
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.driver.memory": "2g",
        },
    )
    session.sparkContext.setLogLevel("WARN")
    yield session
    session.stop()
