// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

/**
 * What the driver decided for one file it judged, carried to the tasks in the file's
 * metadata map (Spark hands `FileStatusWithMetadata.metadata` to every `PartitionedFile`
 * of that file). Its presence alone says the driver already probed the file's filters, so
 * tasks need not read them again.
 *
 * parquet-java gives a task reading bytes `[start, end)` the row groups whose split
 * midpoint (see [[FooterReader]]) lies there. A split of Spark's therefore owns exactly
 * the row groups whose midpoints it contains, and reads the kept ones among them through
 * ranges that contain their midpoints and no midpoint of a ruled-out row group: the same
 * rule, on the same offsets, as the task's own parquet-java applies, so no kept row group
 * can be lost or read twice.
 *
 * A row group that may match and whose rows the task can narrow ([[MatchingRowsReader]]) may
 * instead be shared by every split its bytes overlap: each reads the rows in proportion to
 * the bytes it holds ([[rowShares]]), so a 128 MB row group's key column is scanned by as many
 * tasks as Spark made splits of it, not by one while the others idle. The row boundaries are
 * one function of the byte boundaries, and Spark's splits of a file tile its bytes, so the
 * shares tile the rows: none lost, none read twice. Whether a scan shares is decided once
 * for all its tasks (`sharing`, see [[BloomReadParquetFileFormat]]).
 *
 * @param midpoints the file's distinct split midpoints, ascending (empty: read the split as is)
 * @param keep      per midpoint, whether a row group there may match
 * @param rowKeys   what a row must hold to match, if the judge can tell (see [[MatchingRowsReader]])
 * @param extents   per midpoint, its row group's bytes and rows, if they allow sharing (else empty)
 */
private[sparkbloom] final case class RowGroupSelection(midpoints: Array[Long], keep: Array[Boolean],
    rowKeys: Option[RowKeys] = None, extents: Array[RowGroupExtent] = Array.empty) {

  /** Nothing to skip: the split is read as Spark planned it. */
  def readsWholeSplits: Boolean = keep.forall(identity)

  /** This selection once applied to a split's ranges on the driver: read them whole, still narrowing rows. */
  def applied: RowGroupSelection = RowGroupSelection(Array.empty, Array.empty, rowKeys)

  /**
   * Whether the row group at midpoint `i` is shared by the splits it overlaps (when the scan
   * shares): one whose rows are narrowed, large enough for narrowing to pay (its columns
   * together; a task decides by the columns it reads, see [[RowKeys.minRowGroupBytes]]).
   */
  private def shared(i: Int): Boolean = extents.nonEmpty && extents(i).rowsSkippable &&
    rowKeys.exists(k => extents(i).uncompressedBytes >= k.minRowGroupBytes)

  /**
   * Byte ranges (start, length) to read within the split `[splitStart, splitStart + splitLength)`:
   * each holds the midpoints of the kept row groups this split reads, and no other.
   */
  def rangesWithin(splitStart: Long, splitLength: Long, sharing: Boolean): Seq[(Long, Long)] = {
    val splitEnd = splitStart + splitLength
    val sharesAny = sharing && midpoints.indices.exists(shared)
    if (readsWholeSplits && !sharesAny) Seq((splitStart, splitLength))
    else {
      def reads(i: Int): Boolean =
        if (sharesAny && shared(i)) share(extents(i), splitStart, splitEnd).exists(_.nonEmpty)
        else midpoints(i) >= splitStart && midpoints(i) < splitEnd
      // Runs of kept row groups read here, with no ruled-out one between them, become one range.
      val runs = midpoints.indices.filter(reads).foldLeft(List.empty[List[Int]]) {
        case (acc, i) if !keep(i) => acc
        case ((run @ (last :: _)) :: rest, i) if last == i - 1 => (i :: run) :: rest
        case (acc, i) => List(i) :: acc
      }
      runs.reverse.map { run => (midpoints(run.last), midpoints(run.head) - midpoints(run.last) + 1) }
    }
  }

  /**
   * Whether the split `[splitStart, splitStart + splitLength)` reads nothing, so its task may be
   * dropped on the driver: nothing whether or not its scan shares row groups, which only the
   * reader decides. Sharing alone is not enough: a split can hold a row group's midpoint while
   * its bytes give it no row of it (a row larger than the split), so it reads nothing when
   * sharing but the whole row group when not.
   */
  def readsNothing(splitStart: Long, splitLength: Long): Boolean =
    rangesWithin(splitStart, splitLength, sharing = true).isEmpty &&
      rangesWithin(splitStart, splitLength, sharing = false).isEmpty

  /**
   * The rows this split reads of each kept row group it reads when sharing, by the row
   * group's first row in the file: of a shared one, `[from, until)` from the bytes it holds;
   * of the others, all (the task checks that it reads no row group it was not given).
   */
  def rowShares(splitStart: Long, splitLength: Long): Map[Long, RowShare] = {
    val splitEnd = splitStart + splitLength
    midpoints.indices.filter(i => keep(i) && extents.nonEmpty).flatMap { i =>
      val e = extents(i)
      if (shared(i)) share(e, splitStart, splitEnd).filter(_.nonEmpty)
      else if (e.midpoint >= splitStart && e.midpoint < splitEnd)
        Some(FirstRowShare(e.firstRow, RowShare(0, e.rows, e.rows)))
      else None
    }.map(s => s.firstRow -> s.share).toMap
  }

  /** The rows of `e` a split over bytes `[splitStart, splitEnd)` reads, if it overlaps `e`. */
  private def share(e: RowGroupExtent, splitStart: Long, splitEnd: Long): Option[FirstRowShare] =
    if (e.start >= splitEnd || e.end <= splitStart) None
    else Some(FirstRowShare(e.firstRow, RowShare(rowAt(e, splitStart), rowAt(e, splitEnd), e.rows)))

  /** The first row a split starting at byte `at` reads of `e`: the same function for the split ending there. */
  private def rowAt(e: RowGroupExtent, at: Long): Long =
    if (at <= e.start) 0L
    else if (at >= e.end) e.rows
    else (BigInt(e.rows) * (at - e.start) / e.size).toLong

  private final case class FirstRowShare(firstRow: Long, share: RowShare) {
    def nonEmpty: Boolean = share.from < share.until
  }
}

