"""A table-level Bloom index: pruning for Parquet tables written without (useful) filters.

``build_index`` reads only the named columns of the table's current files, as a Spark job,
and writes a compact index beside the data (``<table>/_sparkbloom_index/``). Scans of the
table then consult it before any file footer: files it rules out are never opened.
Files added or changed after the build are judged the normal way until the next
``build_index`` call, which indexes only them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql import SparkSession

from sparkbloom._jvm import jvm_api, translating_errors
from sparkbloom.errors import SparkBloomError


def build_index(
    spark: SparkSession,
    path_or_table: str,
    columns: Sequence[str] | None = None,
    fpp: float | None = None,
) -> dict[str, Any]:
    """Builds the index of ``columns`` for a Parquet directory or catalog table, or
    refreshes it (``columns=None``: the index's own columns; only new or changed files are
    read). Returns what was done: files indexed, files left out, segments, whether the
    whole index was rebuilt. ``fpp`` defaults to the index's own, else
    ``spark.sparkbloom.write.fpp``.
    """
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",")]
    if columns is not None and not columns:
        raise SparkBloomError("[sparkbloom] name at least one column to index")
    jcolumns = list(columns) if columns is not None else None
    jfpp = float(fpp) if fpp is not None else None
    row = translating_errors(
        lambda: jvm_api(spark).TableIndexCommands.build(spark._jsparkSession, path_or_table, jcolumns, jfpp)
    )
    return _first_row(spark, row)


def describe_index(spark: SparkSession, path_or_table: str) -> dict[str, Any]:
    """The index's columns, fpp, size in bytes, how many current files it covers, and per
    column its units (a file or a row group each), blocks per unit and the largest
    estimated fpp of any unit."""
    row = translating_errors(lambda: jvm_api(spark).TableIndexCommands.describe(spark._jsparkSession, path_or_table))
    return _first_row(spark, row)


def drop_index(spark: SparkSession, path_or_table: str) -> bool:
    """Deletes the table's index; True if there was one."""
    row = translating_errors(lambda: jvm_api(spark).TableIndexCommands.drop(spark._jsparkSession, path_or_table))
    return bool(_first_row(spark, row)["dropped"])


def _first_row(spark: SparkSession, jdf: Any) -> dict[str, Any]:
    from pyspark.sql import DataFrame

    return DataFrame(jdf, spark).collect()[0].asDict()
