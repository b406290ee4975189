// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * What the driver decided for one scan, as `sparkbloom.last_pruning(spark)` reports it.
 * `joinKeys` counts the keys of a join's other side that were probed (0 without a join).
 * `files` and `rowGroups` count each [[Decision]]: what skipped them, or why they were kept;
 * a file left unjudged has no row groups counted. `filters` rates the filters used, per column.
 * `scanUnjudged`: why the scan as a whole was not judged.
 */
private[sparkbloom] final case class PruningStats(filesTotal: Long, filesSkipped: Long, rowGroupsTotal: Long,
    rowGroupsSkipped: Long, filterBytesRead: Long, joinKeys: Long, probeTimeMs: Long, filesCoveredByIndex: Long = 0,
    filesSkippedByIndex: Long = 0, files: Map[Decision, Long] = Map.empty, rowGroups: Map[Decision, Long] = Map.empty,
    filters: Seq[FilterQuality] = Nil, scanUnjudged: Option[Decision] = None) {

  /** The figures in [[PruningStats.Keys]] order. */
  def values: Seq[Long] = Seq(filesTotal, filesSkipped, rowGroupsTotal, rowGroupsSkipped, filterBytesRead, joinKeys,
    probeTimeMs, filesCoveredByIndex, filesSkippedByIndex)

  def toMap: Map[String, Long] = PruningStats.Keys.zip(values).toMap

  /** Files kept unjudged, by reason, most first. */
  def unjudgedFiles: Seq[(Decision, Long)] = files.toSeq.filter(_._1.unjudged).sortBy { case (d, n) => (-n, d.key) }

  /** The two reasons that kept the most files unjudged, as EXPLAIN shows them; "" when none. */
  def topReasons: String = scanUnjudged.map(_.key).getOrElse(
    unjudgedFiles.take(2).map { case (d, n) => s"$n ${d.key}" }.mkString(", "))

  override def toString: String =
    s"files $filesSkipped of $filesTotal skipped, row groups $rowGroupsSkipped of $rowGroupsTotal ruled out, " +
      s"$filterBytesRead filter bytes read, $joinKeys join keys probed, $probeTimeMs ms" +
      (if (filesCoveredByIndex > 0) s", table index: $filesSkippedByIndex of $filesCoveredByIndex covered files skipped"
       else "") +
      (if (topReasons.nonEmpty) s", unjudged: $topReasons" else "")
}

/**
 * How good the filters of one column were, over the files judged: each file's worst filter
 * (the highest false-positive probability its bits give, [[sparkbloom.sbbf.FilterEstimates.fpp]]);
 * `saturated`: files whose filter was too full to be used (at most a few named).
 */
private[sparkbloom] final case class FilterQuality(column: String, files: Long, worstFpp: Double, medianFpp: Double,
    saturated: Seq[String])

private[sparkbloom] object FilterQuality {

  /** Files named as saturated, at most. */
  val NamedMax = 5

  /** Per column, from each file's worst false-positive probability and whether it was saturated. */
  def of(perFile: Seq[(String, String, Double, Boolean)]): Seq[FilterQuality] =
    perFile.groupBy(_._1).toSeq.sortBy(_._1).map { case (column, each) =>
      val fpps = each.map(_._3).sorted
      FilterQuality(column, each.size, fpps.last, fpps(fpps.size / 2), each.filter(_._4).map(_._2).take(NamedMax))
    }
}

private[sparkbloom] object PruningStats {

  /** The names `last_pruning` and `sparkbloom_last_pruning()` report the figures under. */
  val Keys: Seq[String] = Seq("files_total", "files_skipped", "row_groups_total", "row_groups_skipped",
    "filter_bytes_read", "join_keys", "probe_time_ms", "files_covered_by_index", "files_skipped_by_index")

  val Empty: PruningStats = PruningStats(0, 0, 0, 0, 0, 0, 0)

  /** A scan of `files` files that was not judged at all, for `reason`. */
  def unjudged(files: Long, reason: Decision): PruningStats =
    Empty.copy(filesTotal = files, files = if (files > 0) Map(reason -> files) else Map.empty,
      scanUnjudged = Some(reason))

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
