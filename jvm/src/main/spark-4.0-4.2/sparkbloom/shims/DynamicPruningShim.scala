package sparkbloom.shims

import org.apache.spark.sql.catalyst.expressions.{DynamicPruningSubquery, ExprId, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Spark 4.0 to 4.2: dynamic pruning subqueries name their build keys by a list of indices. */
private[sparkbloom] trait DynamicPruningShim extends SparkShim {

  override def dynamicPruningSubquery(
      pruningKey: Expression,
      buildQuery: LogicalPlan,
      buildKeys: Seq[Expression],
      keyIndex: Int,
      onlyInBroadcast: Boolean,
      exprId: ExprId): DynamicPruningSubquery =
    DynamicPruningSubquery(pruningKey, buildQuery, buildKeys, Seq(keyIndex), onlyInBroadcast, exprId)
}
