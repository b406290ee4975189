# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What the s3a:// tests share: the S3 server on loopback (dev/s3-server), each Spark line's
interpreter and S3A jars (dev/lines, dev/s3-jars), and Spark in a child process.

A test cannot use the shared session of tests/conftest.py: the JVM needs the S3A jars when it
starts, and another line's case runs that line's venv. So a test runs a script in a child
process (:func:`run_child`), and the script makes its session with :func:`spark_builder`:

    # the child script
    from s3_support import spark_builder, s3_path
    spark = spark_builder().getOrCreate()
    spark.range(10).write.parquet(s3_path("t"))

    # the test
    def test_it(s3_env):
        out = run_child(line_python(CURRENT_LINE), SCRIPT, [], s3_env)
        assert "..." in out.splitlines()

This module is imported by the tests (under pytest) and by the child scripts (no pytest
there), so it imports only the standard library and pyspark at its top.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pyspark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
CURRENT_LINE = ".".join(pyspark.__version__.split(".")[:2])

# The child's environment: where run_child put the line's S3A jars for spark_builder.
S3_JARS_ENV = "SPARKBLOOM_S3_JARS"


def start_s3_server() -> dict[str, str]:
    """Starts dev/s3-server (or finds it running) and returns os.environ with the server's
    exports added (SPARKBLOOM_S3_ENDPOINT, _BUCKET, _SPARK_CONF, ...). A server that cannot be
    installed or started fails: an S3 test never skips for want of its server."""
    started = subprocess.run([str(ROOT / "dev" / "s3-server"), "start"], capture_output=True, text=True)
    if started.returncode != 0:
        raise AssertionError(f"dev/s3-server start failed: {started.stderr.strip()[-2000:]}")
    env = dict(os.environ)
    for line in started.stdout.splitlines():
        if line.startswith("export "):
            key, value = line[len("export ") :].split("=", 1)
            env[key] = shlex.split(value)[0] if value else ""
    return env


def stop_s3_server() -> None:
    """Stops dev/s3-server and removes its data."""
    subprocess.run([str(ROOT / "dev" / "s3-server"), "stop"], check=False)


def line_python(line: str) -> Path | None:
    """The interpreter of a Spark line: this one for the line running, else the line's venv
    (dev/lines) if dev/setup made it."""
    if line == CURRENT_LINE:
        return Path(sys.executable)
    python = ROOT / ".cache" / "lines" / line / "venv" / "bin" / "python"
    return python if python.exists() else None


