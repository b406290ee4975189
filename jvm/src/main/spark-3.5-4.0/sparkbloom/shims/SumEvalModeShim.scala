// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.sql.catalyst.expressions.EvalMode
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum

/** Before 4.1 a sum holds its overflow mode itself. */
private[sparkbloom] trait SumEvalModeShim extends SparkShim {
  override def evalMode(sum: Sum): EvalMode.Value = sum.evalMode
}
