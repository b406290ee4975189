"""Calls into the JVM side, with its refusals raised as SparkBloomError."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pyspark.errors import IllegalArgumentException
from pyspark.sql import SparkSession

from sparkbloom.errors import SparkBloomError

T = TypeVar("T")


def jvm_api(spark: SparkSession) -> Any:
    """The JVM object ``sparkbloom.Inspection`` / ``SparkBloom`` live under."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    return jvm.sparkbloom


def translating_errors(call: Callable[[], T]) -> T:
    """Runs ``call``; a JVM ``SparkBloomException`` becomes a :class:`SparkBloomError`."""
    try:
        return call()
    except IllegalArgumentException as error:
        message = str(error)
        if "[sparkbloom]" in message:
            start = message.index("[sparkbloom]")
            raise SparkBloomError(message[start:].splitlines()[0]) from None
        raise
