# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Where Apache Iceberg comes from for the Iceberg tests, and how their sessions are set up.

Iceberg's Spark runtime jar comes from Maven Central through ``dev/iceberg-jars``
(``.cache/iceberg/<line>``); it is self-contained. Tables live in a Hadoop catalog
(``ice``) under a temporary warehouse: real Iceberg metadata and files on the local disk.
"""

from __future__ import annotations

from pathlib import Path

import pyspark
import pytest

ROOT = Path(__file__).resolve().parents[2]
LINE = ".".join(pyspark.__version__.split(".")[:2])
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"


def iceberg_release() -> str | None:
    """The Iceberg release dev/spark-lines names for this Spark line, if any."""
    for row in (ROOT / "dev" / "spark-lines").read_text().splitlines():
        fields = row.split()
        if fields and not row.startswith("#") and fields[0] == LINE:
            return None if len(fields) < 6 or fields[5] == "-" else fields[5]
    return None


def iceberg_jars() -> list[str]:
    jars = sorted(str(p) for p in (ROOT / ".cache" / "iceberg" / LINE / "jars").glob("*.jar"))
    if len(jars) != 1:
        pytest.fail(f"Iceberg's runtime jar for Spark {LINE} is missing from .cache/iceberg: run dev/setup")
    return jars


def session_conf(warehouse: Path) -> dict[str, str]:
    return {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.driver.memory": "2g",
        "spark.jars": ",".join(iceberg_jars()),
        "spark.sql.extensions": ICEBERG_EXTENSION,
        "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.ice.type": "hadoop",
        "spark.sql.catalog.ice.warehouse": str(warehouse),
    }
