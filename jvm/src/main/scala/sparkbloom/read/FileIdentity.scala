// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.apache.hadoop.fs.{EtagSource, FileStatus, Path}

/**
 * What says a file is still the one an index entry was built from. An entry is trusted only
 * while the path, length, modification time and etag (object stores) are unchanged, and on
 * a local file system also the inode change time: a file rewritten in place with its length
 * kept and its modification time set back (`cp -p`, `touch -d`) keeps the other three, but
 * no user can set the change time back.
 */
private[sparkbloom] final case class FileIdentity(length: Long, modificationTime: Long, etag: String,
    changeTime: Long) {

  /**
   * Whether a rewrite could keep every field: no etag and no change time (HDFS, for one),
   * and modified so recently that a second write within the same clock tick would not show.
   */
  def unsettled(now: Long): Boolean =
    etag.isEmpty && changeTime < 0 && modificationTime > now - FileIdentity.SettleMillis

  /**
   * Whether `now` (the same path looked at again) is still this file: every field both know
   * is equal. An etag or change time that only one of them has is not compared: Spark's
   * listings drop the etag an object store's own status carries.
   */
  def sameFile(now: FileIdentity): Boolean =
    now.length == length && now.modificationTime == modificationTime &&
      (etag.isEmpty || now.etag.isEmpty || etag == now.etag) &&
      (changeTime < 0 || now.changeTime < 0 || changeTime == now.changeTime)

  /** Same length, modification time and etag: the cheap part, from a listing alone. */
  def sameListing(status: FileStatus): Boolean =
    status.getLen == length && status.getModificationTime == modificationTime && FileIdentity.etagOf(status) == etag
}

private[sparkbloom] object FileIdentity {

  /** Files younger than this, on file systems without etags or change times, are not indexed. */
  val SettleMillis: Long = 10000L

  def of(status: FileStatus): FileIdentity =
    FileIdentity(status.getLen, status.getModificationTime, etagOf(status), changeTimeOf(status.getPath))

  def etagOf(status: FileStatus): String = status match {
    case e: EtagSource => Option(e.getEtag).getOrElse("")
    case _ => ""
  }

  /** The inode change time of a `file:` path, in nanoseconds; -1 elsewhere or if unknown. */
  def changeTimeOf(path: Path): Long =
    if (path.toUri.getScheme != "file") -1L
    else
      try java.nio.file.Files.getAttribute(java.nio.file.Paths.get(path.toUri), "unix:ctime")
          .asInstanceOf[java.nio.file.attribute.FileTime].to(java.util.concurrent.TimeUnit.NANOSECONDS)
      catch { case _: UnsupportedOperationException | _: IllegalArgumentException | _: java.io.IOException => -1L }
}
