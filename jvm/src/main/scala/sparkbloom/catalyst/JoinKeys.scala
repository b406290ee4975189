// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, DynamicPruningExpression, Expression, PredicateHelper, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.execution.InSubqueryExec
import org.apache.spark.sql.types.{BooleanType, DataType}
import sparkbloom.predicate.PointPredicate

/**
 * Marks a dynamic pruning subquery that sparkbloom placed on a Parquet scan: the distinct
 * keys of a join's other side, which the scan's Bloom filters probe once they are known.
 * [[JoinKeysStrategy]] puts it in a `Filter` directly above the scan and takes it out
 * again when it plans that scan, so it never filters a row. Should it ever be
 * evaluated, it is true: it holds keys, it is not a condition.
 */
private[sparkbloom] final case class BloomJoinKeys(child: Expression) extends UnaryExpression with CodegenFallback {
  override def dataType: DataType = BooleanType
  override def nullable: Boolean = false
  override def eval(input: InternalRow): Any = true
  override protected def withNewChildInternal(newChild: Expression): BloomJoinKeys = copy(child = newChild)
}

private[sparkbloom] object JoinKeys extends PredicateHelper {

  /** The key subqueries among a scan's filters, without their markers. */
  def subqueries(filters: Seq[Expression]): Seq[Expression] = filters.collect { case BloomJoinKeys(keys) => keys }

  /** `plan` without sparkbloom's marker filters (a scan planned by Spark alone). */
  def withoutMarkers(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case Filter(condition, child) if splitConjunctivePredicates(condition).forall(_.isInstanceOf[BloomJoinKeys]) =>
      child
  }

  /** `plan` with each marker replaced by the bare subquery, as Spark's V2 planning expects
   *  runtime filters (it hands them to the scan through `SupportsRuntimeV2Filtering`). */
  def unmarked(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case f @ Filter(condition, _) if condition.exists(_.isInstanceOf[BloomJoinKeys]) =>
      f.copy(condition = condition.transform { case BloomJoinKeys(keys) => keys })
  }

  def marker(subqueries: Seq[Expression]): Expression = subqueries.map(BloomJoinKeys(_): Expression).reduce(And)

  /**
   * What a scan learns from its key subqueries once they have run; `overLimit`: a column's
   * keys were left out for being too many. Equal by what prunes: a listing judged without keys
   * stands for one whose keys were all over the limit, and is not judged again.
   */
  final case class Runtime(predicate: Option[PointPredicate], keys: Long)(val overLimit: Boolean = false)

  val NoKeys: Runtime = Runtime(None, 0)()

  /**
   * The keys of evaluated subqueries (Spark planned each as a `DynamicPruningExpression`
   * over an `InSubqueryExec`) as a predicate, per column. A subquery Spark chose not to run
   * (a true literal), one with more than `maxKeys` keys, or one on something other than a
   * column says nothing, and only ever keeps more data.
   */
  def evaluated(subqueries: Seq[Expression], maxKeys: Int): Runtime = of(subqueries.flatMap {
      case DynamicPruningExpression(in: InSubqueryExec) =>
        in.values().flatMap(values => PointPredicate.columnIn(in.child, values.toSeq))
      case _ => None
    }, maxKeys)

  /** A runtime predicate from per-column keys, counting the keys probed; a column with more
   *  than `maxKeys` keys is left out (probing it would cost more than it saves). */
  def of(keyed: Seq[PointPredicate.ColumnIn], maxKeys: Int): Runtime = {
    val (probed, tooMany) = keyed.partition(_.values.size <= maxKeys)
    probed match {
      case Seq() => Runtime(None, 0)(tooMany.nonEmpty)
      case Seq(single) => Runtime(Some(single), single.values.size)(tooMany.nonEmpty)
      case many => Runtime(Some(PointPredicate.All(many)), many.map(_.values.size.toLong).sum)(tooMany.nonEmpty)
    }
  }
}
