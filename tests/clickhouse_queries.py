# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Runs ClickHouse queries (JSON list on stdin) in whatever chdb is first on the path, and
prints one JSON line: the ClickHouse version and, per query, its count or its error.
The interop tests run it with an older chdb in a child process."""

from __future__ import annotations

import json
import sys

import chdb
from chdb import session as chdb_session


def main() -> None:
    queries = json.load(sys.stdin)
    session = chdb_session.Session()
    version = session.query("SELECT version()", "TSVRaw").bytes().decode().strip()
    results: list[dict[str, object]] = []
    for sql in queries:
        try:
            results.append({"count": int(session.query(sql, "TSVRaw").bytes().decode().strip() or 0)})
        except Exception as e:  # an engine's refusal is the answer being collected
            results.append({"error": str(e)[:500]})
    print(json.dumps({"version": version, "chdb": chdb.__version__, "results": results}))


if __name__ == "__main__":
    main()
