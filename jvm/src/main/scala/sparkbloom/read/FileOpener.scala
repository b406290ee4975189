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

  /**
   * Whether a path names one file for ever (a table format's data files, which the format
   * never writes twice), so that a file's path and length are its version: its footer and
   * filters may be cached and its index entry used without an etag or a confirmed listing.
   * The format's own metadata (its log or manifests) makes the same assumption
   * about the same files.
   */
  def immutableFiles: Boolean
}

private[sparkbloom] object FileOpener {

  /**
   * Files opened through Hadoop's file system by path. A status with an etag is the file
   * system's own (a listing's, or a HEAD's): opened with it, an object store asks no HEAD the
   * listing answered, and S3A reads only the version that etag names. Any other status is
   * handed over only for an immutable file: S3A would take it for a version of unknown etag,
   * and then serve whatever version of the path it finds, which for such a file is the one.
   * S3A objects are opened through [[ProbeFileSystems]], for reads of exactly the ranges asked.
   */
  sealed abstract class HadoopFiles(val immutableFiles: Boolean) extends FileOpener {
    def open(status: FileStatus, conf: Configuration): SeekableInputStream = {
      val fs = ProbeFileSystems.forProbing(status.getPath, conf)
      val builder = fs.openFile(status.getPath).opt("fs.option.openfile.read.policy", "random")
      if (immutableFiles || FileIdentity.etagOf(status).nonEmpty) builder.withFileStatus(status)
      HadoopStreams.wrap(FutureIO.awaitFuture(builder.build()))
    }
  }

  /** Files that may be rewritten in place (a Parquet directory's). */
  object HadoopFileSystem extends HadoopFiles(immutableFiles = false)

  /** The data files of a table format's snapshot, read through Hadoop's file system. */
  object SnapshotFiles extends HadoopFiles(immutableFiles = true)
}
