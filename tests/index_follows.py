# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Waiting for a table index's background refresh after a write (Delta, Iceberg and S3 tests)."""

from __future__ import annotations

import time
from typing import Any

import sparkbloom


def index_follows(spark: Any, table: str, files: int, timeout: float = 180) -> dict[str, Any]:
    """The index of ``table`` once it covers the table's ``files`` current files, with at most
    as many entries of removed files (they go with their segment, or with a rebuild once they
    outnumber the rest); fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        described = sparkbloom.describe_index(spark, table)
        done = described["files_covered"] == described["files_total"] == files >= described["entries"] / 2
        if done or time.monotonic() > deadline:
            assert done, f"{files} files now, index: {sorted(described.items())}"
            return described
        time.sleep(0.25)
