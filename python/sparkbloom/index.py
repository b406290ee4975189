# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
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

from sparkbloom._sql import first_row, table_function
from sparkbloom.errors import SparkBloomError


def build_index(
    spark: SparkSession,
    path_or_table: str,
    columns: Sequence[str] | None = None,
    fpp: float | None = None,
) -> dict[str, Any]:
    """Builds the index of ``columns`` for a Parquet directory, a Delta table or a catalog
    table (Iceberg's too), or refreshes it (``columns=None``: the index's own columns; only
    new or changed files are read). Returns what was done: files indexed, files left out, segments, whether the
    whole index was rebuilt, and ``commit_attempts``: 1 unless concurrent refreshes committed first (each
    further attempt indexes only what the newest version lacks). ``fpp`` defaults to the index's own, else
    ``spark.sparkbloom.write.fpp``. In SQL: ``sparkbloom_build_index(table, 'cols', fpp)``.
    """
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",")]
    if columns is not None and not columns:
        raise SparkBloomError("[sparkbloom] name at least one column to index")
    names = ",".join(columns) if columns is not None else None
    return first_row(
        table_function(spark, "sparkbloom_build_index", path_or_table, names, float(fpp) if fpp is not None else None)
    )


def describe_index(spark: SparkSession, path_or_table: str) -> dict[str, Any]:
    """The index's columns, fpp, size in bytes, how many current files it covers, and per
    column its units (a file or a row group each), blocks per unit and the largest
    estimated fpp of any unit."""
    return first_row(table_function(spark, "sparkbloom_describe_index", path_or_table))


def drop_index(spark: SparkSession, path_or_table: str) -> bool:
    """Deletes the table's index; True if there was one."""
    return bool(first_row(table_function(spark, "sparkbloom_drop_index", path_or_table))["dropped"])
