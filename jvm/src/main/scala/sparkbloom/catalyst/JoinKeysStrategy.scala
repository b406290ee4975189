// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.HiveTableRelation
import org.apache.spark.sql.catalyst
  .expressions.{Alias, Attribute, EvalMode, ExplodeBase, ExprId, Expression, Generator, Inline, KnownFloatingPointNormalized, NamedExpression, ReplicateRows, Stack, SubqueryExpression, UserDefinedExpression}
import org.apache.spark.sql.catalyst.expressions
  .aggregate.{AggregateFunction, Average, BitAggregate, BloomFilterAggregate, Count, HyperLogLogPlusPlus, Max, Min, Sum}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight, NormalizeNaNAndZero}
import org.apache.spark.sql.catalyst.planning.{ExtractEquiJoinKeys, ScanOperation}
import org.apache.spark.sql.catalyst.plans.{Inner, JoinType, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.plans
  .logical.{Aggregate, Expand, Filter, Generate, Join, LocalRelation, LogicalPlan, OneRowRelation, Project, Range, RebalancePartitions, RepartitionOperation, Sort, SubqueryAlias, Union, View}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation, DataSourceV2ScanRelation}
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec
import org.apache.spark.sql
  .types.{ArrayType, ByteType, DataType, DecimalType, DoubleType, FloatType, IntegerType, LongType, MapType, ShortType, StringType, StructType, UserDefinedType}

import sparkbloom.settings.SparkBloomConf
import sparkbloom.shims.{KeySubquery, SparkShims}
import sparkbloom.predicate.PointPredicate

/**
 * Runtime Bloom pruning for joins: when one side of an equi-join (or of the semi join an
 * `IN`/`EXISTS` subquery becomes) is a Parquet scan sparkbloom plans, the other side's
 * distinct keys are handed to that scan as Spark dynamic pruning subqueries, one per key
 * column. Spark plans them as it plans dynamic partition pruning: from the broadcast the
 * join builds anyway (reused, never computed again), with and without adaptive execution;
 * without a broadcast to reuse, only when `spark.sql.optimizer.dynamicPartitionPruning.
 * reuseBroadcastOnly` is off, as a subquery of its own (Spark's rule, the other side
 * computed twice). The scan probes the keys on the driver before its tasks are scheduled.
 *
 * It is a planner strategy because by planning Spark has rewritten `IN`/`EXISTS` subqueries
 * into semi joins and normalized floating-point keys, so the keys are the join's own. It
 * plans the join exactly as Spark's strategies do, with the scan wrapped.
 */
