# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""sparkbloom over Spark Connect: a real Connect server (the one pyspark ships) with the jar
and the extension, and a Connect client session in this process. Every helper, the write
options and the error translation work there as on a classic session."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyspark
import pytest
from pyspark.errors import IllegalArgumentException

import sparkbloom
from sparkbloom import SparkBloomError

PYSPARK_HOME = Path(pyspark.__file__).parent
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"

pytestmark = pytest.mark.skipif(
    not list((PYSPARK_HOME / "jars").glob("spark-connect_*.jar")),
    reason="this pyspark ships no Spark Connect server (Spark 3.5's is a separate download)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("localhost", port)) == 0


@pytest.fixture(scope="module")
def connect(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    port = _free_port()
    log = tmp_path_factory.mktemp("connect") / "server.log"
    command = [
        str(PYSPARK_HOME / "bin" / "spark-submit"),
        "--class",
        SERVER_CLASS,
        "--master",
        "local[2]",
        "--driver-memory",
        "1g",
        "--conf",
        f"spark.connect.grpc.binding.port={port}",
        "--conf",
        f"spark.jars={sparkbloom.jar_path()}",
        "--conf",
        f"spark.sql.extensions={sparkbloom.EXTENSION_CLASS}",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=4",
    ]
    with open(log, "w") as out:
        server = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "SPARK_HOME": str(PYSPARK_HOME)}
        )
    try:
        deadline = time.monotonic() + 180
        while not _listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Connect server did not start:\n{log.read_text()[-4000:]}")
            time.sleep(0.5)
        session = RemoteSparkSession.builder.remote(f"sc://localhost:{port}").getOrCreate()
        yield session
        session.stop()
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="module")
def table(connect: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("connect-data") / "t")
    connect.range(0, 3000, 1, 3).selectExpr("id AS k", "CAST(id AS STRING) AS text").write.options(
        **sparkbloom.write_options(["k", "text"])
    ).parquet(path)
    return path


def test_the_session_is_a_connect_session_with_our_jar(connect: Any) -> None:
    assert type(connect).__module__.startswith("pyspark.sql.connect")
    version = sparkbloom.version(connect)
    assert f"_{version}" in Path(sparkbloom.jar_path()).name or f"-{version}" in Path(sparkbloom.jar_path()).name


def test_pruning_and_last_pruning(connect: Any, table: str) -> None:
    assert connect.read.parquet(table).where("k = 42").count() == 1
    stats = sparkbloom.last_pruning(connect)
    assert set(stats) == set(sparkbloom.PRUNING_KEYS)
    assert stats["files_total"] == 3 and stats["files_skipped"] == 2
    rows = connect.sql("SELECT * FROM sparkbloom_last_pruning()").collect()
    assert rows[0]["files_skipped"] == 2
    skipped = {k: n for k, n in stats["files_by_decision"].items() if k.startswith("skipped_by_")}
    assert sum(skipped.values()) == 2, stats
    # the same report for a query planned and not run, through a temporary view of its plan
    (scan,) = sparkbloom.explain_pruning(connect.read.parquet(table).where("k = 42")).scans
    assert scan["files_skipped"] == 2 and scan["files_by_decision"] == stats["files_by_decision"], scan
    query = f"SELECT text FROM parquet.`{table}` WHERE text IN ('x', '77', '2999') ORDER BY text"
    pruned = [r["text"] for r in connect.sql(query).collect()]
    assert sparkbloom.last_pruning(connect)["files_skipped"] == 1
    # the oracle: sparkbloom and Parquet's own pushdown off
    connect.conf.set("spark.sparkbloom.enabled", "false")
    connect.conf.set("spark.sql.parquet.filterPushdown", "false")
    try:
        assert [r["text"] for r in connect.sql(query).collect()] == pruned == ["2999", "77"]
    finally:
        connect.conf.unset("spark.sparkbloom.enabled")
        connect.conf.unset("spark.sql.parquet.filterPushdown")


def test_inspect_and_might_contain(connect: Any, table: str) -> None:
    rows = sparkbloom.inspect(connect, table, ["k"]).collect()
    assert len(rows) == 3 and all(r["has_filter"] and r["column"] == "k" for r in rows)
    verdicts: dict[str, list[bool]] = {}
    for r in sparkbloom.might_contain(connect, table, "text", ["42", "99999"]).collect():
        verdicts.setdefault(r["value"], []).append(r["might_contain"])
    assert sum(verdicts["42"]) >= 1 and not any(verdicts["99999"])
    numbers = sparkbloom.might_contain(connect, table, "k", [42, "43"]).collect()
    assert sum(r["might_contain"] for r in numbers) >= 2


def test_index_commands_act_once(connect: Any, table: str) -> None:
    built = sparkbloom.build_index(connect, table, ["k"])
    assert built["files_indexed"] == 3 and built["rebuilt"] is True
    described = sparkbloom.describe_index(connect, table)
    assert described["files_covered"] == 3
    assert connect.read.parquet(table).where("k = 2999").count() == 1
    assert sparkbloom.last_pruning(connect)["files_covered_by_index"] == 3
    assert sparkbloom.drop_index(connect, table) is True
    assert sparkbloom.drop_index(connect, table) is False


def test_errors_are_translated_on_connect(connect: Any, table: str, tmp_path: Path) -> None:
    target = tmp_path / "bad"
    with pytest.raises(SparkBloomError, match=r"^\[sparkbloom\] column 'nope' in bloom_filter_columns does not exist"):
        connect.range(3).write.options(bloom_filter_columns="nope").parquet(str(target))
    assert not target.exists()
    with pytest.raises(SparkBloomError, match="'forty-two' cannot be probed in column 'k'"):
        sparkbloom.might_contain(connect, table, "k", ["forty-two"]).collect()
    with pytest.raises(SparkBloomError, match="path does not exist"):
        sparkbloom.inspect(connect, table + "-missing").collect()
    with pytest.raises(IllegalArgumentException, match="spark.sparkbloom.enabled"):
        connect.sql("SET spark.sparkbloom.enabled=yes")
    assert connect.read.parquet(table).where("k = 7").count() == 1
