# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""SQL text for the helpers, which call sparkbloom's table functions.

Going through SQL rather than Py4J is what lets every helper work on a Spark Connect
session as on a classic one. Values are written as typed SQL literals that do not depend
on the session's parser settings (strings as UTF-8 hex, so no quoting rule applies).
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from sparkbloom.errors import SparkBloomError

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def literal(value: object) -> str:
    """``value`` as a Spark SQL literal of the matching type."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if _LONG_MIN <= value <= _LONG_MAX:
            return f"{value}L"
        return f"CAST('{value}' AS DECIMAL(38, 0))"
    if isinstance(value, float):
        # float's own repr: a subclass's (numpy 2's float64 shows as np.float64(1.5)) is no number
        return f"CAST('{float.__repr__(value)}' AS DOUBLE)"
    if isinstance(value, str):
        return f"CAST(X'{value.encode('utf-8').hex()}' AS STRING)"
    if isinstance(value, (bytes, bytearray)):
        return f"X'{bytes(value).hex()}'"
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise SparkBloomError(f"[sparkbloom] cannot probe the decimal {value}")
        return f"{format(value, 'f')}BD"
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            raise SparkBloomError("[sparkbloom] pass naive datetimes (timestamp_ntz) to might_contain")
        return f"TIMESTAMP_NTZ'{value.isoformat(sep=' ')}'"
    if isinstance(value, datetime.date):
        return f"DATE'{value.isoformat()}'"
    raise SparkBloomError(f"[sparkbloom] cannot pass a value of type {type(value).__name__}")


def table_function(spark: SparkSession, name: str, *args: object) -> DataFrame:
    """``SELECT * FROM name(args...)``, analyzed once.

    Spark Connect runs ``spark.sql`` text once to check for commands and again when the
    result is collected, and the index commands must act once; there the call goes as a
    table-valued-function relation, whose plan the server analyzes once.
    """
    literals = [literal(a) for a in args]
    relation = getattr(getattr(spark, "tvf", None), "_fn", None) if _is_connect(spark) else None
    if relation is not None:
        from pyspark.sql.connect.functions import expr

        connect_df: DataFrame = relation(name, *[expr(text) for text in literals])
        return connect_df
    return spark.sql(f"SELECT * FROM {name}({', '.join(literals)})")


def _is_connect(spark: SparkSession) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def first_row(df: DataFrame) -> dict[str, Any]:
    return df.collect()[0].asDict()
