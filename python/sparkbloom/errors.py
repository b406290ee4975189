# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Errors sparkbloom raises in Python, and the one place JVM refusals become them."""

from __future__ import annotations

import functools
import json
from typing import Any

from pyspark.errors import IllegalArgumentException

#: The JVM class of sparkbloom's refusals (``sparkbloom.errors.SparkBloomException``).
JVM_CLASS = "sparkbloom.errors.SparkBloomException"
_MARK = "[sparkbloom]"


class SparkBloomError(IllegalArgumentException):
    """A request sparkbloom refuses: a bad option, a column that cannot carry a filter.

    A subclass of PySpark's ``IllegalArgumentException``, which is what the JVM's
    ``sparkbloom.errors.SparkBloomException`` would otherwise become, so code that already
    catches PySpark's exception keeps working. Raised by every helper and by any Spark
    call (``df.write...``, ``spark.sql``) that sparkbloom refuses, on classic and Spark
    Connect sessions alike.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message=message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def option_error(message: str) -> SparkBloomError:
    """The error for a bad option, worded exactly as the JVM words it."""
    return SparkBloomError(f"{_MARK} {message}")


def _ours(message: str | None) -> SparkBloomError:
    text = message or ""
    start = text.find(_MARK)
    return SparkBloomError((text[start:] if start >= 0 else f"{_MARK} {text}").splitlines()[0])


def _from_java(error: Any) -> SparkBloomError | None:
    """The refusal in a Py4J throwable's cause chain, if any."""
    seen = 0
    while error is not None and seen < 16:
        if error.getClass().getName() == JVM_CLASS:
            return _ours(error.getMessage())
        error, seen = error.getCause(), seen + 1
    return None


def _from_connect(args: tuple[Any, ...], kwargs: dict[str, Any]) -> SparkBloomError | None:
    """The refusal a Spark Connect error reports, if it is one: by the classes of the error
    or of any error in its enriched chain."""
    info = args[0] if args else kwargs.get("info")
    message = args[1] if len(args) > 1 else kwargs.get("truncated_message")
    response = args[2] if len(args) > 2 else kwargs.get("resp")
    classes = json.loads(info.metadata.get("classes") or "[]") if info is not None else []
    if JVM_CLASS in classes:
        return _ours(message)
    for error in getattr(response, "errors", None) or []:
        if JVM_CLASS in list(error.error_type_hierarchy):
            return _ours(error.message)
    return None


def _patch(module: Any, translate: Any) -> None:
    original = module.convert_exception
    if getattr(original, "_sparkbloom", False):
        return

    @functools.wraps(original)
    def convert_exception(*args: Any, **kwargs: Any) -> Any:
        try:
            ours = translate(args, kwargs)
        except Exception:  # noqa: BLE001 - translation must never hide the original error
            ours = None
        return ours if ours is not None else original(*args, **kwargs)

    convert_exception._sparkbloom = True  # type: ignore[attr-defined]
    module.convert_exception = convert_exception


def install_translation() -> None:
    """Makes PySpark raise :class:`SparkBloomError` for the JVM's ``SparkBloomException``.

    Done once, on ``import sparkbloom``, by wrapping PySpark's own conversion of JVM errors
    (classic: Py4J; Connect: gRPC error details), as delta-spark does for its exceptions.
    Idempotent.
    """
    from pyspark.errors.exceptions import captured

    _patch(captured, lambda args, kwargs: _from_java(args[0] if args else kwargs.get("e")))
    try:  # Spark Connect's client is optional (pyspark[connect])
        from pyspark.errors.exceptions import connect
        from pyspark.sql.connect.client import core
    except Exception:  # noqa: BLE001 - missing or partial Connect dependencies: nothing to patch
        return
    _patch(connect, _from_connect)
    _patch(core, _from_connect)
