// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CommandResultExec, QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.command.{DataWritingCommandExec, ExecutedCommandExec}
import org.apache.spark.sql.util.QueryExecutionListener
import org.slf4j.LoggerFactory

import sparkbloom.index.{IndexMaintenance, WrittenTable}
import sparkbloom.warnings.WarnOnce

/**
 * Keeps the indexes of the tables a session writes current ([[IndexMaintenance]]). The first
 * plan a session analyzes lets each source watch the commits it learns of by other means
 * ([[ScanSource.watchCommits]]); the first that writes a table some source recognizes by its
 * plan ([[ScanSource.writtenTables]]) registers a listener for the session, and after each
 * query that succeeds, the index of every table it wrote is refreshed in the background.
 * Changes nothing in the plan.
 */
private[sparkbloom] final case class WatchWrites(session: SparkSession) extends Rule[LogicalPlan] {
  // this session's rule, built once per session state: once both are watched, a plan costs nothing
  @volatile private var commitsWatched = false
  @volatile private var plansWatched = false

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!commitsWatched) {
      IndexMaintenance.watchOnce(session, WatchWrites.Commits)(ScanSources.all.foreach(WatchWrites.commitsOf(session,
            _)))
      commitsWatched = true
    }
    if (!plansWatched && WatchWrites.written(session, Seq(plan)).nonEmpty) {
      IndexMaintenance.watchOnce(session, WatchWrites.Plans)(session.listenerManager.register(WatchWrites.Listener))
      plansWatched = true
    }
    plan
  }
}

private[sparkbloom] object WatchWrites {
  private val log = LoggerFactory.getLogger(getClass)
  val Commits = "commits"
  private val Plans = "plans"

  /** Lets `source` watch the session's commits; a format it cannot reach is not watched, and no query fails for it. */
  private def commitsOf(session: SparkSession, source: ScanSource): Unit =
    try source.watchCommits(session)
    catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        WarnOnce(log, s"commits|${source.getClass.getName}",
          s"sparkbloom does not refresh table indexes after ${source.getClass.getSimpleName}'s commits: $e")
    }

  /** The tables `plans` write, by every source, once each; none from a source that fails to tell. */
  def written(session: SparkSession, plans: Seq[LogicalPlan]): Seq[WrittenTable] = {
    val tables = plans.flatMap(plan =>
      ScanSources.all.flatMap { source =>
        try source.writtenTables(session, plan)
        catch { case NonFatal(_) => Nil }
      })
    tables.groupBy(_.key).values.map(_.head).toSeq
  }

  /** One for every watched session: it holds none (each query names its own), so sessions end as before. */
  private object Listener extends QueryExecutionListener {
    override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
      written(qe.sparkSession, commandsOf(qe)).foreach(IndexMaintenance.refreshAfterWrite(qe.sparkSession, _))

    override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit = ()
  }

  /** The query and the commands it ran, as planned (a write rule may have replaced its format). */
  private def commandsOf(qe: QueryExecution): Seq[LogicalPlan] = {
    def inPlan(plan: SparkPlan): Seq[LogicalPlan] = plan.collect {
      case DataWritingCommandExec(cmd, _) => Seq(cmd)
      case ExecutedCommandExec(cmd) => Seq(cmd)
      case result: CommandResultExec => inPlan(result.commandPhysicalPlan)
    }.flatten
    qe.analyzed +: (try inPlan(qe.executedPlan)
    catch { case NonFatal(_) => Nil })
  }
}
