# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""sparkbloom across JVMs: Spark's local-cluster mode, with the jar shipped via spark.jars."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

JOB = Path(__file__).resolve().parent / "cluster_job.py"


def test_local_cluster_write_prune_join_and_executor_loss(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(JOB), str(tmp_path)], capture_output=True, text=True, timeout=900)
    lines = [line for line in result.stdout.splitlines() if line.startswith("FINDINGS ")]
    assert result.returncode == 0 and lines, result.stdout[-3000:] + result.stderr[-5000:]
    found = json.loads(lines[0].removeprefix("FINDINGS "))
    assert found["present"] == 1
    assert found["pruning"]["files_skipped"] >= found["pruning"]["files_total"] - 2
    assert found["absent"] == 0
    assert found["pruning_absent"]["files_skipped"] == found["pruning_absent"]["files_total"] == 8
    assert found["filters"] == found["chunks"] > 0
    assert found["join_rows"] == 20 and found["join_broadcast"]
    assert found["join_pruning"]["join_keys"] == 20
    # the 20 keys (0 to 133) all lie in the first of 8 files (spark.range writes ranges)
    assert found["join_pruning"]["files_skipped"] == 7
    assert found["probed_present"] == 1 and found["probed_after_refresh"] == 1 and found["probed_uncached"] == 0
    assert found["probed_pruning"]["files_skipped"] >= found["probed_pruning"]["files_total"] - 2
    assert found["probed_uncached_pruning"]["files_skipped"] == 8
    assert found["killed"], "no executor was killed during the write"
    assert found["retried_rows"] == found["retried_distinct"] == 200_000
    assert found["retried_lookup"] == 1
    assert found["retried_filters_missing"] == 0
