# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""``sparkbloom`` command line: inspect files' Bloom filters and probe them for values.

    sparkbloom inspect PATH [--columns a,b] [--json]
    sparkbloom probe PATH COLUMN VALUE [VALUE ...]
    sparkbloom index build PATH_OR_TABLE --columns a,b [--fpp F]
    sparkbloom index refresh|describe|drop PATH_OR_TABLE

Every command takes --master (default local[*]) and --conf KEY=VALUE (repeatable: storage
credentials, Parquet encryption keys, any Spark setting); --version prints the versions.

Exit codes: 0 found (inspect: some filter found; probe: some value may be present),
1 none, 2 error. Many files are read by a local Spark job, whose console progress bar
shows how far it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

EXIT_FOUND, EXIT_NONE, EXIT_ERROR = 0, 1, 2


def _summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_column: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_column[row["column"]].append(row)
    out = []
    for column, chunks in sorted(by_column.items()):
        filtered = [c for c in chunks if c["has_filter"]]
        out.append(
            {
                "column": column,
                "physical_type": chunks[0]["physical_type"],
                "files": len({c["file"] for c in chunks}),
                "row_groups": len(chunks),
                "with_filter": len(filtered),
                "coverage": len(filtered) / len(chunks),
                "filter_bytes": sum(c["filter_bytes"] for c in filtered),
                "mean_fpp": sum(c["estimated_fpp"] for c in filtered) / len(filtered) if filtered else None,
                "with_length": sum(1 for c in filtered if c["has_length"]),
                "dictionary_only": sum(1 for c in chunks if c["dictionary_only"]),
                "problems": sorted({c["problem"] for c in chunks if c["problem"]}),
            }
        )
    return out


def _print_table(summary: list[dict[str, Any]]) -> None:
    header = f"{'column':24} {'type':22} {'files':>6} {'row groups':>10} {'coverage':>9} {'bytes':>12} {'fpp':>9}"
    print(header)
    print("-" * len(header))
    for s in summary:
        fpp = f"{s['mean_fpp']:.5f}" if s["mean_fpp"] is not None else "-"
        print(
            f"{s['column']:24} {s['physical_type']:22} {s['files']:>6} {s['row_groups']:>10} "
            f"{s['coverage']:>8.0%} {s['filter_bytes']:>12} {fpp:>9}"
        )
        for problem in s["problems"]:
            print(f"  ! {problem}")


def _index(spark: Any, args: argparse.Namespace) -> int:
    import sparkbloom

    if args.action == "drop":
        dropped = sparkbloom.drop_index(spark, args.path)
        print("index dropped" if dropped else "there was no index")
        return EXIT_FOUND if dropped else EXIT_NONE
    if args.action == "describe":
        result = sparkbloom.describe_index(spark, args.path)
    else:
        columns = [c.strip() for c in args.columns.split(",")] if args.action == "build" else None
        result = sparkbloom.build_index(spark, args.path, columns, args.fpp)
    print(json.dumps(result, indent=2, default=str))
    return EXIT_FOUND


def _versions() -> str:
    """This package's version and the pyspark it runs with (no Spark is started)."""
    from importlib.metadata import PackageNotFoundError, version

    def of(package: str) -> str:
        try:
            return version(package)
        except PackageNotFoundError:
            return "not installed"

    from sparkbloom import __version__  # the package's own VERSION: current in an editable install too

    return f"sparkbloom {__version__} (pyspark {of('pyspark')})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sparkbloom", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=_versions())
    parser.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    parser.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, repeatable (credentials, encryption keys, ...)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    inspect_cmd = commands.add_parser("inspect", help="summarize the Bloom filters of Parquet files")
    inspect_cmd.add_argument("path")
    inspect_cmd.add_argument("--columns", help="comma-separated column paths")
    inspect_cmd.add_argument("--json", action="store_true", help="print JSON instead of a table")
    probe_cmd = commands.add_parser("probe", help="could these values be in the files?")
    probe_cmd.add_argument("path")
    probe_cmd.add_argument("column")
    probe_cmd.add_argument("values", nargs="+")
    probe_cmd.add_argument("--json", action="store_true")
    index_cmd = commands.add_parser("index", help="build, refresh, describe or drop a table's Bloom index")
    index_cmd.add_argument("action", choices=["build", "refresh", "describe", "drop"])
    index_cmd.add_argument("path")
    index_cmd.add_argument("--columns", help="comma-separated columns (build)")
    index_cmd.add_argument("--fpp", type=float, help="false-positive probability per unit (build)")
    args = parser.parse_args(argv)
    settings = {}
    for entry in args.conf:
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            parser.error(f"--conf takes KEY=VALUE, got {entry!r}")
        settings[key.strip()] = value
    if args.command == "index" and args.action == "build" and not args.columns:
        parser.error("index build needs --columns")

    import sparkbloom  # Spark starts only for a command that parsed

    try:
        spark = sparkbloom.session(
            master=args.master,
            app_name="sparkbloom-cli",
            conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "true", **settings},
        )
        spark.sparkContext.setLogLevel("ERROR")
        if args.command == "inspect":
            columns = [c.strip() for c in args.columns.split(",")] if args.columns else None
            rows = [r.asDict() for r in sparkbloom.inspect(spark, args.path, columns).collect()]
            summary = _summary(rows)
            if args.json:
                print(json.dumps(summary, indent=2))
            else:
                _print_table(summary)
            return EXIT_FOUND if any(s["with_filter"] for s in summary) else EXIT_NONE
        if args.command == "index":
            return _index(spark, args)
        # Text as given: the JVM casts each value to the file column's type (a clear error if it cannot).
        rows = [r.asDict() for r in sparkbloom.might_contain(spark, args.path, args.column, args.values).collect()]
        verdicts: dict[str, list[bool]] = {}
        for row in rows:
            verdicts.setdefault(row["value"], []).append(row["might_contain"])
        if args.json:
            print(json.dumps({v: {"row_groups": len(m), "may_contain": sum(m)} for v, m in verdicts.items()}, indent=2))
        else:
            for value, marks in verdicts.items():
                print(f"{value}: may be in {sum(marks)} of {len(marks)} row groups")
        return EXIT_FOUND if any(any(m) for m in verdicts.values()) else EXIT_NONE
    except Exception as error:  # noqa: BLE001 - the CLI reports every failure as exit 2
        print(f"sparkbloom: {error}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
