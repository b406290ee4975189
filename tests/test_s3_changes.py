# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""No stale verdict on an object store: objects replaced with the same length and time,
deleted, or gone between listing and planning, on a real S3 server whose clock a proxy shows
far behind (tests/s3_changes_job.py says what each scenario does). The newest line runs in
the default tier; Spark 3.5, whose listings drop S3A's etags, in `dev/test --all`."""

from __future__ import annotations

import os

import pytest
from s3_support import CURRENT_LINE, ROOT, line_python, run_child

pytestmark = pytest.mark.s3

FULL = os.environ.get("SPARKBLOOM_TEST_ALL") == "1"
LINES = [CURRENT_LINE, *(["3.5"] if FULL else [])]


@pytest.mark.parametrize("line", LINES)
def test_no_stale_verdict_after_objects_change(s3_env: dict[str, str], line: str) -> None:
    python = line_python(line)
    assert python is not None, f"no venv for Spark {line}: dev/setup makes it"
    rounds = "40" if FULL else "12"
    out = run_child(python, ROOT / "tests" / "s3_changes_job.py", [f"changes-{line}", rounds], s3_env, timeout=900)
    for scenario in ("driver cache", "executor probing", "executed again", "index", "deleted", "gone by planning"):
        assert f"OK {scenario}" in out.splitlines(), out[-3000:]
    assert f"OK randomized {rounds} rounds {int(rounds) * 3} lookups" in out.splitlines(), out[-3000:]
