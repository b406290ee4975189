// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import sparkbloom.rows.RowKeys

/**
 * What the driver decided for one file it judged, carried to the tasks in the file's
 * metadata map (Spark hands `FileStatusWithMetadata.metadata` to every `PartitionedFile` of
 * the file); its presence says the file's filters were probed, so tasks do not read them.
 *
 * parquet-java gives a task reading bytes `[start, end)` the row groups whose split midpoint
 * ([[FooterReader]]) lies there. A split reads its kept row groups through ranges holding
 * their midpoints and no ruled-out one's: the same rule, on the same offsets, as the task's
 * own parquet-java, so no kept row group can be lost or read twice.
 *
 * A row group is never shared among the splits its bytes overlap, however large: its rows
 * then reported the split that read them (`_metadata.file_block_start`,
 * `input_file_block_start()`) where Spark reports the one holding its midpoint, and each such
 * split ran parquet-java's dictionary filter, and so its LZ4_RAW fault (docs/compatibility.md).
 *
 * @param midpoints the file's distinct split midpoints, ascending (empty: read the split as is)
 * @param keep      per midpoint, whether a row group there may match
 * @param rowKeys   what a row must hold to match, if the judge can tell (see [[sparkbloom.rows.MatchingRowsReader]])
 */
private[sparkbloom] final case class RowGroupSelection(midpoints: Array[Long], keep: Array[Boolean],
    rowKeys: Option[RowKeys] = None) {

  /** Nothing to skip: the split is read as Spark planned it. */
  def readsWholeSplits: Boolean = keep.forall(identity)

  /** This selection once applied to a split's ranges on the driver: read them whole, still narrowing rows. */
  def applied: RowGroupSelection = RowGroupSelection(Array.empty, Array.empty, rowKeys)

  /**
   * Byte ranges (start, length) to read within the split `[splitStart, splitStart + splitLength)`:
   * each holds the midpoints of the kept row groups this split reads, and no other.
   */
  def rangesWithin(splitStart: Long, splitLength: Long): Seq[(Long, Long)] =
    if (readsWholeSplits) Seq((splitStart, splitLength))
    else {
      val splitEnd = splitStart + splitLength
      val mine = midpoints.indices.filter(i => midpoints(i) >= splitStart && midpoints(i) < splitEnd)
      // Runs of kept midpoints with no ruled-out one between them become one range.
      val runs = mine.foldLeft(List.empty[List[Int]]) {
        case (acc, i) if !keep(i) => acc
        case ((run @ (last :: _)) :: rest, i) if last == i - 1 => (i :: run) :: rest
        case (acc, i) => List(i) :: acc
      }
      runs.reverse.map { run => (midpoints(run.last), midpoints(run.head) - midpoints(run.last) + 1) }
    }

  /** Whether the split holds no midpoint of a kept row group, so its task may be dropped on the driver. */
  def readsNothing(splitStart: Long, splitLength: Long): Boolean = rangesWithin(splitStart, splitLength).isEmpty
}

private[sparkbloom] object RowGroupSelection {

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
  def of(verdict: FileVerdict): Option[RowGroupSelection] =
    if (verdict.rowGroups < 0) None
    else if (verdict.mayMatch.forall(identity)) Some(Everything.copy(rowKeys = verdict.rowKeys))
    else verdict.midpoints.filter(_.size == verdict.rowGroups).map { midpoints =>
      val byMidpoint = midpoints.zip(verdict.mayMatch).groupBy(_._1).toSeq.sortBy(_._1)
      RowGroupSelection(byMidpoint.map(_._1).toArray, byMidpoint.map(_._2.exists(_._2)).toArray, verdict.rowKeys)
    }
}
