# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Every example runs as-is, in its own process, as a user would run it, and what it prints
is true: its rows, files and filters are checked against the files it wrote, read by DuckDB
(another engine and another reader of the same Bloom filters). Times are never checked
(bench/ measures speed); only that the example prints them."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(script: str, out: Path, *arguments: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / script), str(out), *arguments],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "sparkbloom" in result.stdout
    return result.stdout.splitlines()


def line(lines: list[str], pattern: str) -> re.Match[str]:
    """The one printed line that matches `pattern` (from its start)."""
    found = [m for m in map(re.compile(pattern).match, lines) if m]
    assert len(found) == 1, f"{pattern!r} in:\n" + "\n".join(lines)
    return found[0]


def data_files(table: Path) -> list[str]:
    files = sorted(str(p) for p in table.rglob("*.parquet") if not p.name.startswith("."))
    assert files, table
    return files


def files_holding(files: list[str], condition: str) -> tuple[int, set[str]]:
    """The rows that meet `condition` (SQL), and the files they are in, by DuckDB."""
    rows = duckdb.execute(
        f"SELECT filename FROM read_parquet({files!r}, filename = true, hive_partitioning = true) WHERE {condition}"
    ).fetchall()
    return len(rows), {r[0] for r in rows}


def files_kept_by_filters(files: list[str], column: str, values: Iterable[object]) -> set[str]:
    """The files some row group of which may hold one of `values`, by DuckDB's reading of the
    files' Bloom filters: what a lookup must read, false positives included."""
    kept: set[str] = set()
    for value in values:
        rows = duckdb.execute(
            "SELECT file_name FROM parquet_bloom_probe(?, ?, ?) WHERE NOT bloom_filter_excludes",
            [files, column, value],
        ).fetchall()
        kept |= {r[0] for r in rows}
    return kept


