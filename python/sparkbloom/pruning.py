# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""What sparkbloom decided when Spark planned a scan."""

from __future__ import annotations

from pyspark.sql import SparkSession

from sparkbloom._sql import table_function

#: The keys of :func:`last_pruning`'s result.
PRUNING_KEYS = (
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


def last_pruning(spark: SparkSession) -> dict[str, int]:
    """Pruning of the last Parquet scan this session planned (``sparkbloom_last_pruning()``
    in SQL).

    Keys: ``files_total``, ``files_skipped``, ``row_groups_total``, ``row_groups_skipped``
    (row groups the driver ruled out, including those of skipped files),
    ``filter_bytes_read`` (footer-located filter bytes read on the driver, 0 when served
    from the cache), ``join_keys`` (keys of a join's other side or an ``IN``/``EXISTS``
    subquery probed at run time; 0 otherwise), ``probe_time_ms``, ``files_covered_by_index``
    and ``files_skipped_by_index`` (files a table index answered for, and ruled out; see
    :func:`sparkbloom.build_index`). An empty dict before the first scan; all zero
    for a scan with nothing to judge (``spark.sparkbloom.enabled`` off, or no ``=``, ``IN``
    or ``<=>`` on a literal).
    """
    rows = table_function(spark, "sparkbloom_last_pruning").collect()
    return {key: int(value) for key, value in rows[0].asDict().items()} if rows else {}
