# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Write options for ``df.write.options(**sparkbloom.write_options(...))``.

The values are checked by the rules the JVM checks them by: one table,
``write_options.json`` beside this module, which the build copies into the jar. A Python
value is turned into the option's text first (``True`` is ``true``), so what this module
refuses is what a write with that text would refuse, in the same words.
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from sparkbloom.errors import option_error

COLUMNS = "bloom_filter_columns"
FPP = "bloom_filter_fpp"
NDV = "bloom_filter_ndv"
MAX_BYTES = "bloom_filter_max_bytes"
EXACT_SIZE = "bloom_filter_exact_size"

#: The table of rules, in this package and (as sparkbloom/write_options.json) in the jar.
RULES_FILE = "write_options.json"
#: What Java's ``String.trim`` removes, as the JVM trims column names.
_TRIM = "".join(chr(c) for c in range(0x21))


def write_options(
    columns: Sequence[str],
    fpp: float | None = None,
    ndv: Mapping[str, int] | None = None,
    max_bytes: int | None = None,
    exact_size: bool | None = None,
) -> dict[str, str]:
    """Options that make a Parquet write carry Bloom filters on ``columns``.

    Args:
        columns: column names; nested struct fields by dotted path. Each is split on commas
            outside backticks and trimmed, as the option ``bloom_filter_columns`` is.
        fpp: false-positive probability each row group's filter must meet, strictly
            between 0 and 1; the session default (``spark.sparkbloom.write.fpp``, 0.0001)
            when omitted.
        ndv: optional hint of distinct values per row group, by column: whole numbers from
            1 to 2**63 - 1.
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

    A value may also be given as the option's text (``"0.01"``, ``"true"``), which is
    checked as the JVM checks it.

    Raises:
        SparkBloomError: a value the JVM would refuse, with the JVM's message (both read one
            table of rules). What depends on the data or the session (whether the columns
            exist and can carry a filter, names resolved case-sensitively) is checked when
            the write is planned, before anything is written.
    """
    table = _rules()
    names = _column_list(columns if isinstance(columns, str) else ",".join(str(c) for c in columns))
    if not names:
        raise option_error(_render(table["columns"]["no_column"], key=COLUMNS))
    options = {COLUMNS: ",".join(names)}
    # in the JVM's order: the whole write's values, then the per-column keys, then their values
    for key, value in ((FPP, fpp), (MAX_BYTES, max_bytes), (EXACT_SIZE, exact_size)):
        if value is not None:
            options[key] = _checked(key, key, value)
    listed = [_loose(n) for n in names]
    for column in ndv or {}:
        if not any(_may_name_same(_loose(column), n) for n in listed):
            raise option_error(_render(table["columns"]["not_listed"], key=f"{NDV}.{column}"))
    # Two keys for one column: a write's options are a case-insensitive map, which keeps one
    # of "a" and "A" without a word, and the JVM refuses "a" beside "`a`".
    keys = sorted(f"{NDV}.{column}" for column in ndv or {})
    for i, key in enumerate(keys):
        same = [k for k in keys[i + 1 :] if _same_ascii(k, key) or _loose(k) == _loose(key)]
        if same:
            raise option_error(_render(table["columns"]["same_column"], key=key, value=same[0]))
    for column, value in (ndv or {}).items():
        options[f"{NDV}.{column}"] = _checked(NDV, f"{NDV}.{column}", value)
    return options


@functools.cache
def _rules() -> dict[str, Any]:
    table: dict[str, Any] = json.loads(resources.files("sparkbloom").joinpath(RULES_FILE).read_text("utf-8"))
    return table


def _rule(key: str) -> dict[str, Any]:
    return next(r for r in _rules()["values"] if r["key"] == key)


def _render(template: str, **fields: object) -> str:
    """``template`` with its placeholders replaced in one pass (a value may contain braces)."""
    shown = {name: "" if value is None else str(value) for name, value in fields.items()}
    return re.sub(r"\{(key|value|min|max)\}", lambda m: shown.get(m.group(1), ""), template)


def _text(value: object) -> str:
    """A Python value as option text: what a write given it would see."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or type(value).__name__ in ("bool_", "bool") and hasattr(value, "dtype"):
        return "true" if value else "false"  # also numpy's booleans
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))  # the shortest text of the double, as a Java double parses it
    return str(value)


def _checked(key: str, option: str, value: object) -> str:
    """The text of option ``option`` (rule ``key``) for ``value``, or the JVM's refusal."""
    rule = _rule(key)
    text = _text(value)
    matched = re.fullmatch(_rules()["types"][rule["type"]], text)
    parsed: float | int | bool | None = None
    if matched:
        word = matched.group(1)
        if rule["type"] == "decimal":
            parsed = float(word)
        elif rule["type"] == "integer":
            parsed = _integer(word)
        else:
            parsed = word.lower() == "true"
    if parsed is None or not _within(rule, parsed):
        raise option_error(_render(rule["message"], key=option, value=text, min=rule.get("min"), max=rule.get("max")))
    if isinstance(parsed, bool):
        return "true" if parsed else "false"
    return repr(parsed) if isinstance(parsed, float) else str(parsed)


def _integer(word: str) -> float | int:
    """An integer's text as a number; past 4,000 digits (Python's int() refuses such text, the
    JVM's BigInteger reads it) an infinity, beyond any bound."""
    digits = word.lstrip("+-").lstrip("0") or "0"
    sign = -1 if word.startswith("-") else 1
    return sign * int(digits) if len(digits) <= 4000 else sign * math.inf


def _within(rule: dict[str, Any], value: float | int | bool) -> bool:
    low, high = rule.get("min"), rule.get("max")
    if low is not None and not (value >= low if rule.get("min_inclusive", True) else value > low):
        return False
    return high is None or (value <= high if rule.get("max_inclusive", True) else value < high)


def _column_list(value: str) -> list[str]:
    """The names in a ``bloom_filter_columns`` text, as the JVM splits it: on commas outside
    backticks, each trimmed as Java's ``String.trim`` does."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for char in value:
        if char == "`":
            quoted = not quoted
        elif char == "," and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    names = [p.strip(_TRIM) for p in parts]
    if any(not n for n in names) and value.strip(_TRIM):
        raise option_error(_render(_rules()["columns"]["empty_name"], key=COLUMNS, value=value))
    return [n for n in names if n]


def _loose(name: str) -> str:
    """A name without its backticks: two names the JVM resolves to one column have the same."""
    return name.replace("`", "")


def _may_name_same(a: str, b: str) -> bool:
    """Whether the JVM may resolve ``a`` and ``b`` to one column: equal ignoring ASCII case, as
    Spark's default resolver compares. Non-ASCII case rules (Java's and Python's differ) are
    left to the JVM, which resolves the names against the data when the write is planned."""
    return not (a.isascii() and b.isascii()) or _same_ascii(a, b)


def _same_ascii(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are ASCII and equal ignoring case (as Spark's default resolver
    and its case-insensitive option maps compare them)."""
    return a.isascii() and b.isascii() and a.lower() == b.lower()
