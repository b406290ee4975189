# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The package picks the jar of the Spark it runs with, and that jar writes and prunes.

dev/test runs this module in .venv (Spark 4.3, the editable package) and in a plain venv per
older line with the package installed from its wheel (SPARKBLOOM_FROM_WHEEL=1).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pyspark
import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom
from sparkbloom.jar import spark_line

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_has_a_jar_for_every_supported_line() -> None:
    for line in sparkbloom.SPARK_LINES:
        jar = Path(sparkbloom.jar_path(f"{line}.0"))
        scala = "2.12" if line == "3.5" else "2.13"
        assert jar.is_file() and jar.name.startswith(f"sparkbloom-spark{line}_{scala}-"), jar


def test_supported_lines_are_the_built_lines() -> None:
    table = (ROOT / "dev" / "spark-lines").read_text().splitlines()
    rows = [row.split() for row in table if row.strip() and not row.startswith("#")]
    assert sparkbloom.SPARK_LINES == tuple(row[0] for row in rows)
    assert sparkbloom.ICEBERG_LINES == tuple(row[0] for row in rows if row[5] != "-")


@pytest.mark.parametrize("version", ["3.4.4", "4.4.0", "2.4.8", "5.0.0", "four"])
def test_an_unsupported_spark_gets_an_error_naming_the_supported_range(version: str) -> None:
    with pytest.raises(sparkbloom.UnsupportedSparkVersion, match=r"supports Spark 3\.5 to 4\.3 .*Spark " + version):
        sparkbloom.jar_path(version)


def test_the_package_in_use_is_the_one_under_test() -> None:
    package = Path(sparkbloom.__file__).resolve()
    if os.environ.get("SPARKBLOOM_FROM_WHEEL") == "1":
        assert Path(sys.prefix).resolve() in package.parents and "site-packages" in package.parts, package
    else:
        assert package.parent == ROOT / "python" / "sparkbloom", package


def test_the_session_runs_the_jar_of_its_spark_line_and_it_prunes(spark: SparkSession, tmp_path: Path) -> None:
    line = spark_line(spark.version)
    assert line == spark_line(pyspark.__version__)
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    assert str(jvm.sparkbloom.SparkBloom.sparkLine()) == line
    assert sparkbloom.jar_path() in spark.conf.get("spark.jars").split(",")

    path = str(tmp_path / "keys")
    (
        spark.range(0, 12_000, 1, 6)
        .select(F.col("id").alias("k"), F.sha2(F.col("id").cast("string"), 256).alias("s"))
        .orderBy(F.rand(11))
        .repartition(6)
        .write.options(**sparkbloom.write_options(["k", "s"]))
        .parquet(path)
    )
    assert spark.read.parquet(path).where(F.col("k") == 12_345_678).count() == 0
    assert sparkbloom.last_pruning(spark)["files_skipped"] == 6
    rows = spark.read.parquet(path).where(F.col("k").isin(17, 9_999)).select("k").collect()
    assert sorted(r["k"] for r in rows) == [17, 9_999]
    assert sparkbloom.last_pruning(spark)["files_skipped"] >= 6 - 2
    inspected = sparkbloom.inspect(spark, path)
    assert inspected.where(F.col("has_filter")).count() > 0
