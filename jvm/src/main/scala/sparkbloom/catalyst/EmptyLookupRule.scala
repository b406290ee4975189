// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, PredicateHelper, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{CatalogFileIndex, HadoopFsRelation, LogicalRelation}

import sparkbloom.SparkBloomConf
import sparkbloom.predicate.PointPredicate
import sparkbloom.read.PruningStats

/**
 * A lookup that no file can answer becomes an empty relation before Spark plans it, as
 * `WHERE false` does: Spark's own `PropagateEmptyRelation` then folds the query above it,
 * and collecting it runs no job at all. Planned as a scan, a lookup of an absent key still
 * cost code generation and an empty job, several times its probing.
 *
 * It runs once, after Spark's operator optimization (filters sit directly on the relation)
 * and before the scan is planned, on the Parquet relations [[BloomScanStrategy]] plans.
 * The files are judged exactly as that strategy would judge them (the same file index,
 * partition filters and data filters split as Spark splits a scan's filters); when some
 * file may match, the relation is left as it was and carries its judged index, which the
 * strategy takes over, so the files are judged once a query.
 *
 * Catalog tables whose partitions Spark prunes in the metastore (`CatalogFileIndex`) are
 * left to the strategy: judging them here would list their partitions twice.
 */
private[sparkbloom] final case class EmptyLookupRule(session: SparkSession)
    extends Rule[LogicalPlan] with PredicateHelper {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case filter @ Filter(condition, relation: LogicalRelation) if judgeable(relation) =>
      val fs = relation.relation.asInstanceOf[HadoopFsRelation]
      val partitionColumns = relation.resolve(fs.partitionSchema, session.sessionState.analyzer.resolver)
      val conjuncts = splitConjunctivePredicates(condition).filter(c =>
        c.deterministic && !SubqueryExpression.hasSubquery(c))
      // Partition values are not in the files, so a conjunct naming a partition column is
      // never judged by the files' filters (Spark's FileSourceStrategy splits them so too).
      val (partitionFilters, others) = conjuncts.partition(c =>
        c.references.nonEmpty && c.references.forall(a => partitionColumns.exists(_.semanticEquals(a))))
      val dataFilters = others.filterNot(_.references.exists(a => partitionColumns.exists(_.semanticEquals(a))))
      val columns = FileColumns.ofParquetScan(session.sessionState.conf, fs.dataSchema)
      if (PointPredicate.fromFilters(dataFilters).flatMap(columns.resolve).isEmpty) filter
      else {
        val (judged, index) = withIndex(relation, fs, columns)
        // described, not listed: a plan optimized for EXPLAIN is not a scan run, unless it runs nothing
        val stats =
          try Some(index.pruner.describe(partitionFilters, dataFilters)(
                index.delegate.listFiles(partitionFilters, dataFilters)))
          catch { case NonFatal(_) => None } // the scan itself will report a listing failure
        stats match {
          case Some(s) if s.filesSkipped == s.filesTotal =>
            PruningStats.recordLast(session, s)
            filter.copy(child = LocalRelation(relation.output, Nil, relation.isStreaming))
          case _ => filter.copy(child = judged)
        }
      }
  }

  private def judgeable(relation: LogicalRelation): Boolean =
    !relation.isStreaming && BloomScanStrategy.plansScan(relation) && SparkBloomConf.enabled(
      session.sessionState.conf) &&
      !relation.relation.asInstanceOf[HadoopFsRelation].location.isInstanceOf[CatalogFileIndex]

  /**
   * The relation listing through its judged index, which [[BloomScanStrategy]] takes over.
   * The index goes on a copy of the relation, never on the relation itself: that node is
   * shared by every query built on the same DataFrame, and each query judges its files anew
   * (a file rewritten since must not keep its old verdict).
   */
  private def withIndex(relation: LogicalRelation, fs: HadoopFsRelation,
      columns: FileColumns): (LogicalRelation, BloomPruningFileIndex) = fs.location match {
    case judged: BloomPruningFileIndex => relation -> judged // this plan was optimized before
    case location =>
      val index = new BloomPruningFileIndex(location, session, fs.options,
        SparkBloomConf.pruneRowGroups(session.sessionState.conf), columns, useTableIndex = true)
      relation.copy(relation = fs.copy(location = index)(fs.sparkSession)) -> index
  }
}
