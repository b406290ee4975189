# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Catalog tables with filters declared in TBLPROPERTIES, filled by INSERT, queried in SQL.

python examples/sql_tables.py [warehouse_dir]
"""

from __future__ import annotations

import sys
import tempfile

import sparkbloom


def main(warehouse: str) -> None:
    spark = sparkbloom.session(
        master="local[2]",
        app_name="sparkbloom-sql",
        conf={
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.warehouse.dir": warehouse,
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"sparkbloom {sparkbloom.version()}")
    spark.sql("""
        CREATE TABLE orders (order_id STRING, customer_id BIGINT, amount DECIMAL(10, 2), day DATE)
        USING parquet
        PARTITIONED BY (day)
        TBLPROPERTIES (bloom_filter_columns 'order_id,customer_id', bloom_filter_fpp '0.001')
    """)
    for day in ("2026-11-01", "2026-11-02", "2026-11-03"):
        spark.sql(f"""
            INSERT INTO orders
            SELECT uuid() AS order_id, CAST(rand(7) * 100000 AS BIGINT) AS customer_id,
                   CAST(rand(3) * 500 AS DECIMAL(10, 2)) AS amount, DATE'{day}' AS day
            FROM range(100000) DISTRIBUTE BY rand(1)
        """)
    one = spark.sql("SELECT order_id FROM orders LIMIT 1").first()["order_id"]
    # Each lookup's condition, the rows it found and the files sparkbloom skipped of those
    # partition pruning left (the last lookup reads one day's partition only).
    for condition in (
        f"order_id = '{one}'",
        "order_id = 'no-such-order'",
        "day = DATE'2026-11-02' AND customer_id IN (1, 2, 3)",
    ):
        found = spark.sql(f"SELECT count(*) AS n FROM orders WHERE {condition}").first()["n"]
        p = sparkbloom.last_pruning(spark)
        print(f"{condition}: {found} row(s), {p['files_skipped']}/{p['files_total']} files skipped")
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        with tempfile.TemporaryDirectory(prefix="sparkbloom-sql-") as tmp:
            main(tmp)
