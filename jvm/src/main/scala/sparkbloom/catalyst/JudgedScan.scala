// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Statistics, UnaryNode}
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan, SparkStrategy}

/**
 * A scan operation (`child`: projections and filters over a relation) judged while the plan
 * was optimized, for a source whose own planning must see its relation exactly as it is: a
 * table format's strategy that recognizes its file index (Delta's adds the deletion vector
 * filter). The relation keeps its own index; the verdict, `index` over that index, is kept
 * here, in the plan, and sizes it: the optimizer sees what the lookup keeps, as it does for a
 * plain Parquet relation. [[JudgedScanStrategy]] plans `child` as Spark and the format would,
 * then puts `index` on the scan.
 */
private[sparkbloom] final case class JudgedScan(child: LogicalPlan, index: BloomPruningFileIndex) extends UnaryNode {
  override def output: Seq[Attribute] = child.output

  /**
   * The child's statistics, in the share of the bytes the verdict keeps. Spark's estimates
   * ask a node that is not a leaf only for its children's, so the node's own are given here.
   */
  override def stats: Statistics = {
    val all = index.delegate.sizeInBytes
    val kept = index.sizeInBytes
    val planned = child.stats
    if (all <= 0 || kept >= all) planned
    else Statistics(sizeInBytes = (planned.sizeInBytes * kept / all).max(BigInt(1)))
  }

  override protected def withNewChildInternal(newChild: LogicalPlan): JudgedScan = copy(child = newChild)
}

/** Plans a [[JudgedScan]]: its child as the session's other strategies plan it, with the verdict on its scan. */
private[sparkbloom] final case class JudgedScanStrategy(session: SparkSession) extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case JudgedScan(child, index) =>
      val others = session.sessionState.planner.strategies.filterNot(_.isInstanceOf[JudgedScanStrategy])
      val planned = others.iterator.map(_(child)).find(_.nonEmpty).getOrElse(Nil)
      planned.map(_.transformUp {
        case scan: FileSourceScanExec if scan.relation.location eq index.delegate =>
          BloomPruningExec(scan.copy(relation = scan.relation.copy(location = index)(scan.relation.sparkSession)))
      })
    case _ => Nil
  }
}
