# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""See which files carry which filters, and ask whether values could be in them."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession

from sparkbloom._sql import table_function
from sparkbloom.errors import SparkBloomError

#: The columns of :func:`inspect`'s result.
INSPECT_COLUMNS = (
    "file",
    "row_group",
    "column",
    "physical_type",
    "num_values",
    "has_filter",
    "filter_offset",
    "filter_bytes",
    "has_length",
    "estimated_ndv",
    "estimated_fpp",
    "dictionary_only",
    "ceiling_bound",
    "problem",
)


def inspect(spark: SparkSession, path: str, columns: Sequence[str] | None = None) -> DataFrame:
    """One row per (file, row group, column) of the Parquet files under ``path``.

    Works on files whoever wrote them. ``estimated_ndv`` and ``estimated_fpp`` come from
    each filter's bits; ``dictionary_only`` says every data page is dictionary-encoded
    (parquet-java drops its own filter for such chunks); ``problem`` says why a filter the
    file claims cannot be used. Many files are read by tasks on the cluster. The files are
    read when this is called (``sparkbloom_inspect`` in SQL).
    """
    if columns is None:
        return table_function(spark, "sparkbloom_inspect", path)
    if isinstance(columns, str):
        columns = [columns]
    if any("," in c for c in columns):
        raise SparkBloomError("[sparkbloom] inspect cannot name a column whose name contains a comma")
    return table_function(spark, "sparkbloom_inspect", path, ",".join(columns))


def might_contain(spark: SparkSession, path: str, column: str, values: Sequence[object]) -> DataFrame:
    """One row per (file, row group, value): ``might_contain`` is False when the row
    group's Bloom filter proves the value absent, True otherwise (also without a filter).

    ``column`` is the file column's dotted path. Values are ints, floats, strings, bytes,
    ``decimal.Decimal``, ``datetime.date`` or naive ``datetime.datetime`` (timestamp_ntz).
    A string probed in a column of another type is cast to that type (``'42'`` in a
    bigint column, ``'2024-01-31'`` in a date column); one that cannot be cast is an error.
    """
    if isinstance(values, (str, bytes)) or not values:
        raise SparkBloomError("[sparkbloom] might_contain needs a list of at least one value")
    return table_function(spark, "sparkbloom_probe", path, column, *values)
