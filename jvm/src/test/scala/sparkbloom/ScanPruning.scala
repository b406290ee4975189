// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{LocalTableScanExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

import sparkbloom.catalyst.{BloomParquetScan, BloomPruningExec}
import sparkbloom.read.PruningStats

/** What each scan sparkbloom planned decided, read from an executed plan (adaptive stages and subqueries too). */
object ScanPruning extends AdaptiveSparkPlanHelper {

  def of(df: DataFrame): Seq[PruningStats] = of(df.queryExecution.executedPlan)

  def of(plan: SparkPlan): Seq[PruningStats] = collectWithSubqueries(plan) {
    case p: BloomPruningExec => p.stats.toSeq
    case b: BatchScanExec => b.scan match {
        case s: BloomParquetScan => s.stats.toSeq
        case _ => Nil
      }
  }.flatten

  /**
   * Whether the executed plan reads no table at all: every leaf is an empty local relation
   * (Spark folded the query) or a scan sparkbloom ruled every file out of.
   */
  def readsNoTable(df: DataFrame): Boolean = {
    val plan = df.queryExecution.executedPlan
    val leaves = collectWithSubqueries(plan) { case p if p.children.isEmpty => p }
    val emptyScans = collectWithSubqueries(plan) {
      case p: BloomPruningExec if p.stats.exists(s => s.filesSkipped == s.filesTotal) => p.child
    }
    leaves.nonEmpty && leaves.forall {
      case local: LocalTableScanExec => local.executeCollect().isEmpty
      case scan => emptyScans.exists(_ eq scan)
    }
  }
}
