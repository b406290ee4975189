"""sparkbloom: Parquet split block Bloom filter data skipping for Apache Spark.

The JVM extension does the work; this package ships its jar and sets sessions up.
"""

from sparkbloom.jar import jar_path
from sparkbloom.session import EXTENSION_CLASS, configure, session, version

__all__ = ["EXTENSION_CLASS", "configure", "jar_path", "session", "version"]
