// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.slf4j.LoggerFactory

/**
 * What an index directory may shed after a commit, and when. Nothing a reader or writer may
 * still use goes: a lookup that listed the directory a moment ago reads the manifest it saw
 * and that manifest's segments; a writer may have written a segment it has not committed yet.
 * So a file goes only once the retention period (`spark.sparkbloom.index.retention`) has
 * passed since it stopped being needed:
 *
 *  - a manifest, once the version after it is that old;
 *  - a segment, once it is that old itself (no writer still holds it uncommitted) and no
 *    manifest that is kept names it;
 *  - bytes a writer left aside when it stopped, once they are that old.
 *
 * Times are the store's modification times, compared with this clock.
 */
private[sparkbloom] object IndexRetention {
  private val log = LoggerFactory.getLogger(getClass)

  /**
   * Removes what has expired, after `committed` became the index. `listed` is the listing the
   * commit built on (every version up to the one before `committed`): what came after it is
   * left for the next commit. Returns the names removed.
   */
  def removeExpired(fs: FileSystem, dir: Path, listed: Map[String, FileStatus], committed: IndexLayout.Manifest,
      retentionMs: Long, now: Long): Seq[String] = {
    def expired(since: Long): Boolean = now - since >= retentionMs
    val manifests = listed.values.toSeq.flatMap(s =>
      s.getPath.getName match {
        case IndexLayout.ManifestName(n) if n.toLong < committed.version => Some(n.toLong -> s)
        case _ => None
      }).sortBy(_._1)
    // a manifest stopped being the index when the next one was written (the last: just now)
    val supersededAt = manifests.indices.map { i =>
      manifests(i)._2 -> (if (i + 1 < manifests.size) manifests(i + 1)._2.getModificationTime else now)
    }
    val (gone, kept) = supersededAt.partition { case (_, at) => expired(at) }
    val live = committed.segments.toSet
    val oldSegments = listed.values.filter { s =>
      val name = s.getPath.getName
      name.startsWith(IndexLayout.SegmentPrefix) && !live.contains(name) && expired(s.getModificationTime)
    }.toSeq
    val segmentsGone =
      if (oldSegments.isEmpty) Nil
      else {
        val named =
          try Some(kept.flatMap { case (status, _) => namedBy(fs, status) }.toSet)
          catch {
            // a kept manifest that cannot be read might name any of them: all stay
            case NonFatal(e) => log.debug(s"sparkbloom keeps the old segments of $dir: $e"); None
          }
        named.fold(Seq.empty[FileStatus])(n => oldSegments.filterNot(s => n.contains(s.getPath.getName)))
      }
    val pendingGone = listed.values.filter(s =>
      s.getPath.getName.startsWith(IndexLayout.PendingPrefix) && expired(s.getModificationTime))
    (gone.map(_._1) ++ segmentsGone ++ pendingGone).flatMap { status =>
      try if (fs.delete(status.getPath, false)) Some(status.getPath.getName) else None
      catch { case NonFatal(_) => None }
    }
  }

  private def namedBy(fs: FileSystem, status: FileStatus): Seq[String] = status.getPath.getName match {
    case IndexLayout.ManifestName(n) => IndexLayout.readManifest(fs, status, n.toLong).segments
    case _ => Nil
  }
}
