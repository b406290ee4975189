// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.hadoop.util.functional.FutureIO
import org.apache.parquet.hadoop.util.HadoopStreams
import org.apache.parquet.io.SeekableInputStream

/**
 * How a file's bytes are opened for its footer and filters: through Hadoop's file system for
 * its path, or through a table's own IO (Iceberg's `FileIO`, which carries the credentials
 * its catalog vends). Serializable: it travels with the files to executors that probe them.
 */
private[sparkbloom] trait FileOpener extends Serializable {
  def open(status: FileStatus, conf: Configuration): SeekableInputStream
}

private[sparkbloom] object FileOpener {

  /**
   * A status with an etag is the file system's own (a listing's, or a HEAD's): opened with it,
   * an object store asks no HEAD the listing answered, and S3A reads only the version that
   * etag names. Any other status is not handed over: S3A would take it for a version of
   * unknown etag, and then serve whatever version of the path it finds. S3A objects are
   * opened through [[ProbeFileSystems]], for reads of exactly the ranges asked.
   */
  object HadoopFileSystem extends FileOpener {
    def open(status: FileStatus, conf: Configuration): SeekableInputStream = {
      val fs = ProbeFileSystems.forProbing(status.getPath, conf)
      val builder = fs.openFile(status.getPath).opt("fs.option.openfile.read.policy", "random")
      if (FileIdentity.etagOf(status).nonEmpty) builder.withFileStatus(status)
      HadoopStreams.wrap(FutureIO.awaitFuture(builder.build()))
    }
  }
}
