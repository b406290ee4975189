package sparkbloom.read

/**
 * The row groups of one file that a task still has to read, carried from the driver to
 * the task in the file's metadata map (Spark hands `FileStatusWithMetadata.metadata` to
 * every `PartitionedFile` of that file).
 *
 * Each kept row group is given to exactly one split (the one holding the middle of its
 * extent), and that split hands the reader the row group's whole extent, from its start
 * to the next row group's start: parquet-java then reads exactly the row groups whose
 * midpoint lies in the ranges given, which are these. Adjacent ones are merged.
 *
 * @param starts  starting byte of each row group that may match, ascending
 * @param lengths its extent, up to the next row group (or the end of the file)
 */
final case class RowGroupSelection(starts: Array[Long], lengths: Array[Long]) {

  /** Byte ranges (start, length) to read within the split `[splitStart, splitStart + splitLength)`. */
  def rangesWithin(splitStart: Long, splitLength: Long): Seq[(Long, Long)] = {
    val splitEnd = splitStart + splitLength
    val mine = starts.indices.filter { i =>
      val midpoint = starts(i) + lengths(i) / 2
      midpoint >= splitStart && midpoint < splitEnd
    }
    // Merge row groups that follow each other directly into one range.
    mine.foldLeft(List.empty[(Long, Long)]) {
      case ((start, length) :: rest, i) if start + length == starts(i) => (start, length + lengths(i)) :: rest
      case (acc, i) => (starts(i), lengths(i)) :: acc
    }.reverse
  }
}

object RowGroupSelection {
  /** Key in a file's metadata map. */
  val MetadataKey = "sparkbloom_row_groups"

  /** The selection for a verdict, or None when every row group may match (read the file as usual). */
  def of(verdict: FileVerdict): Option[RowGroupSelection] =
    if (verdict.rowGroups <= 0 || verdict.ranges.size != verdict.rowGroups || verdict.mayMatch.forall(identity)) None
    else {
      val kept = verdict.ranges.indices.filter(verdict.mayMatch)
      Some(RowGroupSelection(kept.map(verdict.ranges(_)._1).toArray, kept.map(verdict.ranges(_)._2).toArray))
    }
}
