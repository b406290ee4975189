// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

/**
 * What the pruning decided for one row group, one file or a whole scan, and why: skipped
 * (and by what), kept because a filter says "maybe", or kept unjudged for a reason. Each has
 * the key `last_pruning`, `explain_pruning` and the SQL metrics report it under; docs/pruning.md
 * says what each means and what a user can do about it.
 */
private[sparkbloom] sealed abstract class Decision(val key: String, val skips: Boolean, val description: String)
    extends Serializable {
  def unjudged: Boolean = !skips && this != Decision.Maybe
  override def toString: String = key
}

private[sparkbloom] object Decision {

  /** Ruled out by the chunk's min/max: no key lies between them. */
  case object Statistics extends Decision("skipped_by_statistics", skips = true, "skipped by min/max statistics")

  /** Ruled out by the file's own filter. */
  case object Filter extends Decision("skipped_by_filter", skips = true, "skipped by the file's filter")

  /** Ruled out by the table index. */
  case object Index extends Decision("skipped_by_index", skips = true, "skipped by the table index")

  /** Kept: a filter (the file's or the index's) says a key may be there. */
  case object Maybe extends Decision("maybe", skips = false, "kept: a filter says maybe")

  // Kept unjudged, per row group or file.
  case object NoFilter extends Decision("no_filter", skips = false, "kept: no filter on the column")
  case object FilterUnusable extends Decision("filter_unusable", skips = false, "kept: filter unusable")
  case object WriterKnownBad extends Decision("writer_known_bad", skips = false,
        "kept: the writer's release is known to write wrong filters")
  case object FilterFailsDictionary extends Decision("filter_fails_dictionary", skips = false,
        "kept: a filter of this writer rejected a value of its own dictionary")
  case object FilterSaturated extends Decision("filter_saturated", skips = false, "kept: filter saturated")
  case object KeyNotRepresentable
      extends Decision("key_not_representable", skips = false, "kept: key not exact in the file's type")
  case object ColumnNotInFile
      extends Decision("column_not_in_file", skips = false, "kept: column not found in the file")
  case object RebasedCalendar extends Decision("rebased_calendar", skips = false, "kept: dates rebased by the writer")
  case object FooterUnreadable extends Decision("footer_unreadable", skips = false, "kept: footer unreadable")
  case object FileChanged extends Decision("file_changed", skips = false, "kept: file changed since listed")
  case object ProbingStopped extends Decision("probing_stopped", skips = false, "kept: probing stopped paying")
  case object NoRowGroups extends Decision("no_row_groups", skips = false, "kept: no row groups")
  case object FilePruningOff extends Decision("file_pruning_off", skips = false, "kept: file pruning off")

  // Kept unjudged, the whole scan.
  case object SwitchedOff extends Decision("sparkbloom_off", skips = false, "not judged: sparkbloom off")
  case object NoPointPredicate
      extends Decision("no_point_predicate", skips = false, "not judged: no =, IN or <=> on a literal")
  case object JoinKeysOverLimit
      extends Decision("join_keys_over_limit", skips = false, "not judged: too many join keys")
  case object FormatMemberMissing
      extends Decision("format_member_missing", skips = false, "not judged: the format's scan is not the one supported")
  case object DecidedWhenRun extends Decision("decided_when_run", skips = false,
        "not judged yet: decided when the plan runs, by a join's keys")
  case object NotParquetFiles
      extends Decision("not_parquet_files", skips = false, "not judged: files other than Parquet")

  val all: Seq[Decision] = Seq(Statistics, Filter, Index, Maybe, NoFilter, FilterUnusable, WriterKnownBad,
    FilterFailsDictionary, FilterSaturated,
    KeyNotRepresentable, ColumnNotInFile, RebasedCalendar, FooterUnreadable, FileChanged, ProbingStopped,
    NoRowGroups, FilePruningOff, SwitchedOff, NoPointPredicate, JoinKeysOverLimit, FormatMemberMissing,
    NotParquetFiles, DecidedWhenRun)

  /** A conjunction's: the first conjunct that skips; else "maybe" if any filter answered; else the first reason. */
  def allOf(decisions: Iterator[Decision]): Decision = {
    var kept: Decision = null
    while (decisions.hasNext) {
      val d = decisions.next()
      if (d.skips) return d
      if (kept == null || (d == Maybe && kept != Maybe)) kept = d
    }
    if (kept == null) Maybe else kept
  }

  /** A disjunction's: the first branch that keeps; else the filter if one skipped by it, else the first cause. */
  def anyOf(decisions: Iterator[Decision]): Decision = {
    var skipped: Decision = null
    while (decisions.hasNext) {
      val d = decisions.next()
      if (!d.skips) return d
      if (skipped == null || d == Filter) skipped = d
    }
    if (skipped == null) Maybe else skipped
  }

  /**
   * A file's, from its row groups': skipped when every one is (by the index if any was,
   * then the filter, then statistics); kept as "maybe" when a filter kept one; else the
   * reason of the first row group kept.
   */
  def ofFile(rowGroups: Seq[Decision]): Decision =
    if (rowGroups.isEmpty) NoRowGroups
    else if (rowGroups.forall(_.skips)) Seq(Index, Filter).find(rowGroups.contains).getOrElse(Statistics)
    else if (rowGroups.contains(Maybe)) Maybe
    else rowGroups.find(!_.skips).get
}
