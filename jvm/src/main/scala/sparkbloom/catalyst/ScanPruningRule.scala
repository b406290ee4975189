// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

import sparkbloom.read.{BloomReadParquetFileFormat, PruningStats}
import sparkbloom.predicate.PointPredicate
import sparkbloom.settings.SparkBloomConf

/**
 * Puts sparkbloom's pruning on the physical file scans, over the physical plan, so that it
 * works whatever strategy planned a scan and whatever the order of `spark.sql.extensions`.
 * Registered to run before columnar transitions (every plan) and to prepare adaptive plans
 * (whose first plan EXPLAIN shows).
 *
 *  - **Plain Parquet scans** with literals to probe: the index the optimizer's rule judged,
 *    the reader of the selected row groups and [[BloomPruningExec]] ([[ScanPruningRule.pruned]]).
 *  - **Delta Lake scans**, on the files Delta's partition pruning and min/max skipping left.
 *    Delta plans its own scans (its strategy adds the deletion vector filter and the row
 *    index), so this rule only wraps the scan's Delta file index: Delta's format, the scan's
 *    columns and filters, and each file's metadata (its deletion vector, row ids) stay as
 *    they are. It drops whole files only; tasks still read with Delta's reader, which skips
 *    row groups with parquet-java.
 *  - **Iceberg batch scans** judged while the plan was optimized ([[IcebergScans]]): only the
 *    node that shows the decision is added.
 */
private[sparkbloom] final case class ScanPruningRule(session: SparkSession) extends Rule[SparkPlan] {
  import ScanPruningRule.{deltaColumns, isUnprunedDeltaScan}

  override def apply(plan: SparkPlan): SparkPlan = {
    val shown = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[AnyRef, java.lang.Boolean]())
    plan.foreach { case BloomPruningExec(b: BatchScanExec, _) => shown.add(b.scan); case _ => }
    plan.transformUp {
      case scan: BatchScanExec if !shown.contains(scan.scan) && IcebergScans.decided(scan.scan).isDefined =>
        BloomPruningExec(scan)
      case other => rules(other)
    }
  }

  private def rules(plan: SparkPlan): SparkPlan = plan match {
    case scan: FileSourceScanExec if isUnprunedDeltaScan(scan.relation) =>
      val columns = deltaColumns(scan.relation)
      if (judgeable(scan, columns)) {
        BloomPruningExec(withDeltaIndex(scan, columns)).decide()
      } else {
        // as for Parquet scans with nothing to judge: the last pruning is none
        PruningStats.recordLast(session, PruningStats.Empty)
        scan
      }
    // A scan the optimizer judged keeps its node whatever the settings are now: the node
    // reads what the verdicts left out if it changes before the plan runs again.
    case scan: FileSourceScanExec if PlainParquet.relation(scan.relation) =>
      if (scan.relation.location.isInstanceOf[BloomPruningFileIndex] ||
        judgeable(scan, FileColumns.ofParquetScan(session.sessionState.conf, scan.relation.dataSchema))) {
        ScanPruningRule.pruned(session, scan, joinKeys = Nil)
      } else scan
    case other => other
  }

  /**
   * Switched off, or with nothing to judge in the files' columns, a scan stays exactly as it
   * was planned: Delta puts its deletion vector filter (`__delta_internal_is_row_deleted = 0`)
   * on every scan of a table with deletion vectors, which is no column of the files.
   */
  private def judgeable(scan: FileSourceScanExec, columns: FileColumns): Boolean =
    SparkBloomConf.enabled(session.sessionState.conf) &&
      PointPredicate.fromFilters(scan.dataFilters).flatMap(columns.resolve).isDefined

  private def withDeltaIndex(scan: FileSourceScanExec, columns: FileColumns): FileSourceScanExec = {
    val index =
      BloomPruningFileIndex.of(scan.relation, session, selectRowGroups = false, columns, useTableIndex = true)
    scan.copy(relation = scan.relation.copy(location = index)(scan.relation.sparkSession))
  }
}

private[sparkbloom] object ScanPruningRule extends Logging {

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

  /** A Delta scan that has not been given sparkbloom's index yet. */
  def isUnprunedDeltaScan(relation: HadoopFsRelation): Boolean =
    !relation.location.isInstanceOf[BloomPruningFileIndex] && DeltaTables.isDeltaScan(relation)

  /** Where the table's columns are in its files; a Delta that does not say gets no judging. */
  private def deltaColumns(relation: HadoopFsRelation): FileColumns =
    try DeltaTables.scanColumns(relation)
    catch {
      case NonFatal(e) =>
        logWarning(s"sparkbloom does not prune this Delta scan: its column mapping is unknown ($e)")
        FileColumns.NotJudged
    }
}
