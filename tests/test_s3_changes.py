# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""No stale verdict on an object store: objects replaced with the same length and time
(also under a DataFrame or catalog table that kept its listing), deleted, or gone between
listing and planning, on a real S3 server whose clock a proxy shows
far behind (tests/s3_changes_job.py says what each scenario does). It runs on the line of this
pytest run's interpreter: 4.3 in the default tier, and under `dev/test --all` also 3.5, whose
listings drop S3A's etags. SPARKBLOOM_S3_CHANGE_ROUNDS sets the randomized rounds (40; the
default tier runs 3)."""

from __future__ import annotations

import os

import pytest
from s3_support import CURRENT_LINE, ROOT, line_python, run_child

pytestmark = pytest.mark.s3

ROUNDS = int(os.environ.get("SPARKBLOOM_S3_CHANGE_ROUNDS", "40"))
SCENARIOS = (
    "driver cache",
    "executor probing",
    "executed again",
    "index",
    "kept listing",
    "deleted",
    "gone by planning",
)


def test_no_stale_verdict_after_objects_change(s3_env: dict[str, str]) -> None:
    python = line_python(CURRENT_LINE)
    assert python is not None
    job = ROOT / "tests" / "s3_changes_job.py"
    out = run_child(python, job, [f"changes-{CURRENT_LINE}", str(ROUNDS)], s3_env, timeout=900).splitlines()
    for scenario in SCENARIOS:
        assert f"OK {scenario}" in out, out[-40:]
    assert f"OK randomized {ROUNDS} rounds {ROUNDS * 3} lookups" in out, out[-40:]