private[sparkbloom] final case class JoinKeysStrategy(session: SparkSession) extends SparkStrategy {
  import JoinKeysStrategy._

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case join: Join if active => withKeys(join).getOrElse(Nil)
    case ScanOperation(_, _, filters, scan) if judgesKeys(scan) && JoinKeys.subqueries(filters).nonEmpty =>
      planScan(plan, scan, JoinKeys.subqueries(filters))
    case _ => Nil
  }

  /**
   * A scan whose filters hold a join's key subqueries, planned by its source with the markers
   * taken out (they never filter rows) and the scan pruned by the keys when the plan runs.
   */
  private def planScan(plan: LogicalPlan, scan: LogicalPlan, keys: Seq[Expression]): Seq[SparkPlan] =
    ScanSources.all.view.flatMap(_.planWithKeys(session, plan, scan, keys)).headOption.getOrElse(Nil)

  private def active: Boolean = {
    val conf = session.sessionState.conf
    SparkBloomConf.enabled(conf) && SparkBloomConf.joinEnabled(conf) && conf.dynamicPartitionPruningEnabled
  }

  private def planAsSpark(join: LogicalPlan): Seq[SparkPlan] = session.sessionState.planner.strategies.iterator
    .filterNot(_.isInstanceOf[JoinKeysStrategy]).map(_(join)).find(_.nonEmpty).getOrElse(Nil)

  /**
   * The join planned with key subqueries on its pruned side, or None to plan it as Spark
   * does. What was decided for a join is kept on it: adaptive execution plans the same join
   * again after each stage, and its subqueries must keep their ids (Spark compiled them once,
   * by id), so a join is never given new ones.
   *
   * Where the keys may come only from a broadcast, a join Spark does not plan as a broadcast
   * of the other side gets none: its subqueries would come to nothing (adaptive execution may
   * turn a sort-merge join into a broadcast later, but keys are fixed by then), and the scan
   * would still wait for them.
   */
  private def withKeys(join: Join): Option[Seq[SparkPlan]] = {
    def planned(decision: Decision): Option[Seq[SparkPlan]] =
      marked(join, decision).map(planAsSpark).filter { physical =>
        // Spark planned a broadcast hash join that builds the side opposite the pruned one.
        !onlyInBroadcast(join, decision) || physical.exists {
          case j: BroadcastHashJoinExec => j.buildSide == (if (decision.pruneLeft) BuildRight else BuildLeft)
          case _ => false
        }
      }
    join.getTagValue(DecisionTag) match {
      case Some(decision) => decision.flatMap(planned)
      case None =>
        val fresh = if (join.exists(_.isInstanceOf[LogicalQueryStage])) None else decide(join)
        val plan = fresh.flatMap(planned)
        join.setTagValue(DecisionTag, if (plan.isDefined) fresh else None)
        plan
    }
  }

  /**
   * Keys from a subquery of their own compute the other side again: only if Spark's dynamic
   * pruning allows that (`reuseBroadcastOnly` off) and it gives the same keys. A reused
   * broadcast holds the join's own keys, whatever the other side is.
   */
  private def onlyInBroadcast(join: Join, decision: Decision): Boolean =
    session.sessionState.conf.dynamicPartitionPruningReuseBroadcastOnly ||
      !recomputesTheSame(if (decision.pruneLeft) join.right else join.left)

  private def decide(join: Join): Option[Decision] = join match {
    case ExtractEquiJoinKeys(joinType, leftKeys, rightKeys, _, _, left, right, _) =>
      val candidates = Seq(true, false).filter(canPrune(joinType, _)).flatMap { pruneLeft =>
        val (pruned, other) = if (pruneLeft) (left, right) else (right, left)
        val (prunedKeys, otherKeys) = if (pruneLeft) (leftKeys, rightKeys) else (rightKeys, leftKeys)
        val columns = prunedKeys.indices.filter(i => scanColumn(pruned, prunedKeys(i), otherKeys(i).dataType).isDefined)
        // Keys that a bigger side would have to produce cost more than they save.
        if (columns.isEmpty || other.stats.sizeInBytes >= pruned.stats.sizeInBytes) None
        else Some(Decision(pruneLeft, columns, columns.map(_ => NamedExpression.newExprId)) -> pruned.stats.sizeInBytes)
      }
      if (candidates.isEmpty) None else Some(candidates.maxBy(_._2)._1)
    case _ => None
  }

  private def marked(join: Join, decision: Decision): Option[Join] = join match {
    case ExtractEquiJoinKeys(_, leftKeys, rightKeys, _, _, left, right, _) =>
      val (pruned, other) = if (decision.pruneLeft) (left, right) else (right, left)
      val (prunedKeys, otherKeys) = if (decision.pruneLeft) (leftKeys, rightKeys) else (rightKeys, leftKeys)
      val broadcastOnly = onlyInBroadcast(join, decision)
      val subqueries = decision.keyIndices.zip(decision.exprIds).flatMap { case (i, exprId) =>
        scanColumn(pruned, prunedKeys(i), otherKeys(i).dataType).map { case (scan, column) =>
          scan -> SparkShims.dynamicPruningSubquery(KeySubquery(column, other, otherKeys, i, broadcastOnly, exprId))
        }
      }
      subqueries.headOption.map { case (scan, _) =>
        val keys = JoinKeys.marker(subqueries.collect { case (s, subquery) if s eq scan => subquery })
        val wrapped = pruned.transformUp { case node if node eq scan => Filter(keys, scan) }
        if (decision.pruneLeft) join.copy(left = wrapped) else join.copy(right = wrapped)
      }
    case _ => None
  }
}

