// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.planning.ScanOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

import sparkbloom.read.{Decision, PruningStats}
import sparkbloom.settings.SparkBloomConf

/**
 * Judges each scan by its `=`, `IN` and `<=>` literals while the plan is optimized, through
 * the scan's source ([[ScanSource.judgeLiterals]]), which gives the scan the size of what it
 * keeps, as Spark's `PruneFileSourcePartitions` does for partitions.
 *
 * It runs among the optimizer's last rules, Spark's batch for user-provided optimizations
 * (`spark.experimental.extraOptimizations`, where [[PruneFilesByBloomFilters.registration]]
 * puts it): only then has Spark pruned catalog partitions and built V2 scans. Rules an
 * extension can inject run before either. The index it makes carries the verdict on to
 * planning ([[ScanPruningRule]], [[JoinKeysStrategy]]), which reuse it instead of judging
 * again. Keys from a join arrive only when the plan runs and never change the size decided
 * here: a plan is sized once, whatever keys it is executed with.
 */
private[sparkbloom] final case class PruneFilesByBloomFilters(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!SparkBloomConf.enabled(session.sessionState.conf)) {
      if (plan.exists(PlainParquet.scan))
        PruningStats.recordLast(session, PruningStats.unjudged(0, Decision.SwitchedOff))
      plan
    } else judged(plan)

  /**
   * `plan` with each scan operation its source judged in its place, from the top: a judged
   * scan is not descended into (it is its source's, whole), any other node is.
   */
  private def judged(plan: LogicalPlan): LogicalPlan = plan match {
    case done: JudgedScan => done
    case op @ ScanOperation(_, _, filters, relation) =>
      ScanSources.all.view.flatMap(_.judgeLiterals(session, op, relation, filters)).headOption
        .getOrElse(op.mapChildren(judged))
    case other => other.mapChildren(judged)
  }
}

private[sparkbloom] object PruneFilesByBloomFilters {

  /**
   * Puts the rule for `session` among the session's user-provided optimizations, once, and
   * changes nothing itself. Spark builds a session's injected rules each time it optimizes a
   * plan, before it reads the user-provided ones, so the rule is in place from the first
   * query on, is put back if a user replaces that list, and a cloned session (which copies
   * its parent's list) gets its own in place of its parent's.
   */
  def registration(session: SparkSession): Rule[LogicalPlan] = {
    val methods = session.sessionState.experimentalMethods
    methods.synchronized {
      val current = methods.extraOptimizations
      val inPlace = current.exists { case own: PruneFilesByBloomFilters => own.session eq session; case _ => false }
      if (!inPlace) {
        methods.extraOptimizations =
          current.filterNot(_.isInstanceOf[PruneFilesByBloomFilters]) :+ PruneFilesByBloomFilters(session)
      }
    }
    Registered
  }

  private object Registered extends Rule[LogicalPlan] {
    override def apply(plan: LogicalPlan): LogicalPlan = plan
  }
}
