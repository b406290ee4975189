// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogStatistics
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, FileSourceStrategy, HadoopFsRelation, InsertIntoHadoopFsRelationCommand, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import sparkbloom.index.{IndexMaintenance, WrittenTable}
import sparkbloom.predicate.PointPredicate
import sparkbloom.read.{Decision, PruningStats}
import sparkbloom.settings.SparkBloomConf
import sparkbloom.shims.SparkShims
import sparkbloom.write.BloomParquetFileFormat

/**
 * Plain Parquet files ([[PlainParquet]]): a DataSource V1 relation is judged into a relation
 * over its pruning index ([[BloomPruningFileIndex]]), a V2 `ParquetScan` into a
 * [[BloomParquetScan]], each sized by what it keeps, as Spark's `PruneFileSourcePartitions`
 * sizes a relation by its partitions. Spark picks join strategies by those sizes: a lookup
 * that keeps 1 of 200 files is sized as that file and can be broadcast. Tasks read only the
 * row groups the driver selected.
 */
private[sparkbloom] object ParquetFilesSource extends ScanSource {

  override def judgeLiterals(session: SparkSession, op: LogicalPlan, relation: LogicalPlan,
      filters: Seq[Expression]): Option[LogicalPlan] = relation match {
    case v1: LogicalRelation if unjudgedV1(v1) && PointPredicate.fromFilters(filters).isDefined =>
      Some(replace(op, v1, judgedV1(session, v1, filters)))
    case v2: DataSourceV2ScanRelation
        if v2.scan.getClass == classOf[ParquetScan] &&
          PointPredicate.fromFilters(v2.scan.asInstanceOf[ParquetScan].dataFilters).isDefined =>
      Some(replace(op, v2, v2.copy(scan = BloomParquetScan.of(v2.scan.asInstanceOf[ParquetScan], session).decide())))
    case _
        if PlainParquet.scan(relation) && !judged(relation) &&
          PointPredicate.fromFilters(filters ++ dataFilters(relation)).isEmpty =>
      // nothing to judge: the session's last pruning is none, as for a scan judged to keep all
      PruningStats.recordLast(session, PruningStats.unjudged(0, Decision.NoPointPredicate))
      Some(op)
    case _ => None
  }

  /**
   * A scan the optimizer judged keeps its node whatever the settings are now: the node reads
   * what the verdicts left out if it changes before the plan runs again.
   */
  override def planScans(session: SparkSession, plan: SparkPlan): SparkPlan = plan.transformUp {
    case scan: FileSourceScanExec if PlainParquet.relation(scan.relation) =>
      val columns = FileColumns.ofParquetScan(session.sessionState.conf, scan.relation.dataSchema)
      if (scan.relation.location.isInstanceOf[BloomPruningFileIndex] ||
        ScanPruningRule.judgeable(session, scan, columns)) {
        ScanPruningRule.pruned(session, scan, joinKeys = Nil)
      } else scan
  }

  override def takesJoinKeys(scan: LogicalPlan): Boolean = PlainParquet.scan(scan)

  override def writtenTables(session: SparkSession, plan: LogicalPlan): Seq[WrittenTable] = plan match {
    case cmd: InsertIntoHadoopFsRelationCommand
        if cmd.fileFormat.getClass == classOf[ParquetFileFormat] || cmd.fileFormat.isInstanceOf[
          BloomParquetFileFormat] =>
      Seq(IndexMaintenance.parquetWrite(cmd.outputPath, cmd.partitionColumns.size))
    case _ => Nil
  }

  override def partitionColumns(scan: LogicalPlan): Seq[String] = PlainParquet.partitionColumns(scan)

  /**
   * V1: the node above the scan waits for the subqueries and hands their keys to the file
   * index. V2: Spark hands them to the scan as runtime filters.
   */
  override def planWithKeys(session: SparkSession, plan: LogicalPlan, scan: LogicalPlan,
      keys: Seq[Expression]): Option[Seq[SparkPlan]] = scan match {
    case v1: LogicalRelation if PlainParquet.scan(v1) =>
      Some(FileSourceStrategy(JoinKeys.withoutMarkers(plan)).map(_.transformUp {
        case exec: FileSourceScanExec
            if exec.relation.location eq v1.relation.asInstanceOf[HadoopFsRelation].location =>
          ScanPruningRule.pruned(session, exec, keys)
      }))
    case v2: DataSourceV2ScanRelation if PlainParquet.scan(v2) =>
      val pruned = v2.copy(scan = BloomParquetScan.of(v2.scan.asInstanceOf[ParquetScan], session).decide())
      Some(SparkShims.planDataSourceV2(session,
          JoinKeys.unmarked(plan.transformDown { case node if node eq v2 => pruned })))
    case _ => None
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
  private def judgedV1(session: SparkSession, relation: LogicalRelation, filters: Seq[Expression]): LogicalRelation = {
    val fs = relation.relation.asInstanceOf[HadoopFsRelation]
    val conf = session.sessionState.conf
    val index = BloomPruningFileIndex.of(fs, session, SparkBloomConf.pruneRowGroups(conf),
      FileColumns.ofParquetScan(conf, fs.dataSchema), useTableIndex = true)
    val (partitionFilters, dataFilters) = splitFilters(relation, fs, filters)
    val sized = index.decide(partitionFilters, dataFilters)
    relation.copy(
      relation = fs.copy(location = index)(fs.sparkSession),
      catalogTable =
        if (!sized) relation.catalogTable
        else
          relation.catalogTable.map(_.copy(stats = Some(CatalogStatistics(sizeInBytes = BigInt(index.sizeInBytes))))))
  }

  /**
   * The partition and data filters a scan of `relation` will list with, from the conjuncts
   * above it: named as the relation names its columns and split, as Spark's file source
   * planning does.
   */
  def splitFilters(relation: LogicalRelation, fs: HadoopFsRelation,
      filters: Seq[Expression]): (Seq[Expression], Seq[Expression]) = {
    val names = relation.output.map(a => a.exprId -> a.name).toMap
    val normalized = filters.filter(f => f.deterministic && !SubqueryExpression.hasSubquery(f)).map(_.transform {
      case a: AttributeReference if names.contains(a.exprId) => a.withName(names(a.exprId))
    })
    val (partitionFilters, dataFilters) = DataSourceUtils.getPartitionFiltersAndDataFilters(fs.partitionSchema,
      normalized)
    (partitionFilters.toSeq, dataFilters.toSeq)
  }

  private def replace(plan: LogicalPlan, from: LogicalPlan, to: LogicalPlan): LogicalPlan =
    plan.transformDown { case node if node eq from => to }
}
