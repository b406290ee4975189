# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Where Delta Lake comes from for the Delta tests, and how their sessions are set up.

Delta's jars come from Maven Central through ``dev/delta-jars`` (``.cache/delta/<line>``;
Spark's ``--packages`` cannot reach a registry here) and its Python package from PyPI
(``delta-spark``, installed by ``dev/setup-venv``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from table_formats import jars, local_session_conf, release

DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"


def delta_release() -> str | None:
    """The Delta Lake release dev/spark-lines names for this Spark line, if any."""
    return release("delta")


def delta_jars() -> list[str]:
    return jars("delta", 2)


def session_conf(warehouse: Path) -> dict[str, str]:
    return {
        **local_session_conf("delta", 2),
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.sql.warehouse.dir": str(warehouse),
        # Delta replays its log in this many tasks (50 by default): small tables, few cores
        "spark.databricks.delta.snapshotPartitions": "2",
        # timestamps as INT64 micros, which Bloom filters can cover (not INT96)
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    }


def run_child(script: str, *args: str) -> str:
    """Runs a Python script in a fresh process (its own JVM), returning its output."""
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    return done.stdout
