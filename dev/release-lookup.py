# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""dev/release runs this through spark-submit with --packages: the jar Spark resolved from
dist/maven, and nothing of the Python package, loads the extension, writes filters and
prunes a lookup. Arguments: the release's version and a directory to write in."""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession

version, directory = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.getOrCreate()
loaded = spark.sql("SELECT * FROM sparkbloom_version()").first()["version"]
assert loaded == version, (loaded, version)

# keys spread over every file, so that no file's min/max statistics rule a key out: only
# the filters can
table = f"{directory}/keys"
(
    spark.range(0, 20000, 1, 20)
    .selectExpr("id", "sha2(CAST(id AS STRING), 256) AS k")
    .write.option("bloom_filter_columns", "k")
    .mode("overwrite")
    .parquet(table)
)
key = spark.sql("SELECT sha2('4242', 256) AS k").first()["k"]
found = spark.read.parquet(table).where(f"k = '{key}'").select("id").collect()
assert [r["id"] for r in found] == [4242], found
pruning = spark.sql("SELECT * FROM sparkbloom_last_pruning()").first().asDict()
assert pruning["files_total"] == 20 and pruning["files_skipped"] == 19, pruning
print(f"[release] Spark {spark.version}: sparkbloom {loaded} from --packages skipped 19 of 20 files")
spark.stop()
