// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.sql.catalyst.expressions.EvalMode
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum

/** From 4.1 a sum's overflow mode is in its `NumericEvalContext`. */
private[sparkbloom] trait SumEvalModeShim extends SparkShim {
  override def evalMode(sum: Sum): EvalMode.Value = sum.evalContext.evalMode
}