def test_every_example_is_tested() -> None:
    tested = {"quickstart.py", "inspect_and_tune.py", "sql_tables.py", "render_bench_chart.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_quickstart(tmp_path: Path) -> None:
    # The table at a tenth of its size (--files 100), each lookup timed once each way: the same
    # code and output, less time.
    lines = run("quickstart.py", tmp_path, "--files", "100", "--repeats", "1")
    files = data_files(tmp_path / "events")
    total = len(files)
    assert total == 100

    wrote = line(lines, r"wrote ([\d,]+) rows in (\d+) files with Bloom filters on user_id and email")
    assert (
        int(wrote[1].replace(",", "")) == duckdb.execute(f"SELECT count(*) FROM read_parquet({files!r})").fetchone()[0]
    )
    assert int(wrote[2]) == total
    chunks = duckdb.execute(
        f"SELECT path_in_schema, count(*), count(bloom_filter_offset) FROM parquet_metadata({files!r}) "
        "WHERE path_in_schema IN ('user_id', 'email') GROUP BY 1"
    ).fetchall()
    assert len(chunks) == 2 and all(n == with_filter for _, n, with_filter in chunks), chunks

    # the present email, an absent id, five ids: 1, 0 and 5 rows, each in a file of its own
    lookups = [
        m
        for m in (re.match(r"(.+?)\s+(\d+) row\(s\): (\d+)/(\d+) files skipped, .*\((\d+\.\d)x\)$", x) for x in lines)
        if m
    ]
    assert [m[1] for m in lookups] == [
        "email = 'user4242@example.com'",
        "user_id = -1",
        "user_id IN (1, 22, 333, 4444, 55555)",
    ], lines
    for m, claimed_rows in zip(lookups, (1, 0, 5)):
        condition, rows, skipped, files_total = m[1], int(m[2]), int(m[3]), int(m[4])
        expected_rows, holding = files_holding(files, condition)
        assert rows == expected_rows == claimed_rows, m.string
        assert len(holding) == rows, f"{condition}: rows in {len(holding)} files"
        assert files_total == total, m.string
        assert skipped == total - len(holding), m.string

    # EXPLAIN shows the present email's scan cut to the one file that holds it
    explain = line(lines, r"EXPLAIN: .*BloomPruning files (\d+) -> (\d+),")
    assert (int(explain[1]), int(explain[2])) == (total, len(files_holding(files, lookups[0][1])[1]))


def test_inspect_and_tune(tmp_path: Path) -> None:
    lines = run("inspect_and_tune.py", tmp_path)
    wanted = list(range(1, 200, 2))
    for table, fpp in (("users", 0.01), ("users_tuned", 0.0001)):
        files = data_files(tmp_path / table)
        # the summary table shown for it: chunks, with_filter, avg_bytes, avg_fpp, avg_ndv
        shown = line(lines, rf"written at fpp {fpp} " if table == "users" else rf"rewritten at fpp {fpp} ")
        summary = next(x for x in lines[lines.index(shown.string) :] if x.startswith("|user_id"))
        _, column, chunks, with_filter, _, avg_fpp, _, _ = summary.split("|")
        assert column.strip() == "user_id"
        in_files = duckdb.execute(
            f"SELECT count(*), count(bloom_filter_offset) FROM parquet_metadata({files!r}) "
            "WHERE path_in_schema = 'user_id'"
        ).fetchone()
        assert (int(chunks), int(with_filter)) == in_files
        assert 0 < float(avg_fpp) <= fpp

        found = line(
            lines,
            rf"user_id IN \(1, 3, \.\.\., 199\) at fpp {fpp}: (\d+) rows, (\d+)/(\d+) files skipped, "
            r"(\d+)/(\d+) row groups skipped$",
        )
        rows, holding = files_holding(files, f"user_id IN {tuple(wanted)}")
        assert int(found[1]) == rows == 0
        assert int(found[3]) == len(files)
        assert int(found[2]) == len(files) - len(files_kept_by_filters(files, "user_id", wanted))
        assert int(found[5]) == in_files[0]
    # the tuned table's filters: 42 may be in the one row group that holds it, 43 in none
    files = data_files(tmp_path / "users_tuned")
    row_groups = duckdb.execute(
        f"SELECT count(*) FROM parquet_metadata({files!r}) WHERE path_in_schema = 'user_id'"
    ).fetchone()[0]
    for value in (42, 43):
        probed = line(lines, rf"might_contain\(user_id = {value}\): (\d+) of (\d+) row groups$")
        maybe = duckdb.execute(
            "SELECT count(*) FROM parquet_bloom_probe(?, 'user_id', ?) WHERE NOT bloom_filter_excludes", [files, value]
        ).fetchone()[0]
        assert int(probed[1]) == maybe == (1 if value == 42 else 0)
        assert int(probed[2]) == row_groups


def test_sql_tables(tmp_path: Path) -> None:
    lines = run("sql_tables.py", tmp_path)
    files = data_files(tmp_path / "orders")
    lookups = [m for m in (re.match(r"(.+): (\d+) row\(s\), (\d+)/(\d+) files skipped$", x) for x in lines) if m]
    assert len(lookups) == 3, lines
    for m, claimed_rows in zip(lookups, (1, 0, None)):
        condition, rows, skipped, files_total = m[1], int(m[2]), int(m[3]), int(m[4])
        expected_rows, holding = files_holding(files, condition)
        assert rows == expected_rows, m.string
        if claimed_rows is not None:
            assert rows == claimed_rows, m.string
        # the day's lookup is judged over that day's files, what partition pruning left
        judged = [f for f in files if "day=2026-11-02" in f] if "day =" in condition else files
        assert files_total == len(judged), m.string
        column, values = (
            ("customer_id", [1, 2, 3]) if "customer_id" in condition else ("order_id", [condition.split("'")[1]])
        )
        kept = files_kept_by_filters(judged, column, values)
        assert holding <= kept
        assert skipped == len(judged) - len(kept), m.string


def test_render_bench_chart(tmp_path: Path) -> None:
    lines = run("render_bench_chart.py", tmp_path)
    data = json.loads((ROOT / "bench" / "results" / "lookup.json").read_text())
    shapes = data["shapes"]
    written = line(lines, r"sparkbloom benchmark chart written to (.+): (\d+) panels \((.*)\), (\d+) bars$")
    chart = tmp_path / "lookup.png"
    assert Path(written[1]) == chart
    assert int(written[2]) == len(shapes) and written[3].split(", ") == list(shapes)
    # a bar per layout and query of every shape
    assert int(written[4]) == sum(len(results) * len(next(iter(results.values()))) for results in shapes.values())
    png = chart.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # 13 x 5 inches per panel at 90 dpi
    assert struct.unpack(">II", png[16:24]) == (13 * 90, 5 * 90 * len(shapes))
