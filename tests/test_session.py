# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The package finds its jar and a session built through it has the extension loaded."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession

import sparkbloom


def test_jar_is_bundled_inside_the_package() -> None:
    jar = Path(sparkbloom.jar_path())
    assert jar.is_file()
    assert jar.parent == Path(sparkbloom.__file__).resolve().parent / "jars"
    with zipfile.ZipFile(jar) as archive:
        assert "sparkbloom/SparkBloomExtensions.class" in archive.namelist()


def test_version_comes_from_the_driver_jvm(spark: SparkSession) -> None:
    """The jar the driver loaded is the package's own release (python/sparkbloom/VERSION)."""
    assert sparkbloom.version() == sparkbloom.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", sparkbloom.__version__)


def test_extension_is_registered(spark: SparkSession) -> None:
    extensions = spark.conf.get("spark.sql.extensions") or ""
    assert sparkbloom.EXTENSION_CLASS in extensions.split(",")
    assert sparkbloom.jar_path() in (spark.conf.get("spark.jars") or "")


def test_configure_keeps_what_the_user_set() -> None:
    builder = SparkSession.builder.config("spark.sql.extensions", "a.B").config("spark.jars", "/x.jar")
    configured = sparkbloom.configure(builder)
    options = configured._options  # type: ignore[attr-defined]
    assert options["spark.sql.extensions"] == f"a.B,{sparkbloom.EXTENSION_CLASS}"
    assert options["spark.jars"] == f"/x.jar,{sparkbloom.jar_path()}"
    again = sparkbloom.configure(configured)._options  # type: ignore[attr-defined]
    assert again["spark.sql.extensions"] == f"a.B,{sparkbloom.EXTENSION_CLASS}"


def test_iceberg_on_a_spark_line_without_an_iceberg_release_fails_plainly() -> None:
    builder = SparkSession.builder.config("spark.sql.catalog.ice", "org.apache.iceberg.spark.SparkCatalog")
    line = ".".join(pyspark.__version__.split(".")[:2])
    if line in sparkbloom.ICEBERG_LINES:
        assert sparkbloom.EXTENSION_CLASS in sparkbloom.configure(builder)._options["spark.sql.extensions"]  # type: ignore[attr-defined]
    else:
        with pytest.raises(
            sparkbloom.UnsupportedSparkVersion, match=f"no Apache Iceberg release supports Spark {line}"
        ):
            sparkbloom.configure(builder)
