# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Python and the JVM check write options by one table of rules, and agree on every input.

Each input below goes through ``sparkbloom.write_options`` and through the JVM (the rule
BloomWriteOptions applies, called through Py4J, or a real write): both must accept it, with
the same value, or both refuse it with the same message.
"""

from __future__ import annotations

import zipfile
from decimal import Decimal
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pyspark.sql import SparkSession

import sparkbloom
from sparkbloom import SparkBloomError, options

# Inputs of every value option: text as a user would write it in .option(...), and Python
# values write_options takes. What the old copies of the rules disagreed on is here: Java's
# number grammar (0.5d, hex, NaN) against Python's (0.000_1, other scripts' digits, U+00A0
# around a number), ndv past a Java long, booleans as text, numpy's numbers.
# fmt: off
NUMBER_TEXTS = [
    "0.01", " 0.01\t", "\x010.01", "\u00a00.01", "1e-3", "1E-3", ".5", "5.", "+0.5", "-0.5", "0", "-0", "1",
    "0.99999999999999999", "1e-400", "4.9e-324", "1e999", "0.5d", "0.5f", "0x1p-2", "NaN", "nan", "Infinity",
    "inf", "0.000_1", "\u0660.\u0665", "", " ", ".", "1e", "e3", "abc", "32", "+32", "0032", "31", "33",
    "2147483616", "2147483617", "2147483648", "9223372036854775807", "9223372036854775808", "-1", "10.0",
    "1_000", "0" * 4500 + "64", "9" * 4500, "{value}",
]
BOOLEAN_TEXTS = ["true", "false", "TRUE", "False", " true ", "\x00true", "\u00a0true", "yes", "1", "0", "", "fal\u017fe"]
PYTHON_VALUES: list[object] = [
    0.01, 1.5, 0, 1, 32, 64, 1e-300, 5e-324, float("nan"), float("inf"), True, False, 10.0, 2**31, 2**63 - 1,
    2**63, -3, Decimal("0.25"), Fraction(1, 8), np.float64(0.125), np.int64(64), np.int32(-1), np.bool_(True),
    [1],
]
# fmt: on
KEYS = {  # option key -> write_options argument
    "bloom_filter_fpp": "fpp",
    "bloom_filter_ndv.id": "ndv",
    "bloom_filter_max_bytes": "max_bytes",
    "bloom_filter_exact_size": "exact_size",
}


def _python(parameter: str, value: object) -> str:
    """write_options' text for the value, or its refusal."""
    argument = {"id": value} if parameter == "ndv" else value
    try:
        result = sparkbloom.write_options(["id"], **{parameter: argument})  # type: ignore[arg-type]
    except SparkBloomError as error:
        return f"refused: {error.message}"
    key = next(k for k in result if k != "bloom_filter_columns")
    return result[key]


def _jvm(spark: SparkSession, key: str, text: str) -> Any:
    """The JVM's value for the option's text, or its refusal."""
    rules = spark.sparkContext._jvm.sparkbloom.write.WriteOptionRules  # type: ignore[union-attr]
    try:
        return rules.check(key, text)
    except SparkBloomError as error:  # PySpark's Py4J error handler raises it, as for any call
        return f"refused: {error.message}"


@pytest.mark.parametrize("key", KEYS)
def test_python_and_the_jvm_agree_on_every_value(spark: SparkSession, key: str) -> None:
    parameter = KEYS[key]
    inputs = (BOOLEAN_TEXTS + ["0.5", "32"] if parameter == "exact_size" else NUMBER_TEXTS) + PYTHON_VALUES
    accepted = 0
    for value in inputs:
        python = _python(parameter, value)
        text = options._text(value)  # what a write given the Python value sees
        jvm = _jvm(spark, key, text)
        if isinstance(jvm, str) and jvm.startswith("refused: "):
            assert python == jvm, f"{key}={value!r}: Python {python!r}, JVM {jvm!r}"
        else:
            accepted += 1
            assert not python.startswith("refused: "), f"{key}={value!r}: Python {python!r}, JVM accepts {jvm!r}"
            # Python's text means to the JVM what the input means
            assert _jvm(spark, key, python) == jvm, f"{key}={value!r}: Python's text {python!r}, JVM {jvm!r}"
            assert type(_jvm(spark, key, python)) is type(jvm)
    assert accepted >= 5


