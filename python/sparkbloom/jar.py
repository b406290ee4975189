# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Which of the bundled JVM extension jars serves the running Spark, and where it is.

The package carries one jar per supported Spark line, each built against that line's own
Spark (and Scala: 2.12 for 3.5, 2.13 from 4.0): ``sparkbloom-spark<line>_<scala>-<version>.jar``.
"""

from __future__ import annotations

from pathlib import Path

_JARS_DIR = Path(__file__).resolve().parent / "jars"

#: The Spark lines this package has a jar for (the repository's dev/spark-lines).
SPARK_LINES: tuple[str, ...] = ("3.5", "4.0", "4.1", "4.2", "4.3")

#: The Spark lines an Apache Iceberg release supports, on which sparkbloom prunes Iceberg
#: tables (the iceberg column of dev/spark-lines).
ICEBERG_LINES: tuple[str, ...] = ("3.5", "4.0", "4.1")


class UnsupportedSparkVersion(RuntimeError):
    """The running Spark is not one of :data:`SPARK_LINES`."""


def spark_line(spark_version: str) -> str:
    """The supported line (``"3.5"``) of a Spark version string (``"3.5.9"``).

    Raises:
        UnsupportedSparkVersion: the version belongs to no supported line.
    """
    parts = spark_version.split(".")
    line = ".".join(parts[:2])
    if len(parts) < 2 or line not in SPARK_LINES:
        raise UnsupportedSparkVersion(
            f"sparkbloom supports Spark {SPARK_LINES[0]} to {SPARK_LINES[-1]} "
            f"({', '.join(SPARK_LINES)}); this is Spark {spark_version}"
        )
    return line


def _running_spark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


def jar_path(spark_version: str | None = None) -> str:
    """Absolute path of the bundled jar for ``spark_version`` (default: the installed pyspark's).

    Raises:
        UnsupportedSparkVersion: the Spark version is not supported.
        FileNotFoundError: the package was installed without that jar (a source checkout
            where ``dev/setup`` has not run yet).
    """
    line = spark_line(spark_version or _running_spark_version())
    jars = sorted(_JARS_DIR.glob(f"sparkbloom-spark{line}_*.jar"))
    if not jars:
        raise FileNotFoundError(
            f"no sparkbloom jar for Spark {line} in {_JARS_DIR}; in a source checkout run dev/setup to build the jars"
        )
    if len(jars) > 1:
        raise RuntimeError(f"more than one sparkbloom jar for Spark {line} in {_JARS_DIR}: {[j.name for j in jars]}")
    return str(jars[0])
