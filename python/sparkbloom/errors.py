"""Errors sparkbloom raises in Python."""

from __future__ import annotations

from pyspark.errors import IllegalArgumentException


class SparkBloomError(IllegalArgumentException):
    """A request sparkbloom refuses: a bad option, a column that cannot carry a filter.

    A subclass of PySpark's ``IllegalArgumentException``, which is what the JVM's
    ``sparkbloom.SparkBloomException`` becomes when it crosses Py4J, so code that already
    catches PySpark's exception keeps working.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message=message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def option_error(message: str) -> SparkBloomError:
    """The error for a bad option, worded exactly as the JVM words it."""
    return SparkBloomError(f"[sparkbloom] {message}")
