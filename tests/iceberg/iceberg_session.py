# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Where Apache Iceberg comes from for the Iceberg tests, and how their sessions are set up.

Iceberg's Spark runtime jar comes from Maven Central through ``dev/iceberg-jars``
(``.cache/iceberg/<line>``); it is self-contained. Tables live in a Hadoop catalog
(``ice``) under a temporary warehouse: real Iceberg metadata and files on the local disk;
and in Iceberg's in-memory catalog (``memory``), whose files only its own FileIO reads.
"""

from __future__ import annotations

from pathlib import Path

from table_formats import local_session_conf, release

ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"


def iceberg_release() -> str | None:
    """The Iceberg release dev/spark-lines names for this Spark line, if any."""
    return release("iceberg")


def session_conf(warehouse: Path) -> dict[str, str]:
    return {
        **local_session_conf("iceberg", 1),
        "spark.sql.extensions": ICEBERG_EXTENSION,
        "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.ice.type": "hadoop",
        "spark.sql.catalog.ice.warehouse": str(warehouse),
        # Iceberg's in-memory catalog and FileIO: files that only the table's own IO can read
        # (there is no Hadoop file system for `mem:`), as with a catalog that vends credentials
        "spark.sql.catalog.memory": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.memory.catalog-impl": "org.apache.iceberg.inmemory.InMemoryCatalog",
        "spark.sql.catalog.memory.warehouse": "mem://warehouse",
    }
