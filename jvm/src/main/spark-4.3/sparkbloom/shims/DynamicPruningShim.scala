// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.sql.catalyst.expressions.DynamicPruningSubquery

/** Spark 4.3: dynamic pruning subqueries gained a second parameter list (a projection of
 *  broadcast values), which keeps its default here. */
private[sparkbloom] trait DynamicPruningShim extends SparkShim {
  override def dynamicPruningSubquery(k: KeySubquery): DynamicPruningSubquery =
    DynamicPruningSubquery(k.pruningKey, k.buildQuery, k.buildKeys, Seq(k.keyIndex), k.onlyInBroadcast, k.exprId)()
}
