# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What sparkbloom decided when Spark planned a scan, and why."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, Row, SparkSession

from sparkbloom._sql import table_function

#: The counts of a pruning report (:func:`last_pruning`, :func:`explain_pruning`).
COUNT_KEYS = (
    "files_total",
    "files_skipped",
    "row_groups_total",
    "row_groups_skipped",
    "filter_bytes_read",
    "join_keys",
    "probe_time_ms",
    "files_covered_by_index",
    "files_skipped_by_index",
)

#: The keys of :func:`last_pruning`'s result: the counts, then what decided each file and row group.
PRUNING_KEYS = (*COUNT_KEYS, "files_by_decision", "row_groups_by_decision", "filters", "scan_unjudged")


def _report(row: Row) -> dict[str, Any]:
    values = row.asDict(recursive=True)
    report: dict[str, Any] = {key: int(values[key]) for key in COUNT_KEYS}
    report["files_by_decision"] = {k: int(v) for k, v in sorted(values["files_by_decision"].items())}
    report["row_groups_by_decision"] = {k: int(v) for k, v in sorted(values["row_groups_by_decision"].items())}
    report["filters"] = [dict(f) for f in values["filters"]]
    report["scan_unjudged"] = values["scan_unjudged"]
    return report


def last_pruning(spark: SparkSession) -> dict[str, Any]:
    """Pruning of the last Parquet scan this session planned (``sparkbloom_last_pruning()``
    in SQL).

    Counts: ``files_total``, ``files_skipped``, ``row_groups_total``, ``row_groups_skipped``
    (row groups the driver ruled out, including those of skipped files),
    ``filter_bytes_read`` (footer-located filter bytes read on the driver, 0 when served
    from the cache), ``join_keys`` (keys of a join's other side or an ``IN``/``EXISTS``
    subquery probed at run time; 0 otherwise), ``probe_time_ms``, ``files_covered_by_index``
    and ``files_skipped_by_index`` (files a table index answered for, and ruled out; see
    :func:`sparkbloom.build_index`).

    Why: ``files_by_decision`` and ``row_groups_by_decision`` count what skipped each file and
    row group (``skipped_by_filter``, ``skipped_by_index``, ``skipped_by_statistics``), or why
    it was kept (``maybe``: a filter says the key may be there; any other key: kept unjudged,
    for the reason docs/pruning.md explains). ``filters``: per filter column, the files judged
    by its filters, their worst and median estimated false-positive rate, and files whose
    filter was too full to use. ``scan_unjudged``: why the scan as a whole was not judged
    (``sparkbloom_off``, ``no_point_predicate``, ...), else None.

    An empty dict before the first scan.
    """
    rows = table_function(spark, "sparkbloom_last_pruning").collect()
    return _report(rows[0]) if rows else {}


@dataclass
class PruningReport:
    """What sparkbloom decides for each scan of a query: ``scans`` (one dict per scan, with
    ``scan`` naming it and :func:`last_pruning`'s keys) and ``text``, a readable rendering."""

    scans: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(_render(i + 1, scan) for i, scan in enumerate(self.scans)) or "no scan sparkbloom judges"

    def __str__(self) -> str:
        return self.text


def explain_pruning(df: DataFrame) -> PruningReport:
    """Plans ``df`` without running it and reports, for each scan sparkbloom judges, the files
    and row groups it skips and why the others are kept (classic and Spark Connect;
    ``sparkbloom_explain_pruning('view')`` in SQL). A scan pruned only by a join's keys is
    decided when the query runs: its ``scan_unjudged`` is ``decided_when_run``."""
    spark = df.sparkSession
    view = f"sparkbloom_explain_{uuid.uuid4().hex}"
    df.createOrReplaceTempView(view)
    try:
        rows = table_function(spark, "sparkbloom_explain_pruning", view).collect()
    finally:
        spark.catalog.dropTempView(view)
    return PruningReport([{"scan": row["scan"], **_report(row)} for row in rows])


def _render(number: int, scan: dict[str, Any]) -> str:
    lines = [f"scan {number}: {scan['scan']}"]
    if scan["scan_unjudged"]:
        lines.append(f"  not judged: {scan['scan_unjudged']}")
    else:
        kept = scan["files_total"] - scan["files_skipped"]
        lines.append(f"  files {scan['files_total']} -> {kept}: {_counts(scan['files_by_decision'])}")
        if scan["row_groups_total"]:
            kept_groups = scan["row_groups_total"] - scan["row_groups_skipped"]
            lines.append(
                f"  row groups {scan['row_groups_total']} -> {kept_groups}: {_counts(scan['row_groups_by_decision'])}"
            )
    for f in scan["filters"]:
        saturated = f"; saturated: {', '.join(f['saturated'])}" if f["saturated"] else ""
        lines.append(
            f"  filters of {f['column']}: {f['files']} files, false-positive rate worst {f['worst_fpp']:.3g}, "
            f"median {f['median_fpp']:.3g}{saturated}"
        )
    return "\n".join(lines)


def _counts(by_decision: dict[str, int]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(by_decision.items(), key=lambda kv: (-kv[1], kv[0]))) or "-"
