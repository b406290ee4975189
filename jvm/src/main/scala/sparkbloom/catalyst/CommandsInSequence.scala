// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/**
 * Commands run one after the other, each planned when its turn comes: a change of a Delta
 * table's filter settings that both sets and removes properties, which no one `ALTER TABLE`
 * does. Each was checked and completed when this was made, so rules leave them as they are
 * while they run ([[CommandsInSequence.running]]); a failure stops the rest.
 */
private[sparkbloom] final case class CommandsInSequence(commands: Seq[LogicalPlan]) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val before = CommandsInSequence.runningHere.get
    CommandsInSequence.runningHere.set(true)
    try commands.foreach(c => session.sessionState.executePlan(c).assertCommandExecuted())
    finally CommandsInSequence.runningHere.set(before)
    Nil
  }

  override def simpleString(maxFields: Int): String =
    s"CommandsInSequence ${commands.map(_.nodeName).mkString(", ")}"
}

private[sparkbloom] object CommandsInSequence {
  private val runningHere = new ThreadLocal[Boolean] { override def initialValue(): Boolean = false }

  /** Whether this thread is running the commands of a sequence: they were made as they must run. */
  def running: Boolean = runningHere.get
}