def python_line(python: Path | str) -> str:
    """The Spark line of an interpreter (the pyspark it imports)."""
    if Path(python) == Path(sys.executable):
        return CURRENT_LINE
    version = subprocess.run(
        [str(python), "-c", "import pyspark; print(pyspark.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return ".".join(version.split(".")[:2])


def spark_lines() -> list[list[str]]:
    """dev/spark-lines' rows, oldest line first: line, pyspark, scala, tests, delta ("-": none)."""
    rows = [row.split() for row in (ROOT / "dev" / "spark-lines").read_text().splitlines()]
    return [fields for fields in rows if fields and not fields[0].startswith("#")]


def newest_line() -> str:
    """The newest Spark line: the one .venv runs, and the default test tier."""
    return spark_lines()[-1][0]


def newest_delta_line() -> str:
    """The newest Spark line with a Delta Lake release."""
    return [fields[0] for fields in spark_lines() if fields[4] != "-"][-1]


def newest_iceberg_line() -> str:
    """The newest Spark line with an Apache Iceberg release."""
    return [fields[0] for fields in spark_lines() if fields[5] != "-"][-1]


def iceberg_jar(line: str) -> str:
    """Iceberg's Spark runtime jar for a Spark line (dev/iceberg-jars: dev/setup fetches the newest line's)."""
    jars = sorted(str(jar) for jar in (ROOT / ".cache" / "iceberg" / line / "jars").glob("*.jar"))
    if len(jars) != 1:
        raise AssertionError(
            f"Iceberg's runtime jar for Spark {line} is missing from .cache/iceberg: run dev/iceberg-jars {line}"
        )
    return jars[0]


def delta_jars(line: str) -> list[str]:
    """Delta Lake's two jars for a Spark line (dev/delta-jars: dev/setup fetches the newest line's)."""
    jars = sorted(str(jar) for jar in (ROOT / ".cache" / "delta" / line / "jars").glob("*.jar"))
    if len(jars) != 2:
        raise AssertionError(f"Delta's jars for Spark {line} are missing from .cache/delta: run dev/delta-jars {line}")
    return jars


def s3_jars(line: str) -> Path:
    """The directory of a Spark line's S3A jars, fetched by dev/s3-jars on first use."""
    fetched = subprocess.run([str(ROOT / "dev" / "s3-jars"), line], capture_output=True, text=True)
    if fetched.returncode != 0:
        raise AssertionError(f"dev/s3-jars {line} failed: {fetched.stderr.strip()[-2000:]}")
    return ROOT / ".cache" / "s3" / line / "jars"


def child_command(
    python: Path | str, script: str | Path, args: Sequence[str], env: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """The command and environment :func:`run_child` runs ``script`` with, for a test that
    runs several children at once."""
    line = python_line(python)
    paths = [str(ROOT / "python"), str(ROOT / "tests")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    child_env = {**env, "PYTHONPATH": os.pathsep.join(paths), S3_JARS_ENV: str(s3_jars(line))}
    return [str(python), *(["-c", script] if isinstance(script, str) else [str(script)]), *args], child_env


def run_child(
    python: Path | str,
    script: str | Path,
    args: Sequence[str],
    env: Mapping[str, str],
    timeout: float = 600,
) -> str:
    """Runs ``script`` (Python source, or a file) with ``python`` and ``args``; returns its
    stdout, and fails with the end of its output unless it exits 0.

    ``env`` is :func:`start_s3_server`'s (the ``s3_env`` fixture). The child imports this
    checkout's ``sparkbloom`` package (``python/``, with the jars dev/build-jars bundled) and
    this module, whatever the interpreter has installed, and finds the S3A jars of the
    interpreter's line for :func:`spark_builder`."""
    command, child_env = child_command(python, script, args, env)
    done = subprocess.run(command, env=child_env, capture_output=True, text=True, timeout=timeout)
    # a JVM's error ends in a long stack: its first lines (what was thrown, and where the
    # Python side failed) are kept apart from the tail
    raised = [line for line in done.stderr.splitlines() if _RAISED.search(line)][:20]
    assert done.returncode == 0, (
        f"exit {done.returncode}\n{done.stdout[-3000:]}\nraised:\n"
        + "\n".join(raised)
        + f"\n...\n{done.stderr[-6000:]}"
    )
    return done.stdout


_RAISED = re.compile(r"^(Traceback|\S*(Exception|Error)\b|Caused by:|\s*File \")")


# In the child


def s3_path(name: str) -> str:
    """``s3a://<bucket>/<name>`` on the server of this process's environment."""
    return f"s3a://{os.environ['SPARKBLOOM_S3_BUCKET']}/{name}"


def s3_conf() -> dict[str, str]:
    """The Spark settings that reach the server (``spark.hadoop.fs.s3a.*``), as a dict."""
    return dict(setting.split("=", 1) for setting in os.environ["SPARKBLOOM_S3_SPARK_CONF"].split())


def spark_builder(conf: Mapping[str, str] | None = None, jars: Sequence[str] = ()) -> SparkSession.Builder:
    """A local[2] session builder with the line's S3A jars, ``jars``, the S3 settings, ``conf``
    and sparkbloom (its jar and extension, appended by ``sparkbloom.configure``): call
    ``.getOrCreate()``. For a child of :func:`run_child`."""
    from pyspark.sql import SparkSession

    import sparkbloom

    s3a = sorted(str(jar) for jar in Path(os.environ[S3_JARS_ENV]).glob("*.jar"))
    builder = (
        SparkSession.builder.master("local[2]")
        .config("spark.jars", ",".join([*s3a, *jars]))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
    )
    for key, value in {**s3_conf(), **(conf or {})}.items():
        builder = builder.config(key, value)
    return sparkbloom.configure(builder)
