# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The table formats' releases per Spark line (dev/spark-lines) and their jars in .cache/,
for the Delta Lake and Iceberg tests (each a pytest run of its own)."""

from __future__ import annotations

from pathlib import Path

import pyspark
import pytest

ROOT = Path(__file__).resolve().parents[1]
LINE = ".".join(pyspark.__version__.split(".")[:2])
COLUMNS = {"delta": 5, "iceberg": 6}


def release(table_format: str) -> str | None:
    """The release of `table_format` dev/spark-lines names for this Spark line, if any."""
    column = COLUMNS[table_format]
    for row in (ROOT / "dev" / "spark-lines").read_text().splitlines():
        fields = row.split()
        if fields and not row.startswith("#") and fields[0] == LINE:
            return None if len(fields) < column or fields[column - 1] == "-" else fields[column - 1]
    return None


def jars(table_format: str, count: int) -> list[str]:
    """The `count` jars dev/<format>-jars fetched for this Spark line."""
    found = sorted(str(p) for p in (ROOT / ".cache" / table_format / LINE / "jars").glob("*.jar"))
    if len(found) != count:
        pytest.fail(
            f"{table_format}'s jars for Spark {LINE} are missing from .cache/{table_format}: "
            f"run dev/{table_format}-jars {LINE}"
        )
    return found


def local_session_conf(table_format: str, jar_count: int) -> dict[str, str]:
    """A small local test session's settings with `table_format`'s jars."""
    return {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.driver.memory": "2g",
        "spark.jars": ",".join(jars(table_format, jar_count)),
    }
