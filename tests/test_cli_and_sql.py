# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The sparkbloom CLI and the SQL table functions, on real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliHere
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom

CLI = [str(Path(sys.executable).parent / "sparkbloom")]


@pytest.fixture(scope="module")
def table(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("cli") / "t")
    spark.range(0, 3000, 1, 3).select(
        F.col("id").alias("k"),
        F.lit("x").alias("flat"),
        F.col("id").cast("string").alias("text"),
        F.expr("date_add(DATE'2024-01-01', CAST(id AS INT))").alias("day"),
    ).write.options(**sparkbloom.write_options(["k", "text", "day"])).parquet(path)
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed command in a process of its own: its own JVM (~15 s on 2 cores)."""
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300)


def test_cli_inspect_and_probe(cli_here: CliHere, table: str) -> None:
    inspected = run("inspect", table, "--json")
    assert inspected.returncode == 0, inspected.stderr[-2000:]
    summary = {s["column"]: s for s in json.loads(inspected.stdout)}
    assert summary["k"]["coverage"] == 1.0 and summary["k"]["files"] == 3
    assert summary["flat"]["with_filter"] == 0
    code, out, _ = cli_here("inspect", table, "--columns", "k")
    assert code == 0 and "coverage" in out
    assert any(line.startswith("k ") and "100%" in line for line in out.splitlines())

    code, out, err = cli_here("probe", table, "k", "42", "99999999")
    assert code == 0, err[-2000:]
    assert "42: may be in" in out
    code, _, err = cli_here("probe", table + "-missing", "k", "1")
    assert code == 2 and "does not exist" in err


def test_cli_probe_sends_text_the_jvm_casts_to_the_column_type(cli_here: CliHere, table: str) -> None:
    def probe(column: str, value: str) -> int:
        return cli_here("probe", table, column, value)[0]

    # '42' is text in a string column (not the number 42, which could only answer "maybe")
    assert probe("text", "123456789") == 1
    assert probe("text", "42") == 0
    assert probe("day", "2024-01-05") == 0
    assert probe("day", "1999-01-05") == 1
    assert probe("k", "99999999") == 1
    code, _, err = cli_here("probe", table, "k", "forty-two")
    assert code == 2 and "'forty-two' cannot be probed in column 'k'" in err, err[-2000:]


def test_sql_table_functions(spark: SparkSession, table: str) -> None:
    rows = spark.sql(f"SELECT * FROM sparkbloom_inspect('{table}') WHERE column = 'k'").collect()
    assert len(rows) == 3 and all(r["has_filter"] for r in rows)
    only = spark.sql(f"SELECT DISTINCT column FROM sparkbloom_inspect('{table}', 'flat')").collect()
    assert [r["column"] for r in only] == ["flat"]
    probe = spark.sql(f"SELECT * FROM sparkbloom_probe('{table}', 'k', 42, 99999999)").collect()
    by_value: dict[str, list[bool]] = {}
    for r in probe:
        by_value.setdefault(r["value"], []).append(r["might_contain"])
    assert any(by_value["42"]) and not any(by_value["99999999"])
    with pytest.raises(Exception, match="at least one value"):
        spark.sql(f"SELECT * FROM sparkbloom_probe('{table}', 'k')").collect()


def test_cli_version_master_and_conf(table: str) -> None:
    shown = run("--version")
    assert shown.returncode == 0 and shown.stdout.startswith("sparkbloom ") and "pyspark" in shown.stdout
    # a process of its own: --master and --conf reach its session, and "none" is exit status 1
    none = run("--master", "local[1]", "--conf", "spark.sql.parquet.compression.codec=zstd", "probe", table, "k", "-5")
    assert none.returncode == 1, none.stdout + none.stderr[-2000:]
    assert "-5: may be in 0 of 3 row groups" in none.stdout, none.stdout
    # settings reach Spark: a driver memory Spark cannot parse stops it before the probe
    refused = run("--conf", "spark.driver.memory=plenty", "probe", table, "k", "42")
    assert refused.returncode == 2 and "42: may be in" not in refused.stdout, refused.stdout
    bad = run("--conf", "no-equals-sign", "probe", table, "k", "42")
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr
