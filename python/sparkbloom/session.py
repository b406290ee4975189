# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Putting sparkbloom into a SparkSession: the jar on the classpath, the extension loaded."""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import SparkSession

from sparkbloom.jar import ICEBERG_LINES, UnsupportedSparkVersion, _running_spark_version, jar_path, spark_line

EXTENSION_CLASS = "sparkbloom.SparkBloomExtensions"


def _append_unique(existing: str | None, item: str) -> str:
    """Comma-separated list ``existing`` with ``item`` added once, order kept."""
    items = [part.strip() for part in (existing or "").split(",") if part.strip()]
    if item not in items:
        items.append(item)
    return ",".join(items)


def _builder_option(builder: SparkSession.Builder, key: str) -> str | None:
    options: Mapping[str, str] = getattr(builder, "_options", {})
    return options.get(key)


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Add the sparkbloom jar and extension to a session builder.

    Jars and extensions the builder already names are kept; sparkbloom is appended.
    Call it before ``getOrCreate()``, as with delta-spark's
    ``configure_spark_with_delta_pip``.
    """
    jar = jar_path()
    _require_iceberg_release(builder)
    jars = _append_unique(_builder_option(builder, "spark.jars"), jar)
    extensions = _append_unique(_builder_option(builder, "spark.sql.extensions"), EXTENSION_CLASS)
    return builder.config("spark.jars", jars).config("spark.sql.extensions", extensions)


def _require_iceberg_release(builder: SparkSession.Builder) -> None:
    """A session set up for Apache Iceberg on a Spark line no Iceberg release supports fails
    here, saying so, rather than when Iceberg's classes fail to load in the first query."""
    options: Mapping[str, str] = getattr(builder, "_options", {})
    line = spark_line(_running_spark_version())
    if line not in ICEBERG_LINES and any("org.apache.iceberg" in str(v) for v in options.values()):
        raise UnsupportedSparkVersion(
            f"no Apache Iceberg release supports Spark {line}: Iceberg's Spark runtimes stop at Spark "
            f"{ICEBERG_LINES[-1]} (its {ICEBERG_LINES[-1]} runtime cannot load on Spark 4.2, where Spark's "
            f"View became a class). sparkbloom prunes Iceberg tables on Spark {', '.join(ICEBERG_LINES)}"
        )


def session(
    master: str = "local[*]",
    app_name: str = "sparkbloom",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """Get or create a SparkSession with sparkbloom loaded.

    ``conf`` entries are applied before sparkbloom's own, so a ``spark.jars`` or
    ``spark.sql.extensions`` given there is extended, not replaced.
    """
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in (conf or {}).items():
        builder = builder.config(key, str(value))
    return configure(builder).getOrCreate()


def version(spark: SparkSession | None = None) -> str:
    """Version of the sparkbloom jar loaded in the active session's driver
    (``sparkbloom_version()`` in SQL; works on classic and Spark Connect sessions).

    Asking the driver (rather than this package) proves the jar is on its classpath.
    """
    from sparkbloom._sql import table_function

    spark = spark or SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("no active SparkSession: create one with sparkbloom.session()")
    return str(table_function(spark, "sparkbloom_version").collect()[0]["version"])
