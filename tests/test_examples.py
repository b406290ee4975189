# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Every example runs as-is, in its own process, as a user would run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
# The quickstart's table at a thirtieth of its size: the same code and output, a quarter of the time.
ARGUMENTS = {"quickstart.py": ["--files", "100"]}


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / script), str(tmp_path), *ARGUMENTS.get(script, [])],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "sparkbloom" in result.stdout
