// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.HadoopFsRelation

import sparkbloom.read.{BloomReadParquetFileFormat, PruningStats}
import sparkbloom.predicate.PointPredicate
import sparkbloom.settings.SparkBloomConf

/**
 * Bloom-filter pruning of file scans another planner strategy planned, over the physical
 * plan, so that it works whatever the order of `spark.sql.extensions`. Registered to run
 * before columnar transitions (every plan) and to prepare adaptive plans (whose first plan
 * EXPLAIN shows).
 *
 *  - **Delta Lake scans**, on the files Delta's partition pruning and min/max skipping left.
 *    Delta plans its own scans (its strategy adds the deletion vector filter and the row
 *    index), so this rule only wraps the scan's Delta file index: Delta's format, the scan's
 *    columns and filters, and each file's metadata (its deletion vector, row ids) stay as
 *    they are. It drops whole files only; tasks still read with Delta's reader, which skips
 *    row groups with parquet-java.
 *  - **Parquet scans** that [[BloomScanStrategy]] did not plan because a strategy listed
 *    before it did (Delta's plans every file scan), pruned as that strategy would, files and
 *    row groups; join keys ([[JoinKeysStrategy]]) reach only the scans it plans itself.
 */
private[sparkbloom] final case class ScanPruningRule(session: SparkSession) extends Rule[SparkPlan] {
  import ScanPruningRule.{deltaColumns, isUnprunedDeltaScan}

  override def apply(plan: SparkPlan): SparkPlan = plan.transformUp {
    case scan: FileSourceScanExec if isUnprunedDeltaScan(scan.relation) =>
      val columns = deltaColumns(scan.relation)
      if (judgeable(scan, columns)) {
        BloomPruningExec(withIndex(scan, selectRowGroups = false, columns, _ => scan.relation.fileFormat,
            useTableIndex = false)).decide()
      } else {
        // as for the Parquet scans BloomScanStrategy passes over: the last pruning is none
        PruningStats.recordLast(session, PruningStats.Empty)
        scan
      }
    case scan: FileSourceScanExec if BloomScanStrategy.plansRelation(scan.relation) =>
      val conf = session.sessionState.conf
      val columns = FileColumns.ofParquetScan(conf, scan.relation.dataSchema)
      if (!judgeable(scan, columns)) scan
      else
        BloomPruningExec(withIndex(scan, SparkBloomConf.pruneRowGroups(conf), columns,
            index => new BloomReadParquetFileFormat(() => index.pruner.lastReaders), useTableIndex = true)).decide()
  }

  /**
   * Switched off, or with nothing to judge in the files' columns, a scan stays exactly as it
   * was planned: Delta puts its deletion vector filter (`__delta_internal_is_row_deleted = 0`)
   * on every scan of a table with deletion vectors, which is no column of the files.
   */
  private def judgeable(scan: FileSourceScanExec, columns: FileColumns): Boolean =
    SparkBloomConf.enabled(session.sessionState.conf) &&
      PointPredicate.fromFilters(scan.dataFilters).flatMap(columns.resolve).isDefined

  private def withIndex(scan: FileSourceScanExec, selectRowGroups: Boolean, columns: FileColumns,
      format: BloomPruningFileIndex => org.apache.spark.sql.execution.datasources.FileFormat,
      useTableIndex: Boolean): FileSourceScanExec = {
    val fs = scan.relation
    val index = BloomPruningFileIndex.of(fs, session, selectRowGroups, columns, useTableIndex)
    scan.copy(relation = fs.copy(location = index, fileFormat = format(index))(fs.sparkSession))
  }
}

private[sparkbloom] object ScanPruningRule extends Logging {

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
