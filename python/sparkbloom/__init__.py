# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""sparkbloom: Parquet split block Bloom filter data skipping for Apache Spark.

The JVM extension does the work; this package ships its jar, sets sessions up and
exposes the extension's configuration and helpers.
"""

from importlib import resources as _resources

from sparkbloom.errors import SparkBloomError, install_translation
from sparkbloom.index import build_index, describe_index, drop_index
from sparkbloom.inspect import INSPECT_COLUMNS, inspect, might_contain
from sparkbloom.jar import ICEBERG_LINES, SPARK_LINES, UnsupportedSparkVersion, jar_path
from sparkbloom.options import write_options
from sparkbloom.pruning import PRUNING_KEYS, PruningReport, explain_pruning, last_pruning
from sparkbloom.session import EXTENSION_CLASS, configure, session, version

# the package's release; the jars it ships carry the same (their manifests, sparkbloom.version())
__version__ = (_resources.files(__name__) / "VERSION").read_text().strip()

__all__ = [
    "EXTENSION_CLASS",
    "ICEBERG_LINES",
    "INSPECT_COLUMNS",
    "PRUNING_KEYS",
    "PruningReport",
    "SPARK_LINES",
    "SparkBloomError",
    "UnsupportedSparkVersion",
    "__version__",
    "build_index",
    "configure",
    "describe_index",
    "drop_index",
    "explain_pruning",
    "inspect",
    "jar_path",
    "last_pruning",
    "might_contain",
    "session",
    "version",
    "write_options",
]

install_translation()
