"""See which files carry which filters, and ask whether values could be in them."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Sequence

from pyspark.sql import DataFrame, SparkSession

from sparkbloom._jvm import jvm_api, translating_errors
from sparkbloom.errors import SparkBloomError

#: The columns of :func:`inspect`'s result.
INSPECT_COLUMNS = (
    "file", "row_group", "column", "physical_type", "num_values", "has_filter", "filter_offset",
    "filter_bytes", "has_length", "estimated_ndv", "estimated_fpp", "dictionary_only", "problem",
)


def inspect(spark: SparkSession, path: str, columns: Sequence[str] | None = None) -> DataFrame:
    """One row per (file, row group, column) of the Parquet files under ``path``.

    Works on files whoever wrote them. ``estimated_ndv`` and ``estimated_fpp`` come from
    each filter's bits; ``dictionary_only`` says every data page is dictionary-encoded
    (parquet-java drops its own filter for such chunks); ``problem`` says why a filter the
    file claims cannot be used. Many files are read by tasks on the cluster.
    """
    jcolumns = list(columns) if columns is not None else None
    jdf = translating_errors(lambda: jvm_api(spark).Inspection.inspect(spark._jsparkSession, path, jcolumns))
    return DataFrame(jdf, spark)


def might_contain(spark: SparkSession, path: str, column: str, values: Sequence[object]) -> DataFrame:
    """One row per (file, row group, value): ``might_contain`` is False when the row
    group's Bloom filter proves the value absent, True otherwise (also without a filter).

    ``column`` is the file column's dotted path. Values are ints, floats, strings, bytes,
    ``decimal.Decimal``, ``datetime.date`` or naive ``datetime.datetime`` (timestamp_ntz).
    """
    if not values:
        raise SparkBloomError("[sparkbloom] might_contain needs at least one value")
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    jvalues = [_to_java(jvm, value) for value in values]
    jdf = translating_errors(
        lambda: jvm_api(spark).Inspection.mightContain(spark._jsparkSession, path, column, jvalues)
    )
    return DataFrame(jdf, spark)


def _to_java(jvm: object, value: object) -> object:
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            raise SparkBloomError("[sparkbloom] pass naive datetimes (timestamp_ntz) to might_contain")
        return jvm.java.time.LocalDateTime.parse(value.isoformat())  # type: ignore[attr-defined]
    if isinstance(value, datetime.date):
        return jvm.java.sql.Date.valueOf(value.isoformat())  # type: ignore[attr-defined]
    if isinstance(value, (bool, int, float, str, bytes, bytearray, decimal.Decimal)) or value is None:
        return value
    raise SparkBloomError(f"[sparkbloom] might_contain cannot probe a value of type {type(value).__name__}")
