// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, SparkPlan}

import sparkbloom.read.BloomReadParquetFileFormat
import sparkbloom.predicate.PointPredicate
import sparkbloom.settings.SparkBloomConf

/**
 * Puts sparkbloom's pruning on the physical scans, over the physical plan, so that it works
 * whatever strategy planned a scan and whatever the order of `spark.sql.extensions`: each
 * source ([[ScanSource.planScans]]) gives its scans their pruning and the node that shows it
 * ([[BloomPruningExec]]). Registered to run before columnar transitions (every plan) and to
 * prepare adaptive plans (whose first plan EXPLAIN shows).
 */
private[sparkbloom] final case class ScanPruningRule(session: SparkSession) extends Rule[SparkPlan] {
  override def apply(plan: SparkPlan): SparkPlan =
    ScanSources.all.foldLeft(plan)((planned, source) => source.planScans(session, planned))
}

private[sparkbloom] object ScanPruningRule {

  /**
   * Whether `scan` has anything to judge in its files' `columns`. Switched off, or with
   * nothing to judge, a scan stays exactly as it was planned: a table format may put filters
   * on columns of its own that no file holds (Delta's deletion vector filter).
   */
  def judgeable(session: SparkSession, scan: FileSourceScanExec, columns: FileColumns): Boolean =
    SparkBloomConf.enabled(session.sessionState.conf) &&
      PointPredicate.fromFilters(scan.dataFilters).flatMap(columns.resolve).isDefined

  /**
   * A plain Parquet scan with sparkbloom's pruning: the index the optimizer's rule made (or a
   * new one), the reader that reads only the selected row groups, and the node above that
   * shows the pruning and hands the scan a join's keys.
   */
  def pruned(session: SparkSession, scan: FileSourceScanExec, joinKeys: Seq[Expression]): BloomPruningExec = {
    val conf = session.sessionState.conf
    val fs = scan.relation
    val index = BloomPruningFileIndex.of(fs, session, SparkBloomConf.pruneRowGroups(conf),
      FileColumns.ofParquetScan(conf, fs.dataSchema), useTableIndex = true)
    val format = new BloomReadParquetFileFormat(() => index.pruner.lastReaders)
    BloomPruningExec(scan.copy(relation = fs.copy(location = index, fileFormat = format)(fs.sparkSession)), joinKeys)
      .decide()
  }

  /** The rule as Spark's columnar hook runs it, on every physical plan. */
  def columnar(session: SparkSession): ColumnarRule = new ColumnarRule {
    override def preColumnarTransitions: Rule[SparkPlan] = ScanPruningRule(session)
  }
}
