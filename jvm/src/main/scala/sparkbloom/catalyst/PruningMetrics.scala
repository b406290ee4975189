// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.connector.metric.{CustomSumMetric, CustomTaskMetric}

import sparkbloom.read.{Decision, PruningStats}

/**
 * The driver-side SQL metrics of a pruned scan, one per key of `sparkbloom.last_pruning`.
 * DataSource V2 scans report them as custom metrics, which Spark instantiates by class name
 * to aggregate, so each one is a class of its own; V1 scans show the same names and
 * descriptions on the `BloomPruning` node above the scan.
 */
private[sparkbloom] sealed abstract class PruningMetric(metricName: String, metricDescription: String,
    val valueOf: PruningStats => Long)
    extends CustomSumMetric {
  override def name(): String = metricName
  override def description(): String = metricDescription

  def taskMetric(stats: PruningStats): CustomTaskMetric = new CustomTaskMetric {
    override def name(): String = metricName
    override def value(): Long = valueOf(stats)
  }
}

private[sparkbloom] final class FilesTotalMetric
    extends PruningMetric("bloomFilesTotal", "sparkbloom: files before pruning", _.filesTotal)
private[sparkbloom] final class FilesSkippedMetric
    extends PruningMetric("bloomFilesSkipped", "sparkbloom: files skipped", _.filesSkipped)
private[sparkbloom] final class RowGroupsTotalMetric
    extends PruningMetric("bloomRowGroupsTotal", "sparkbloom: row groups judged", _.rowGroupsTotal)
private[sparkbloom] final class RowGroupsSkippedMetric
    extends PruningMetric("bloomRowGroupsSkipped", "sparkbloom: row groups skipped", _.rowGroupsSkipped)
private[sparkbloom] final class FilterBytesReadMetric
    extends PruningMetric("bloomFilterBytesRead", "sparkbloom: filter bytes read", _.filterBytesRead)
private[sparkbloom] final class JoinKeysMetric
    extends PruningMetric("bloomJoinKeys", "sparkbloom: join keys probed", _.joinKeys)
private[sparkbloom] final class ProbeTimeMetric
    extends PruningMetric("bloomProbeTimeMs", "sparkbloom: probe time (ms)", _.probeTimeMs)

/** The files of a scan that one [[Decision]] skipped or kept (a class each: Spark aggregates V2 metrics by class name). */
private[sparkbloom] sealed abstract class FilesDecidedMetric(decision: Decision)
    extends PruningMetric(s"bloomFiles_${decision.key}", s"sparkbloom files: ${decision.description}",
      _.files.getOrElse(decision, 0L))

private[sparkbloom] final class FilesStatisticsMetric extends FilesDecidedMetric(Decision.Statistics)
private[sparkbloom] final class FilesFilterMetric extends FilesDecidedMetric(Decision.Filter)
private[sparkbloom] final class FilesIndexMetric extends FilesDecidedMetric(Decision.Index)
private[sparkbloom] final class FilesMaybeMetric extends FilesDecidedMetric(Decision.Maybe)
private[sparkbloom] final class FilesNoFilterMetric extends FilesDecidedMetric(Decision.NoFilter)
private[sparkbloom] final class FilesFilterUnusableMetric extends FilesDecidedMetric(Decision.FilterUnusable)
private[sparkbloom] final class FilesWriterKnownBadMetric extends FilesDecidedMetric(Decision.WriterKnownBad)
private[sparkbloom] final class FilesFilterFailsDictionaryMetric
    extends FilesDecidedMetric(Decision.FilterFailsDictionary)
private[sparkbloom] final class FilesFilterSaturatedMetric extends FilesDecidedMetric(Decision.FilterSaturated)
private[sparkbloom] final class FilesKeyNotRepresentableMetric extends FilesDecidedMetric(Decision.KeyNotRepresentable)
private[sparkbloom] final class FilesColumnNotInFileMetric extends FilesDecidedMetric(Decision.ColumnNotInFile)
private[sparkbloom] final class FilesRebasedCalendarMetric extends FilesDecidedMetric(Decision.RebasedCalendar)
private[sparkbloom] final class FilesFooterUnreadableMetric extends FilesDecidedMetric(Decision.FooterUnreadable)
private[sparkbloom] final class FilesFileChangedMetric extends FilesDecidedMetric(Decision.FileChanged)
private[sparkbloom] final class FilesProbingStoppedMetric extends FilesDecidedMetric(Decision.ProbingStopped)
private[sparkbloom] final class FilesNoRowGroupsMetric extends FilesDecidedMetric(Decision.NoRowGroups)
private[sparkbloom] final class FilesFilePruningOffMetric extends FilesDecidedMetric(Decision.FilePruningOff)
private[sparkbloom] final class FilesSwitchedOffMetric extends FilesDecidedMetric(Decision.SwitchedOff)
private[sparkbloom] final class FilesNoPointPredicateMetric extends FilesDecidedMetric(Decision.NoPointPredicate)
private[sparkbloom] final class FilesJoinKeysOverLimitMetric extends FilesDecidedMetric(Decision.JoinKeysOverLimit)
private[sparkbloom] final class FilesFormatMemberMissingMetric extends FilesDecidedMetric(Decision.FormatMemberMissing)
private[sparkbloom] final class FilesNotParquetFilesMetric extends FilesDecidedMetric(Decision.NotParquetFiles)

private[sparkbloom] object PruningMetrics {
  def all: Seq[PruningMetric] = Seq(
    new FilesTotalMetric, new FilesSkippedMetric, new RowGroupsTotalMetric, new RowGroupsSkippedMetric,
    new FilterBytesReadMetric, new JoinKeysMetric, new ProbeTimeMetric) ++ byDecision

  private def byDecision: Seq[PruningMetric] = Seq(new FilesStatisticsMetric, new FilesFilterMetric,
    new FilesIndexMetric, new FilesMaybeMetric, new FilesNoFilterMetric, new FilesFilterUnusableMetric,
    new FilesWriterKnownBadMetric, new FilesFilterFailsDictionaryMetric, new FilesFilterSaturatedMetric,
    new FilesKeyNotRepresentableMetric, new FilesColumnNotInFileMetric,
    new FilesRebasedCalendarMetric, new FilesFooterUnreadableMetric, new FilesFileChangedMetric,
    new FilesProbingStoppedMetric, new FilesNoRowGroupsMetric, new FilesFilePruningOffMetric,
    new FilesSwitchedOffMetric, new FilesNoPointPredicateMetric, new FilesJoinKeysOverLimitMetric,
    new FilesFormatMemberMissingMetric, new FilesNotParquetFilesMetric)

  /** How EXPLAIN shows a scan's pruning. */
  def describe(stats: Option[PruningStats]): String = stats match {
    case None => "not listed yet"
    case Some(s) if s.rowGroupsTotal == 0 && s.filesSkipped == 0 => s"files ${s.filesTotal}, nothing to probe"
    case Some(s) =>
      s"files ${s.filesTotal} -> ${s.filesTotal - s.filesSkipped}, " +
        s"row groups ${s.rowGroupsTotal} -> ${s.rowGroupsTotal - s.rowGroupsSkipped}, " +
        s"filter bytes read ${s.filterBytesRead}, " +
        (if (s.joinKeys > 0) s"join keys ${s.joinKeys}, " else "") + s"probe ${s.probeTimeMs} ms" +
        (if (s.topReasons.nonEmpty) s", unjudged: ${s.topReasons}" else "")
  }
}
