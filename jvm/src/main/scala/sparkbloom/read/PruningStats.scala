// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * What the driver decided for one scan, as `sparkbloom.last_pruning(spark)` reports it.
 * `joinKeys` counts the keys of a join's other side that were probed (0 without a join).
 */
private[sparkbloom] final case class PruningStats(filesTotal: Long, filesSkipped: Long, rowGroupsTotal: Long,
    rowGroupsSkipped: Long, filterBytesRead: Long, joinKeys: Long, probeTimeMs: Long, filesCoveredByIndex: Long = 0,
    filesSkippedByIndex: Long = 0) {

  /** The figures in [[PruningStats.Keys]] order. */
  def values: Seq[Long] = Seq(filesTotal, filesSkipped, rowGroupsTotal, rowGroupsSkipped, filterBytesRead, joinKeys,
    probeTimeMs, filesCoveredByIndex, filesSkippedByIndex)

  def toMap: Map[String, Long] = PruningStats.Keys.zip(values).toMap

  override def toString: String =
    s"files $filesSkipped of $filesTotal skipped, row groups $rowGroupsSkipped of $rowGroupsTotal ruled out, " +
      s"$filterBytesRead filter bytes read, $joinKeys join keys probed, $probeTimeMs ms" +
      (if (filesCoveredByIndex > 0) s", table index: $filesSkippedByIndex of $filesCoveredByIndex covered files skipped"
       else "")
}

private[sparkbloom] object PruningStats {

  /** The names `last_pruning` and `sparkbloom_last_pruning()` report the figures under. */
  val Keys: Seq[String] = Seq("files_total", "files_skipped", "row_groups_total", "row_groups_skipped",
    "filter_bytes_read", "join_keys", "probe_time_ms", "files_covered_by_index", "files_skipped_by_index")

  val Empty: PruningStats = PruningStats(0, 0, 0, 0, 0, 0, 0)

  /** Each session's last pruning; weak keys: a stopped and dropped session takes its entry with it. */
  private final class LastBySession extends RuntimePart {
    val map = java.util.Collections.synchronizedMap(new java.util.WeakHashMap[AnyRef, PruningStats]())
    // a report of what a query did, not a cache: cache commands leave it
    override def clear(): Unit = ()
  }

  private object LastBySession extends PartKind[LastBySession] {
    def make(runtime: BloomRuntime): LastBySession = new LastBySession
  }

  /** Remembers `stats` as the last scan of `session` (a SparkSession). */
  def recordLast(session: AnyRef, stats: PruningStats): Unit = BloomRuntime.get(LastBySession).map.put(session, stats)

  def last(session: AnyRef): Option[PruningStats] = Option(BloomRuntime.get(LastBySession).map.get(session))
}
