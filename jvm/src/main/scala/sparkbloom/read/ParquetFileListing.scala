// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.FileNotFoundException

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex

/**
 * The data files under a path exactly as a Spark read of it lists them: through Spark's own
 * file index, so hidden and `_`-prefixed names, `pathGlobFilter`, `recursiveFileLookup` and
 * partition directories are handled as a scan handles them. In path order.
 */
private[sparkbloom] object ParquetFileListing {

  def list(spark: SparkSession, path: String, options: Map[String, String] = Map.empty): Seq[FileStatus] = {
    val root = new Path(path)
    // Spark lists a missing root as empty; a helper asked about it says so instead.
    if (!root.getFileSystem(spark.sessionState.newHadoopConf()).exists(root)) {
      throw new FileNotFoundException(s"$path does not exist")
    }
    new InMemoryFileIndex(spark, Seq(root), options, None).allFiles().sortBy(_.getPath.toString)
  }
}