private[sparkbloom] object JoinKeysStrategy {

  /** Which side a join's keys prune, by which of its key columns, under which subquery ids. */
  final case class Decision(pruneLeft: Boolean, keyIndices: Seq[Int], exprIds: Seq[ExprId])

  val DecisionTag: TreeNodeTag[Option[Decision]] = TreeNodeTag[Option[Decision]]("sparkbloom.joinKeys")

  /**
   * Whether computing `plan` again gives the same rows. A shuffle does not keep the order rows
   * arrive in, so a second run may differ wherever a result depends on that order: a LIMIT
   * picks other rows, `first` or `mode` other values, a floating-point sum rounds otherwise,
   * a function of a Dataset's or Python's sees its partition or group in another order. So
   * only what is known to depend on which rows there are, never on their order, is accepted,
   * in subqueries too; anything else (user code, an operator or function not named here) is
   * refused, and the keys then come only from the join's own broadcast.
   */
  def recomputesTheSame(plan: LogicalPlan): Boolean =
    !plan.exists(node => !sameRows(node) || node.expressions.exists(_.exists(e => !sameValue(e))))

  private def sameRows(node: LogicalPlan): Boolean = node match {
    case _: LogicalRelation | _: DataSourceV2Relation | _: DataSourceV2ScanRelation | _: HiveTableRelation |
        _: LocalRelation | _: Range | _: OneRowRelation =>
      true
    case stage: LogicalQueryStage => recomputesTheSame(stage.logicalPlan) // judged as before adaptive execution ran it
    case _: Project | _: Filter | _: Join | _: Union | _: Expand | _: Generate | _: SubqueryAlias | _: View => true
    case _: JudgedScan => true // the scan beneath, sized by what it keeps
    // A group keeps one of its equal keys, whichever came first, unless equal keys are the same value.
    case aggregate: Aggregate => aggregate.groupingExpressions.forall(g => equalIsSame(g.dataType))
    // Order and partitioning are not which rows there are.
    case _: Sort | _: RepartitionOperation | _: RebalancePartitions => true
    case _ => false
  }

  private def sameValue(e: Expression): Boolean = e match {
    case subquery: SubqueryExpression => recomputesTheSame(subquery.plan)
    case aggregate: AggregateFunction => orderInsensitive(aggregate)
    // Rows from one row's values.
    case _: ExplodeBase | _: Inline | _: Stack | _: ReplicateRows => true
    case _: Generator | _: UserDefinedExpression => false
    case _: NormalizeNaNAndZero => true
    // Spark's own functions of one row's values: another library's may not be as deterministic as it says.
    case _ => e.deterministic && e.getClass.getName.startsWith("org.apache.spark.sql.catalyst.expressions.")
  }

  /**
   * Aggregates whose result is the same in any order: counts; exact sums (of integers, and of
   * decimals with room to spare in the 10 digits Spark adds: floating-point sums round by
   * their order); min and max of values that equal only themselves; bitwise aggregates; and
   * sketches built and merged by max or OR, which commute (approx_count_distinct's registers,
   * Spark's runtime Bloom filters).
   */
  private def orderInsensitive(f: AggregateFunction): Boolean = f match {
    case _: Count | _: BitAggregate | _: HyperLogLogPlusPlus | _: BloomFilterAggregate => true
    // try_sum gives null where a partial sum overflows, and which one does depends on the order.
    case sum: Sum => exactSum(sum.child.dataType) && SparkShims.evalMode(sum) != EvalMode.TRY
    // Spark sums an average of integers in doubles.
    case average: Average => average.child.dataType match { case d: DecimalType => exactSum(d); case _ => false }
    case min: Min => equalIsSame(min.child.dataType)
    case max: Max => equalIsSame(max.child.dataType)
    case _ => false
  }

  private def exactSum(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType => true
    case d: DecimalType => d.precision <= 28
    case _ => false
  }

  /** Whether values of `t` that compare equal are one value: not 0.0 and -0.0, nor 'a' and 'A' under UTF8_LCASE. */
  private def equalIsSame(t: DataType): Boolean = t match {
    case FloatType | DoubleType => false
    case s: StringType => SparkShims.bytewiseEquality(s)
    case ArrayType(element, _) => equalIsSame(element)
    case MapType(key, value, _) => equalIsSame(key) && equalIsSame(value)
    case struct: StructType => struct.fields.forall(f => equalIsSame(f.dataType))
    case udt: UserDefinedType[_] => equalIsSame(udt.sqlType)
    case _ => true
  }

  // Only a side whose rows the join drops when the other side lacks their key can lose them early.
  private def canPrune(joinType: JoinType, left: Boolean): Boolean = joinType match {
    case Inner => true
    case LeftSemi | RightOuter => left
    case LeftOuter => !left
    case _ => false
  }

  /**
   * The scan under `side` (through projections and filters) and the column of it that
   * `key` is, if `key` is a data column (not a partition column) of a Parquet scan
   * sparkbloom plans, of the other key's type.
   */
  def scanColumn(side: LogicalPlan, key: Expression, otherType: DataType): Option[(LogicalPlan, Expression)] = {
    def resolve(plan: LogicalPlan, e: Expression): Option[(LogicalPlan, Expression)] = plan match {
      case Project(list, child) =>
        val aliases = list.collect { case a: Alias => a.exprId -> a.child }.toMap
        resolve(child, e.transform { case a: Attribute if aliases.contains(a.exprId) => aliases(a.exprId) })
      case Filter(_, child) => resolve(child, e)
      case JudgedScan(child, _) => resolve(child, e)
      case scan
          if judgesKeys(scan) && PointPredicate.isColumn(e) &&
            e.references.subsetOf(scan.outputSet) && !e.references.exists(isPartitionColumn(scan, _)) =>
        Some(scan -> e)
      case _ => None
    }
    val column = key match { case KnownFloatingPointNormalized(NormalizeNaNAndZero(child)) => child; case k => k }
    if (column.dataType != otherType) None else resolve(side, column)
  }

  /** The scans keys of a join can prune, as their sources say. */
  private def judgesKeys(scan: LogicalPlan): Boolean = ScanSources.takesJoinKeys(scan)

  // Partition values are not in the files' filters (Spark's dynamic partition pruning prunes those).
  private def isPartitionColumn(scan: LogicalPlan, a: Attribute): Boolean =
    ScanSources.partitionColumns(scan).exists(_.equalsIgnoreCase(a.name))
}
