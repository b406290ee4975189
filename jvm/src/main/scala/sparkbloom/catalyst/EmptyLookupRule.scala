// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, PredicateHelper, SubqueryExpression}
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
 * It runs in Spark's "Pre CBO Rules" batch (once per query and per subquery), after the
 * operator optimization has put the filters on the relation and before the scan is
 * planned, on the Parquet relations [[BloomScanStrategy]] plans. The files are judged with
 * the file index that strategy uses, on the filters' deterministic conjuncts: those on
 * partition columns only prune partitions, those naming no partition column are judged by
 * the files' filters, the others are left out (judging fewer conjuncts only keeps more).
 * When some file may match, a copy of the relation lists through the judged index, and the
 * scan planned from it keeps that index when it lists with the same filters: a query's
 * files are then judged once.
 *
 * Catalog tables whose partitions Spark prunes in the metastore (`CatalogFileIndex`) are
 * left to the strategy: judging them here would list their partitions twice.
 */
private[sparkbloom] final case class EmptyLookupRule(session: SparkSession)
    extends Rule[LogicalPlan] with PredicateHelper with Logging {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!SparkBloomConf.enabled(session.sessionState.conf)) plan
    else plan.transformDown {
      case filter @ Filter(condition, relation: LogicalRelation) if judgeable(relation) =>
        val fs = relation.relation.asInstanceOf[HadoopFsRelation]
        val partitionColumns = relation.resolve(fs.partitionSchema, session.sessionState.analyzer.resolver)
        def onPartitions(a: Attribute) =
          partitionColumns.exists(_.semanticEquals(a))
        // names as the relation spells them, as Spark's FileSourceStrategy normalizes a scan's
        // filters: a file index prunes partitions by exact name
        val conjuncts = splitConjunctivePredicates(condition)
          .filter(c => c.deterministic && !SubqueryExpression.hasSubquery(c))
          .map(_.transform {
            case a: AttributeReference => relation.output.find(_.exprId == a.exprId).fold(a)(o => a.withName(o.name))
          })
        val partitionFilters = conjuncts.filter(c => c.references.nonEmpty && c.references.forall(onPartitions))
        val dataFilters = conjuncts.filterNot(_.references.exists(onPartitions))
        val columns = FileColumns.ofParquetScan(session.sessionState.conf, fs.dataSchema)
        if (PointPredicate.fromFilters(dataFilters).flatMap(columns.resolve).isEmpty) filter
        else {
          val (listing, index) = withIndex(relation, fs, columns)
          // described, not listed: a plan optimized for EXPLAIN is not a scan run, unless it runs nothing
          val stats =
            try Some(index.pruner.describe(partitionFilters, dataFilters)(
                  index.delegate.listFiles(partitionFilters, dataFilters)))
            catch {
              case NonFatal(e) =>
                logDebug(s"sparkbloom leaves the scan of ${fs.location} to report its listing failure: $e")
                None
            }
          stats match {
            case Some(s) if s.filesSkipped == s.filesTotal =>
              // the keys stay out of the log: they are often user ids or e-mails
              logInfo(s"sparkbloom: no file of ${fs.location} can hold the lookup's keys " +
                s"(${s.filesSkipped} of ${s.filesTotal} files ruled out): planned as an empty relation")
              PruningStats.recordLast(session, s)
              filter.copy(child = LocalRelation(relation.output, Nil, relation.isStreaming))
            case _ => filter.copy(child = listing)
          }
        }
    }

  private def judgeable(relation: LogicalRelation): Boolean =
    !relation.isStreaming && BloomScanStrategy.plansScan(relation) &&
      !relation.relation.asInstanceOf[HadoopFsRelation].location.isInstanceOf[CatalogFileIndex]

  /**
   * The relation listing through its judged index, which [[BloomScanStrategy]] takes over.
   * The index goes on a copy of the relation, never on the relation itself: that node is
   * shared by every query built on the same DataFrame, and each query judges its files anew
   * (a file rewritten since must not keep its old verdict).
   */
  private def withIndex(relation: LogicalRelation, fs: HadoopFsRelation,
      columns: FileColumns): (LogicalRelation, BloomPruningFileIndex) = fs.location match {
    // already judged: the optimizer ran this batch again on its own result (Spark's tests
    // check that a batch run once changes nothing when run again)
    case index: BloomPruningFileIndex => relation -> index
    case location =>
      val index = new BloomPruningFileIndex(location, session, fs.options,
        SparkBloomConf.pruneRowGroups(session.sessionState.conf), columns, useTableIndex = true)
      relation.copy(relation = fs.copy(location = index)(fs.sparkSession)) -> index
  }
}
