// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.connector.metric.{CustomSumMetric, CustomTaskMetric}

import sparkbloom.read.PruningStats

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

private[sparkbloom] object PruningMetrics {
  def all: Seq[PruningMetric] = Seq(
    new FilesTotalMetric, new FilesSkippedMetric, new RowGroupsTotalMetric, new RowGroupsSkippedMetric,
    new FilterBytesReadMetric, new JoinKeysMetric, new ProbeTimeMetric)

  /** How EXPLAIN shows a scan's pruning. */
  def describe(stats: Option[PruningStats]): String = stats match {
    case None => "not listed yet"
    case Some(s) if s.rowGroupsTotal == 0 && s.filesSkipped == 0 => s"files ${s.filesTotal}, nothing to probe"
    case Some(s) =>
      s"files ${s.filesTotal} -> ${s.filesTotal - s.filesSkipped}, " +
        s"row groups ${s.rowGroupsTotal} -> ${s.rowGroupsTotal - s.rowGroupsSkipped}, " +
        s"filter bytes read ${s.filterBytesRead}, " +
        (if (s.joinKeys > 0) s"join keys ${s.joinKeys}, " else "") + s"probe ${s.probeTimeMs} ms"
  }
}
