// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}

/** The Parquet data files under a path, as Spark would read them. */
object ParquetFileListing {

  /** A file, or every data file below a directory (skipping `_` and `.` names, like Spark). */
  def list(path: String, conf: Configuration): Seq[FileStatus] = {
    val root = new Path(path)
    val fs = root.getFileSystem(conf)
    def walk(status: FileStatus): Seq[FileStatus] =
      if (status.isDirectory)
        fs.listStatus(status.getPath).toSeq.filter(visible).sortBy(_.getPath.toString).flatMap(walk)
      else Seq(status)
    walk(fs.getFileStatus(root))
  }

  private def visible(status: FileStatus): Boolean = {
    val name = status.getPath.getName
    !name.startsWith("_") && !name.startsWith(".") && !name.endsWith(".crc")
  }
}
