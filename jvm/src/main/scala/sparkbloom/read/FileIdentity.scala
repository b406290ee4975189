// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.util.concurrent.Callable

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{CommonPathCapabilities, EtagSource, FileStatus, Path}

import sparkbloom.runtime.BloomRuntime

/**
 * What says a file is still the one an index entry was built from. An entry is trusted only
 * while the path, length, modification time and etag (object stores) are unchanged, and on
 * a local file system also the inode change time: a file rewritten in place with its length
 * kept and its modification time set back (`cp -p`, `touch -d`) keeps the other three, but
 * no user can set the change time back.
 *
 * A time alone never tells a rewrite on an object store: S3 gives whole seconds, so an object
 * replaced within the same second with the same length keeps its length and `LastModified`,
 * and only the etag changes. A modification time of whole seconds is therefore never taken as
 * an identity without an etag or a change time ([[pinned]]), whatever the clocks say.
 */
private[sparkbloom] final case class FileIdentity(length: Long, modificationTime: Long, etag: String,
    changeTime: Long) {

  /**
   * Whether this identity would show a rewrite that kept the length: it has an etag or a
   * change time, or a modification time finer than whole seconds (HDFS and local disks give
   * milliseconds; one write in a thousand lands on a whole second and is merely not trusted).
   */
  def pinned: Boolean = etag.nonEmpty || changeTime >= 0 || modificationTime % 1000 != 0

  /**
   * Whether a rewrite could keep every field: not [[pinned]], or no etag and no change time
   * (HDFS, for one) and modified so recently that a second write within the same clock tick
   * would not show.
   */
  def unsettled(now: Long): Boolean =
    !pinned || (etag.isEmpty && changeTime < 0 && modificationTime > now - FileIdentity.SettleMillis)

  /**
   * Whether `now` (the same path looked at again) is still this file: every field both know
   * is equal, and one of them pins the content. An etag or change time that only one of them
   * has is not compared (Spark 3.5's listings drop the etag an object store's own status
   * carries); then only a fine-grained modification time can vouch for the file.
   */
  def sameFile(now: FileIdentity): Boolean = {
    val etags = etag.nonEmpty && now.etag.nonEmpty
    val changeTimes = changeTime >= 0 && now.changeTime >= 0
    now.length == length && now.modificationTime == modificationTime &&
    (!etags || etag == now.etag) && (!changeTimes || changeTime == now.changeTime) &&
    (etags || changeTimes || modificationTime % 1000 != 0)
  }

  /** Same length, modification time and etag: the cheap part, from a listing alone (change times are checked apart). */
  def sameListing(status: FileStatus): Boolean =
    status.getLen == length && status.getModificationTime == modificationTime &&
      FileIdentity.etagOf(status) == etag && pinned
}

private[sparkbloom] object FileIdentity {

  /** Files younger than this, on file systems without etags or change times, are not indexed. */
  val SettleMillis: Long = 10000L

  def of(status: FileStatus): FileIdentity =
    FileIdentity(status.getLen, status.getModificationTime, etagOf(status), changeTimeOf(status.getPath))

  /**
   * `files` with the etags their file system keeps but their listing lost (Spark 3.5 rebuilds
   * S3A's statuses without them): one HEAD per such file, on the probing threads. Without it
   * such a file's whole-second time pins nothing, and no cache or index could serve it. A
   * file that cannot be looked at keeps its listed status (and is then read, not trusted).
   */
  def withEtags(files: IndexedSeq[FileStatus], conf: Configuration): IndexedSeq[FileStatus] = {
    def fileSystemOf(f: FileStatus) = (f.getPath.toUri.getScheme, f.getPath.toUri.getAuthority)
    val withoutEtag = files.indices.filter(i => etagOf(files(i)).isEmpty)
    val keepsEtags = withoutEtag.map(files).groupBy(fileSystemOf).map { case (fs, group) =>
      fs -> fileSystemKeepsEtags(group.head.getPath, conf)
    }
    val lacking = withoutEtag.filter(i => keepsEtags(fileSystemOf(files(i))))
    if (lacking.isEmpty) return files
    val looked = lacking.map { i =>
      new Callable[FileStatus] {
        def call(): FileStatus = {
          val listed = files(i)
          try {
            val now = listed.getPath.getFileSystem(conf).getFileStatus(listed.getPath)
            // another length is another object than the one listed: Spark reads by the listing
            if (now.getPath == listed.getPath && now.getLen == listed.getLen && etagOf(now).nonEmpty) now else listed
          } catch { case NonFatal(_) => listed }
        }
      }
    }
    val answers = BloomRuntime.get.probePool.invokeAll(looked.asJava).asScala.map(_.get())
    val byPosition = lacking.zip(answers).toMap
    files.indices.map(i => byPosition.getOrElse(i, files(i)))
  }

  /**
   * Which of `files` the store still holds as they were listed. A listing can be older than
   * the query that judges it (a DataFrame and a catalog table keep theirs until REFRESH), while
   * Spark reads each file's bytes by path as they are when its task runs: a verdict from a
   * cache, an index or a read bound to the listed version then describes an object that is
   * gone. Asked of the store as [[lookAgain]] asks. A file the store does not show as listed,
   * or that cannot be looked at, is not confirmed.
   */
  def stillAsListed(files: IndexedSeq[FileStatus], conf: Configuration): IndexedSeq[Boolean] =
    lookAgain(files.map(_.getPath), conf).zip(files).map { case (now, listed) => now.exists(sameVersion(listed, _)) }

  /**
   * What the store shows at `paths` now: one LIST per directory (a page per 1,000 objects on
   * S3), or one HEAD where a directory holds a single one of them, the directories in parallel
   * on the probing threads. None for a path it does not show, or that cannot be looked at.
   */
  def lookAgain(paths: IndexedSeq[Path], conf: Configuration): IndexedSeq[Option[FileStatus]] = {
    val byDirectory = paths.indices.groupBy(i => paths(i).getParent).toSeq
    val pending = byDirectory.map { case (directory, members) =>
      BloomRuntime.get.probePool.submit(new Callable[Seq[(Int, Option[FileStatus])]] {
        def call(): Seq[(Int, Option[FileStatus])] = {
          val now: Map[String, FileStatus] =
            try {
              val fs = directory.getFileSystem(conf)
              val statuses =
                if (members.size == 1) Array(fs.getFileStatus(paths(members.head)))
                else fs.listStatus(directory)
              statuses.iterator.map(s => s.getPath.getName -> s).toMap
            } catch { case NonFatal(_) => Map.empty }
          members.map(i => i -> now.get(paths(i).getName))
        }
      })
    }
    val answers = pending.flatMap(_.get()).toMap
    paths.indices.map(answers)
  }

  /** A listed etag must be the store's; without one, length and modification time must agree. */
  private def sameVersion(listed: FileStatus, now: FileStatus): Boolean = {
    val was = etagOf(listed)
    listed.getLen == now.getLen &&
    (if (was.nonEmpty) was == etagOf(now) else listed.getModificationTime == now.getModificationTime)
  }

  private def fileSystemKeepsEtags(path: Path, conf: Configuration): Boolean =
    try path.getFileSystem(conf).hasPathCapability(path, CommonPathCapabilities.ETAGS_AVAILABLE)
    catch { case NonFatal(_) => false }

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