/** The rows `[from, until)` of a row group of `rows` rows that one split reads. */
private[sparkbloom] final case class RowShare(from: Long, until: Long, rows: Long) {
  def whole: Boolean = from == 0 && until == rows
}

private[sparkbloom] object RowGroupSelection {

  /** Key in a file's metadata map. */
  val MetadataKey = "sparkbloom_row_groups"

  private val Everything = RowGroupSelection(Array.empty, Array.empty)

  /** The driver's selection for a file a task reads, if the driver judged it. */
  def in(file: org.apache.spark.sql.execution.datasources.PartitionedFile): Option[RowGroupSelection] =
    file.otherConstantMetadataColumnValues.get(MetadataKey).collect { case s: RowGroupSelection => s }

  /**
   * The selection for a file the driver judged. None when it could not judge the file, or
   * ruled out row groups whose midpoints are unknown: tasks then keep parquet-java's own
   * in-task filtering, which skips them.
   */
  def of(verdict: FileVerdict): Option[RowGroupSelection] = {
    val extents = verdict.extents.filter(e => verdict.rowKeys.isDefined && tiles(e, verdict))
    if (verdict.rowGroups < 0) None
    else if (extents.isDefined) {
      val e = extents.get
      Some(RowGroupSelection(e.map(_.midpoint).toArray, verdict.mayMatch.toArray, verdict.rowKeys, e.toArray))
    } else if (verdict.mayMatch.forall(identity)) Some(Everything.copy(rowKeys = verdict.rowKeys))
    else verdict.midpoints.filter(_.size == verdict.rowGroups).map { midpoints =>
      val byMidpoint = midpoints.zip(verdict.mayMatch).groupBy(_._1).toSeq.sortBy(_._1)
      RowGroupSelection(byMidpoint.map(_._1).toArray, byMidpoint.map(_._2.exists(_._2)).toArray, verdict.rowKeys)
    }
  }

  /**
   * Whether the extents can be shared by splits: one per row group, in file order, disjoint,
   * within the file, with ascending midpoints (so each range of midpoints holds exactly the
   * row groups between), none empty (a task finds a row group by its first row).
   */
  private def tiles(extents: IndexedSeq[RowGroupExtent], verdict: FileVerdict): Boolean =
    extents.size == verdict.rowGroups && verdict.status != null &&
      extents.forall(e => e.start >= 0 && e.size > 0 && e.rows > 0) &&
      extents.zip(extents.drop(1)).forall { case (a, b) => a.end <= b.start } &&
      extents.lastOption.forall(_.end <= verdict.status.getLen)
}
