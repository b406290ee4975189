package sparkbloom.shims

import org.apache.spark.sql.catalyst.expressions.{DynamicPruningSubquery, ExprId, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Spark 4.3: dynamic pruning subqueries gained a second parameter list (a projection of
 *  broadcast values), which keeps its default here. */
private[sparkbloom] trait DynamicPruningShim extends SparkShim {

  override def dynamicPruningSubquery(
      pruningKey: Expression,
      buildQuery: LogicalPlan,
      buildKeys: Seq[Expression],
      keyIndex: Int,
      onlyInBroadcast: Boolean,
      exprId: ExprId): DynamicPruningSubquery =
    DynamicPruningSubquery(pruningKey, buildQuery, buildKeys, Seq(keyIndex), onlyInBroadcast, exprId)()
}
