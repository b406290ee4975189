# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""sparkbloom on s3a:// against a real S3 server on loopback (SeaweedFS, dev/s3-server), with
each Spark line's S3A jars (dev/s3-jars): writes with filters, lookups by =, IN and <=> that
skip files and row groups, join pruning, the table index, inspect, might_contain and the
command line (tests/s3_job.py), a Delta table, and the table index of a Delta and an Iceberg
table following their commits.

Each case runs one Spark process (s3_support.run_child), as the JVM needs the S3A jars at
start and the Delta case runs Delta's line. The Parquet case runs on the line of this pytest
run's interpreter: 4.3 in dev/test's default tier, and under `dev/test --all` also on 3.5,
whose pytest run takes this module too (its S3A is hadoop-aws 3.3 with AWS SDK v1). The Delta
case runs once, from the newest line's run. A server that cannot be installed or started
fails the tests, as does a missing venv or jar."""

from __future__ import annotations

import pytest
from s3_support import (
    CURRENT_LINE,
    ROOT,
    delta_jars,
    iceberg_jar,
    line_python,
    newest_delta_line,
    newest_iceberg_line,
    newest_line,
    run_child,
)

pytestmark = pytest.mark.s3

JOB = ROOT / "tests" / "s3_job.py"

PARQUET_STEPS = [
    "write",
    "equals",
    "in",
    "null-safe equals",
    "absent",
    "in v2",
    "join",
    "index lookup",
    "index with an added file",
    "index refreshed",
    "might_contain",
    "cli inspect",
]
DELTA_STEPS = [
    "delta write",
    "delta equals",
    "delta absent",
    "delta index follows append",
    "delta index follows delete",
]
ICEBERG_STEPS = ["iceberg index lookup", "iceberg index follows append", "iceberg index follows delete"]


def steps_passed(out: str) -> list[str]:
    return [line[len("PASSED ") :].split(":", 1)[0] for line in out.splitlines() if line.startswith("PASSED ")]


def test_sparkbloom_features_on_s3a(s3_env: dict[str, str]) -> None:
    python = line_python(CURRENT_LINE)
    assert python is not None
    out = run_child(python, JOB, ["parquet", f"features-{CURRENT_LINE}"], s3_env)
    assert steps_passed(out) == PARQUET_STEPS, out


@pytest.mark.skipif(CURRENT_LINE != newest_line(), reason="the newest line's pytest run covers Delta on S3")
def test_delta_table_on_s3a_skips_files(s3_env: dict[str, str]) -> None:
    line = newest_delta_line()
    python = line_python(line)
    assert python is not None, f"no venv for Spark {line}: run dev/setup"
    out = run_child(python, JOB, ["delta", f"delta-{line}", *delta_jars(line)], s3_env)
    assert steps_passed(out) == DELTA_STEPS, out


@pytest.mark.skipif(CURRENT_LINE != newest_line(), reason="the newest line's pytest run covers Iceberg on S3")
def test_iceberg_table_index_on_s3a_follows_commits(s3_env: dict[str, str]) -> None:
    line = newest_iceberg_line()
    python = line_python(line)
    assert python is not None, f"no venv for Spark {line}: run dev/setup"
    out = run_child(python, JOB, ["iceberg", f"iceberg-{line}", iceberg_jar(line)], s3_env)
    assert steps_passed(out) == ICEBERG_STEPS, out
