// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.planning.ScanOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.datasources.{FileSourceStrategy, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import sparkbloom.read.{BloomReadParquetFileFormat, PruningStats}
import sparkbloom.settings.SparkBloomConf
import sparkbloom.shims.SparkShims
import sparkbloom.predicate.PointPredicate

/**
 * Plans Parquet scans with Bloom-filter pruning, for DataSource V1 relations (Spark's
 * default) and V2 `ParquetScan`s. A scan with literals to probe was judged while the plan
 * was optimized ([[PruneFilesByBloomFilters]]): its index is reused here. A scan with only a
 * join's keys ([[JoinKeysStrategy]] marks those at planning) gets its index here. The scan
 * itself is still planned by Spark's own strategy; this one only swaps in the pruning file
 * index (and, for V1, the reader that skips row groups and a [[BloomPruningExec]] to show
 * what was skipped).
 */
private[sparkbloom] final case class BloomScanStrategy(session: SparkSession) extends SparkStrategy {
  import BloomScanStrategy.plansScan

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case ScanOperation(_, _, filters, relation: LogicalRelation) if plansScan(relation) =>
      val fs = relation.relation.asInstanceOf[HadoopFsRelation]
      whenJudgeable(filters)(planV1(plan, fs, JoinKeys.subqueries(filters)))
    case ScanOperation(_, _, filters, relation: DataSourceV2ScanRelation) if plansScan(relation) =>
      val scan = relation.scan.asInstanceOf[ParquetScan]
      whenJudgeable(scan.dataFilters ++ filters.filter(_.isInstanceOf[BloomJoinKeys]))(planV2(plan, relation, scan))
    case _ => Nil
  }

  /**
   * Switched off, or with no `=`/`IN`/`<=>` on literals among the scan's filters (a full
   * scan, ranges only), Spark plans the scan exactly as without sparkbloom: nothing can be
   * judged, so nothing of sparkbloom's may cost anything. A scan that has a join's keys
   * to probe at run time ([[JoinKeysStrategy]] put them there) is always planned here.
   */
  private def whenJudgeable(filters: Seq[Expression])(planned: => Seq[SparkPlan]): Seq[SparkPlan] =
    if (JoinKeys.subqueries(filters).nonEmpty ||
      SparkBloomConf.enabled(session.sessionState.conf) && PointPredicate.fromFilters(filters).isDefined) planned
    else {
      PruningStats.recordLast(session, PruningStats.Empty)
      Nil
    }

  /** Join keys are taken out of the scan's filters (they never filter rows) and given to
   *  the node above the scan, which waits for them and hands them to the file index. */
  private def planV1(
      plan: LogicalPlan,
      fs: HadoopFsRelation,
      joinKeys: Seq[Expression]): Seq[SparkPlan] = {
    FileSourceStrategy(JoinKeys.withoutMarkers(plan)).map(_.transformUp {
      case scan: FileSourceScanExec if scan.relation.location eq fs.location =>
        val index = BloomPruningFileIndex.of(fs, session, selectRowGroups,
          FileColumns.ofParquetScan(session.sessionState.conf, fs.dataSchema), useTableIndex = true)
        val format = new BloomReadParquetFileFormat(() => index.pruner.lastReaders)
        val pruned = scan.relation.copy(location = index, fileFormat = format)(scan.relation.sparkSession)
        BloomPruningExec(scan.copy(relation = pruned), joinKeys).decide()
    })
  }

  private def planV2(plan: LogicalPlan, relation: DataSourceV2ScanRelation, scan: ParquetScan): Seq[SparkPlan] = {
    val pruned = relation.copy(scan = BloomParquetScan.of(scan, session).decide())
    SparkShims.planDataSourceV2(session, JoinKeys.unmarked(replace(plan, relation, pruned)))
  }

  /** Whether tasks read only the row groups the driver selected. */
  private def selectRowGroups: Boolean = SparkBloomConf.pruneRowGroups(session.sessionState.conf)

  private def replace(plan: LogicalPlan, from: LogicalPlan, to: LogicalPlan): LogicalPlan =
    plan.transformDown { case node if node eq from => to }
}

private[sparkbloom] object BloomScanStrategy {

  /**
   * Whether sparkbloom plans this scan: only Spark's own Parquet format and scan, never a
   * subclass. Another project's format (Delta's DeltaParquetFileFormat reads column-mapped
   * names and deletion vectors; other lake formats have theirs) is planned exactly as
   * without sparkbloom.
   */
  def plansScan(plan: LogicalPlan): Boolean = plan match {
    case relation: LogicalRelation => relation.relation match {
        case fs: HadoopFsRelation => plansRelation(fs)
        case _ => false
      }
    case relation: DataSourceV2ScanRelation =>
      relation.scan.getClass == classOf[ParquetScan] || relation.scan.isInstanceOf[BloomParquetScan]
    case _ => false
  }

  def plansRelation(fs: HadoopFsRelation): Boolean = fs.fileFormat.getClass == classOf[ParquetFileFormat]

  /** Names of the partition columns of a scan [[plansScan]] accepts. */
  def partitionColumns(plan: LogicalPlan): Seq[String] = plan match {
    case relation: LogicalRelation => relation.relation match {
        case fs: HadoopFsRelation => fs.partitionSchema.fieldNames.toSeq
        case _ => Nil
      }
    case relation: DataSourceV2ScanRelation => relation.scan match {
        case scan: ParquetScan => scan.readPartitionSchema.fieldNames.toSeq
        case _ => Nil
      }
    case _ => Nil
  }
}
