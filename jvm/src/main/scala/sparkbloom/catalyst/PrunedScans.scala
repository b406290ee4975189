// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.{AdaptiveSparkPlanExec, QueryStageExec}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec

import sparkbloom.read.PruningStats

/**
 * The scans of a physical plan that sparkbloom judges, and what was decided for each when
 * the plan was made (None: decided when it runs, by a join's keys), in plan order, subqueries
 * included: what `sparkbloom.explain_pruning` reports.
 */
private[sparkbloom] object PrunedScans {

  def of(plan: SparkPlan): Seq[(String, Option[PruningStats])] = {
    val found = Seq.newBuilder[(String, Option[PruningStats])]
    def visit(node: SparkPlan): Unit = node match {
      case adaptive: AdaptiveSparkPlanExec => visit(adaptive.executedPlan)
      case stage: QueryStageExec => visit(stage.plan)
      case pruning: BloomPruningExec =>
        found += pruning.scanName -> pruning.decidedStats
        (pruning.subqueries ++ pruning.child.subqueries).foreach(visit)
      case batch: BatchScanExec if batch.scan.isInstanceOf[BloomParquetScan] =>
        found += s"BatchScan ${batch.table.name}" -> batch.scan.asInstanceOf[BloomParquetScan].decidedStats
        batch.subqueries.foreach(visit)
      case other =>
        other.subqueries.foreach(visit)
        other.children.foreach(visit)
    }
    visit(plan)
    found.result()
  }
}
