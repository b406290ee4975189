// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.sql.catalyst.expressions.DynamicPruningSubquery

/** Spark 4.0 to 4.2: dynamic pruning subqueries name their build keys by a list of indices. */
private[sparkbloom] trait DynamicPruningShim extends SparkShim {
  override def dynamicPruningSubquery(k: KeySubquery): DynamicPruningSubquery =
    DynamicPruningSubquery(k.pruningKey, k.buildQuery, k.buildKeys, Seq(k.keyIndex), k.onlyInBroadcast, k.exprId)
}
