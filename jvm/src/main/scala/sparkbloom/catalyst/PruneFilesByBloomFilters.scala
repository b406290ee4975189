// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogStatistics
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, SubqueryExpression}
import org.apache.spark.sql.catalyst.planning.ScanOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import sparkbloom.predicate.PointPredicate
import sparkbloom.read.PruningStats
import sparkbloom.settings.SparkBloomConf

/**
 * Judges the files of each plain Parquet relation by its `=`, `IN` and `<=>` literals while
 * the plan is optimized, and gives the relation the size of what it keeps, as Spark's
 * `PruneFileSourcePartitions` does for partitions. Spark picks join strategies by those
 * sizes: a lookup that keeps 1 of 200 files is sized as that file and can be broadcast.
 *
 * It runs among the optimizer's last rules, Spark's batch for user-provided optimizations
 * (`spark.experimental.extraOptimizations`, where [[PruneFilesByBloomFilters.registration]]
 * puts it): only then has Spark pruned catalog partitions and built V2 scans. Rules an
 * extension can inject run before either. The index it makes carries the verdict on to
 * planning ([[ScanPruningRule]], [[JoinKeysStrategy]]), which reuse it instead of judging
 * again. Keys from a join arrive only when the plan runs and never change the size decided
 * here: a plan is sized once, whatever keys it is executed with.
 */
private[sparkbloom] final case class PruneFilesByBloomFilters(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!SparkBloomConf.enabled(session.sessionState.conf)) {
      if (plan.exists(PlainParquet.scan)) PruningStats.recordLast(session, PruningStats.Empty) // nothing judged
      plan
    } else
      plan.transformDown {
        case op @ ScanOperation(_, _, filters, relation: LogicalRelation)
            if unjudgedV1(relation) && PointPredicate.fromFilters(filters).isDefined =>
          replace(op, relation, judgedV1(relation, filters))
        case op @ ScanOperation(_, _, _, relation: DataSourceV2ScanRelation)
            if relation.scan.getClass == classOf[ParquetScan] &&
              PointPredicate.fromFilters(relation.scan.asInstanceOf[ParquetScan].dataFilters).isDefined =>
          replace(op, relation, judgedV2(relation, relation.scan.asInstanceOf[ParquetScan]))
        case op @ ScanOperation(_, _, filters, relation: DataSourceV2ScanRelation)
            if IcebergScans.plainRead(relation) && !IcebergScans.judged(relation.scan) =>
          // the scan itself keeps the files it kept: the plan is the same plan
          if (PointPredicate.fromFilters(filters).isDefined) IcebergScans.judge(session, relation, filters)
          else PruningStats.recordLast(session, PruningStats.Empty)
          op
        case op @ ScanOperation(_, _, filters, relation)
            if PlainParquet.scan(relation) && !judged(relation) &&
              PointPredicate.fromFilters(filters ++ dataFilters(relation)).isEmpty =>
          // nothing to judge: the session's last pruning is none, as for a scan judged to keep all
          PruningStats.recordLast(session, PruningStats.Empty)
          op
      }

  private def judged(relation: LogicalPlan): Boolean = relation match {
    case r: LogicalRelation => r.relation.asInstanceOf[HadoopFsRelation].location.isInstanceOf[BloomPruningFileIndex]
    case r: DataSourceV2ScanRelation => r.scan.isInstanceOf[BloomParquetScan]
    case _ => false
  }

  private def dataFilters(relation: LogicalPlan): Seq[Expression] = relation match {
    case r: DataSourceV2ScanRelation => r.scan.asInstanceOf[ParquetScan].dataFilters.toSeq
    case _ => Nil
  }

  private def unjudgedV1(relation: LogicalRelation): Boolean = relation.relation match {
    case fs: HadoopFsRelation => PlainParquet.relation(fs) && !fs.location.isInstanceOf[BloomPruningFileIndex]
    case _ => false
  }

  /**
   * The relation over its pruning index, decided for the filters its scan will list with
   * (split into partition and data filters as Spark splits them). A table's catalog
   * statistics, which Spark prefers to the files' size, are replaced by the kept size.
   */
  private def judgedV1(relation: LogicalRelation, filters: Seq[Expression]): LogicalRelation = {
    val fs = relation.relation.asInstanceOf[HadoopFsRelation]
    val conf = session.sessionState.conf
    val index = BloomPruningFileIndex.of(fs, session, SparkBloomConf.pruneRowGroups(conf),
      FileColumns.ofParquetScan(conf, fs.dataSchema), useTableIndex = true)
    // named as the relation names its columns, as Spark's file source planning does
    val names = relation.output.map(a => a.exprId -> a.name).toMap
    val normalized = filters.filter(f => f.deterministic && !SubqueryExpression.hasSubquery(f)).map(_.transform {
      case a: AttributeReference if names.contains(a.exprId) => a.withName(names(a.exprId))
    })
    val (partitionFilters, dataFilters) = DataSourceUtils.getPartitionFiltersAndDataFilters(fs.partitionSchema,
      normalized)
    val sized = index.decide(partitionFilters.toSeq, dataFilters.toSeq)
    relation.copy(
      relation = fs.copy(location = index)(fs.sparkSession),
      catalogTable =
        if (!sized) relation.catalogTable
        else
          relation.catalogTable.map(_.copy(stats = Some(CatalogStatistics(sizeInBytes = BigInt(index.sizeInBytes))))))
  }

  private def judgedV2(relation: DataSourceV2ScanRelation, scan: ParquetScan): DataSourceV2ScanRelation =
    relation.copy(scan = BloomParquetScan.of(scan, session).decide())

  private def replace(plan: LogicalPlan, from: LogicalPlan, to: LogicalPlan): LogicalPlan =
    plan.transformDown { case node if node eq from => to }
}

private[sparkbloom] object PruneFilesByBloomFilters {

  /**
   * Puts the rule for `session` among the session's user-provided optimizations, once, and
   * changes nothing itself. Spark builds a session's injected rules each time it optimizes a
   * plan, before it reads the user-provided ones, so the rule is in place from the first
   * query on, is put back if a user replaces that list, and a cloned session (which copies
   * its parent's list) gets its own in place of its parent's.
   */
  def registration(session: SparkSession): Rule[LogicalPlan] = {
    val methods = session.sessionState.experimentalMethods
    methods.synchronized {
      val current = methods.extraOptimizations
      val inPlace = current.exists { case own: PruneFilesByBloomFilters => own.session eq session; case _ => false }
      if (!inPlace) {
        methods.extraOptimizations =
          current.filterNot(_.isInstanceOf[PruneFilesByBloomFilters]) :+ PruneFilesByBloomFilters(session)
      }
    }
    Registered
  }

  private object Registered extends Rule[LogicalPlan] {
    override def apply(plan: LogicalPlan): LogicalPlan = plan
  }
}
