# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Write options for ``df.write.options(**sparkbloom.write_options(...))``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from sparkbloom.errors import option_error

COLUMNS = "bloom_filter_columns"
FPP = "bloom_filter_fpp"
NDV = "bloom_filter_ndv"
MAX_BYTES = "bloom_filter_max_bytes"
EXACT_SIZE = "bloom_filter_exact_size"

#: Smallest and largest filter a column chunk can have (one block; what the header's i32 holds).
MIN_BYTES = 32
MAX_FILTER_BYTES = 2**31 - 1 - (2**31 - 1) % 32


def write_options(
    columns: Sequence[str],
    fpp: float | None = None,
    ndv: Mapping[str, int] | None = None,
    max_bytes: int | None = None,
    exact_size: bool | None = None,
) -> dict[str, str]:
    """Options that make a Parquet write carry Bloom filters on ``columns``.

    Args:
        columns: column names; nested struct fields by dotted path.
        fpp: false-positive probability each row group's filter must meet, strictly
            between 0 and 1; the session default (``spark.sparkbloom.write.fpp``, 0.0001)
            when omitted.
        ndv: optional hint of distinct values per row group, by column.
        max_bytes: ceiling for one column chunk's filter, 32 to 2,147,483,616 bytes. When
            omitted, the session's ``spark.sparkbloom.write.maxBytes``, whose default, 0,
            follows the row group: 1/16 of ``parquet.block.size`` as a power of two, at
            least 1 MiB and at most 128 MiB (8 MiB for Spark's 128 MB row groups). Filters
            are powers of two unless ``exact_size``, so the ceiling is then the largest
            power of two at most ``max_bytes`` (and at most 128 MiB).
        exact_size: ``True`` for filters of exactly the size the fpp needs (any multiple of
            32 bytes: smaller, but Arrow C++, Velox and ClickHouse up to 25.8 reject such
            filters); ``False`` for the smallest power of two that meets the fpp; the
            session default (``spark.sparkbloom.write.exactSize``, false) when omitted.

    Raises:
        SparkBloomError: a value the JVM would refuse, with the JVM's message. Whether the
            columns exist and can carry a filter is checked when the write is planned.
    """
    if isinstance(columns, str):
        columns = [columns]
    names = [str(c).strip() for c in columns]
    if not names or any(not n for n in names):
        raise option_error(f"'{COLUMNS}' has an empty column name: '{','.join(columns)}'")
    options = {COLUMNS: ",".join(names)}
    if fpp is not None:
        options[FPP] = _checked_fpp(fpp, FPP)
    folded = {n.lower() for n in names}
    for column, value in (ndv or {}).items():
        # The JVM resolves these keys as Spark resolves names: case-insensitively by default.
        if column.lower() not in folded:
            raise option_error(f"option '{NDV}.{column}' names a column that is not in {COLUMNS}")
        options[f"{NDV}.{column}"] = _checked_ndv(value, f"{NDV}.{column}")
    if max_bytes is not None:
        options[MAX_BYTES] = _checked_max_bytes(max_bytes, MAX_BYTES)
    if exact_size is not None:
        options[EXACT_SIZE] = _checked_bool(exact_size, EXACT_SIZE)
    return options


def _checked_fpp(value: object, key: str) -> str:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if not 0 < number < 1:
        raise option_error(
            f"option '{key}' must be a number strictly between 0 and 1 (a false-positive probability), got '{value}'"
        )
    return repr(number)


def _checked_ndv(value: object, key: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise option_error(
            f"option '{key}' must be a positive whole number of distinct values per row group, got '{value}'"
        )
    return str(value)


def _checked_max_bytes(value: object, key: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_BYTES <= value <= MAX_FILTER_BYTES:
        raise option_error(
            f"option '{key}' must be a whole number of bytes between {MIN_BYTES} and {MAX_FILTER_BYTES}, got '{value}'"
        )
    return str(value)


def _checked_bool(value: object, key: str) -> str:
    # Only real booleans: a string such as "false" is truthy in Python and would invert.
    if not isinstance(value, bool):
        raise option_error(f"option '{key}' must be true or false, got '{value}'")
    return "true" if value else "false"
