// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Statistics, UnaryNode}
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

/**
 * What a source decided for one scan operation while the plan was optimized: immutable, kept
 * in the plan by a [[JudgedScan]], applied to the scan once it is planned.
 */
private[sparkbloom] trait ScanVerdict {

  /** The judged scan operation's statistics, from those Spark estimates for it as planned. */
  def sized(planned: Statistics): Statistics = planned

  /** `physical`, the scan operation as Spark and its source planned it, with the verdict applied. */
  def applied(physical: SparkPlan): SparkPlan
}

/**
 * A scan operation (`child`: projections and filters over a relation) judged while the plan
 * was optimized, for a source whose own planning must see its relation exactly as it is: a
 * table format's strategy that recognizes its file index (Delta's adds the deletion vector
 * filter), or a format's own scan (Iceberg's). The relation stays as its source made it; the
 * verdict is kept here, in the plan, sizes the scan for the optimizer and is applied when
 * [[JudgedScanStrategy]] plans it. A judged scan is never judged again.
 */
private[sparkbloom] final case class JudgedScan(child: LogicalPlan, verdict: ScanVerdict) extends UnaryNode {
  override def output: Seq[Attribute] = child.output

  /** Spark's estimates ask a node that is not a leaf only for its children's: its own are given here. */
  override def stats: Statistics = verdict.sized(child.stats)

  override protected def withNewChildInternal(newChild: LogicalPlan): JudgedScan = copy(child = newChild)
}

/** Plans a [[JudgedScan]]: its child as the session's other strategies plan it, with its verdict applied. */
private[sparkbloom] final case class JudgedScanStrategy(session: SparkSession) extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case JudgedScan(child, verdict) =>
      val others = session.sessionState.planner.strategies.filterNot(_.isInstanceOf[JudgedScanStrategy])
      others.iterator.map(_(child)).find(_.nonEmpty).getOrElse(Nil).map(verdict.applied)
    case _ => Nil
  }
}