# (write_options arguments, the options a write would get in their place when Python refuses,
# or None for write_options' own text, and who refuses: "both" agree (both accept, or both
# refuse in the same words); "planning": only the planned write can refuse, by the data's
# names or the session's case sensitivity, which write_options does not know; "python": keys
# only a case-insensitive map could hold, of which a write keeps one without a word)
DATA_COLUMNS = ["id", "id AS User_Id", "named_struct('x', id) AS s", "id AS `a.b`"]
WRITES: list[tuple[dict[str, Any], dict[str, str] | None, str]] = [
    ({"columns": "id"}, None, "both"),
    ({"columns": ["id", "s.x"], "fpp": "0.001", "exact_size": "TRUE"}, None, "both"),
    ({"columns": "id , s.x", "max_bytes": np.int64(4096)}, None, "both"),
    ({"columns": ["`a.b`"]}, None, "both"),
    ({"columns": "id,,s.x"}, None, "both"),
    ({"columns": " , "}, None, "both"),
    ({"columns": ["id", ""]}, None, "both"),
    ({"columns": ["id,"]}, None, "both"),
    # write_options names a column or refuses; a write with no column and other options refuses alike
    ({"columns": [], "fpp": 0.01}, {"bloom_filter_columns": "", "bloom_filter_fpp": "0.01"}, "both"),
    ({"columns": ["User_Id"], "ndv": {"user_id": 10}}, None, "both"),
    ({"columns": ["id"], "ndv": {"`id`": 5}}, None, "both"),
    ({"columns": ["`id`"], "ndv": {"ID": "5"}}, None, "both"),
    ({"columns": ["s.x"], "ndv": {"s.`x`": 5}}, None, "both"),
    ({"columns": ["id"], "ndv": {"nope": 5}}, None, "both"),
    ({"columns": ["id"], "ndv": {"nope": -1, "id": 5}}, None, "both"),
    ({"columns": ["id"], "ndv": {"id": 2**63}}, None, "both"),
    # one column, two keys: the JVM would keep either value
    ({"columns": ["id"], "ndv": {"`id`": 5, "id": 6}}, None, "both"),
    ({"columns": ["s.x"], "ndv": {"s.x": 5, "s.`x`": 6}}, None, "both"),
    ({"columns": ["id"], "ndv": {"ID": 5, "id": 6}}, None, "python"),
    # the first of several mistakes, in the JVM's order
    ({"columns": ["id"], "fpp": 2, "max_bytes": 1}, None, "both"),
    ({"columns": ["id"], "exact_size": "no", "ndv": {"nope": 1}}, None, "both"),
    ({"columns": ["id"], "fpp": "0.5d"}, None, "both"),
    ({"columns": ["id"], "fpp": "0.000_1"}, None, "both"),
    ({"columns": ["id"], "max_bytes": 2**31}, None, "both"),
    # every value both accept is one a write completes with (these used to fail its tasks)
    ({"columns": ["id"], "fpp": 1e-40}, None, "both"),
    ({"columns": ["id"], "fpp": 5e-324, "exact_size": True}, None, "both"),
    ({"columns": ["id"], "fpp": 1e-12, "ndv": {"id": 2**63 - 1}}, None, "both"),
    ({"columns": ["id"], "fpp": 1e-300, "ndv": {"id": 2**63 - 1}}, None, "both"),  # used to hang
    # names only the data tells apart: `a.b` is the top-level column, a.b a path into a struct a
    ({"columns": ["`a.b`"], "ndv": {"a.b": 5}}, None, "planning"),
    ({"columns": ["nope"]}, None, "planning"),
]


def _raw(arguments: dict[str, Any]) -> dict[str, str]:
    """The options a write gets for write_options' arguments, as their text."""
    columns = arguments["columns"]
    raw = {"bloom_filter_columns": columns if isinstance(columns, str) else ",".join(columns)}
    for parameter, key in (("fpp", "bloom_filter_fpp"), ("max_bytes", "bloom_filter_max_bytes")):
        if parameter in arguments:
            raw[key] = options._text(arguments[parameter])
    if "exact_size" in arguments:
        raw["bloom_filter_exact_size"] = options._text(arguments["exact_size"])
    for column, value in arguments.get("ndv", {}).items():
        raw[f"bloom_filter_ndv.{column}"] = options._text(value)
    return raw


@pytest.mark.parametrize("arguments,jvm_options,refuses", WRITES)
def test_python_refuses_what_a_write_refuses_in_its_words(
    spark: SparkSession,
    tmp_path: Path,
    arguments: dict[str, Any],
    jvm_options: dict[str, str] | None,
    refuses: str,
) -> None:
    target = tmp_path / "t"
    data = spark.range(3).selectExpr(*DATA_COLUMNS)
    try:
        written = sparkbloom.write_options(**arguments)
    except SparkBloomError as python_error:
        if refuses == "python":  # a write given both keeps one of them, silently
            assert "name the same column" in python_error.message
            data.write.options(**_raw(arguments)).parquet(str(target))
            return
        with pytest.raises(SparkBloomError) as jvm_error:
            data.write.options(**(jvm_options or _raw(arguments))).parquet(str(target))
        assert python_error.message == jvm_error.value.message
        assert not target.exists(), "a refused write wrote"
        return
    assert refuses != "python", f"Python accepts {arguments}"
    if refuses == "planning":
        with pytest.raises(SparkBloomError):
            data.write.options(**written).parquet(str(target))
        assert not target.exists(), "a refused write wrote"
    else:
        data.write.options(**written).parquet(str(target))  # and the text as given, too
        data.write.options(**_raw(arguments)).mode("overwrite").parquet(str(target))


def test_the_jar_carries_the_table_python_reads() -> None:
    package = resources.files("sparkbloom").joinpath(options.RULES_FILE).read_bytes()
    with zipfile.ZipFile(sparkbloom.jar_path()) as jar:
        assert jar.read(f"sparkbloom/{options.RULES_FILE}") == package, "the jar is older than the table: rebuild it"
