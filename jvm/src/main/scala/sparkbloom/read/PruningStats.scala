package sparkbloom.read

/**
 * What the driver decided for one scan, as `sparkbloom.last_pruning(spark)` reports it.
 * `joinKeys` counts the keys of a join's other side that were probed (0 without a join).
 */
final case class PruningStats(
    filesTotal: Long,
    filesSkipped: Long,
    rowGroupsTotal: Long,
    rowGroupsSkipped: Long,
    filterBytesRead: Long,
    joinKeys: Long,
    probeTimeMs: Long,
    filesCoveredByIndex: Long = 0,
    filesSkippedByIndex: Long = 0) {

  def toMap: Map[String, Long] = Map(
    "files_total" -> filesTotal,
    "files_skipped" -> filesSkipped,
    "row_groups_total" -> rowGroupsTotal,
    "row_groups_skipped" -> rowGroupsSkipped,
    "filter_bytes_read" -> filterBytesRead,
    "join_keys" -> joinKeys,
    "probe_time_ms" -> probeTimeMs,
    "files_covered_by_index" -> filesCoveredByIndex,
    "files_skipped_by_index" -> filesSkippedByIndex)

  override def toString: String =
    s"files $filesSkipped of $filesTotal skipped, row groups $rowGroupsSkipped of $rowGroupsTotal ruled out, " +
      s"$filterBytesRead filter bytes read, $joinKeys join keys probed, $probeTimeMs ms" +
      (if (filesCoveredByIndex > 0) s", table index: $filesSkippedByIndex of $filesCoveredByIndex covered files skipped" else "")
}

object PruningStats {
  val Empty: PruningStats = PruningStats(0, 0, 0, 0, 0, 0, 0)

  // Weak keys: a stopped and dropped session takes its entry with it.
  private val lastBySession = java.util.Collections.synchronizedMap(new java.util.WeakHashMap[AnyRef, PruningStats]())

  /** Remembers `stats` as the last scan of `session` (a SparkSession). */
  def recordLast(session: AnyRef, stats: PruningStats): Unit = lastBySession.put(session, stats)

  def last(session: AnyRef): Option[PruningStats] = Option(lastBySession.get(session))
}
