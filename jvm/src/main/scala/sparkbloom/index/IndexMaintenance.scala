// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.{CommandResultExec, QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.util.QueryExecutionListener

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * Keeps table indexes current after writes: once a Parquet write into an indexed table has
 * committed, its new files are indexed (a refresh, which reads only them) on the runtime's
 * background thread, coalesced per index ([[RefreshQueue]]). Until then they are simply not covered: a scan judges them
 * by their own footers, so a write is never hidden. Writes by other sessions or engines are
 * picked up by the next refresh, the same way.
 */
private[sparkbloom] object IndexMaintenance {

  /** Sessions whose writes are watched (a listener each), kept by their runtime. */
  private final class Watched extends RuntimePart {
    val sessions = java.util.Collections.synchronizedMap(new java.util.WeakHashMap[SparkSession, java.lang.Boolean]())
    // a listener stays registered for its session's life: cache commands do not concern it
    override def clear(): Unit = ()
  }

  private object Watched extends PartKind[Watched] {
    def make(runtime: BloomRuntime): Watched = new Watched
  }

  /**
   * Called for every Parquet write the session plans: if an index lies at its output (or
   * as many levels up as it has partition columns), the session's writes are watched.
   */
  def noticeWrite(session: SparkSession, outputPath: Path, partitionDepth: Int): Unit =
    if (!watched(session).containsKey(session) && indexRoot(session, outputPath, partitionDepth).isDefined) {
      val sessions = watched(session)
      sessions.synchronized {
        if (!sessions.containsKey(session)) {
          session.listenerManager.register(new Listener(session))
          sessions.put(session, true)
        }
      }
    }

  private def watched(session: SparkSession) = BloomRuntime.of(session.sparkContext)(Watched).sessions

  private def indexRoot(session: SparkSession, outputPath: Path, partitionDepth: Int): Option[Path] = Try {
    val fs = outputPath.getFileSystem(session.sessionState.newHadoopConf())
    IndexLayout.candidateRoots(outputPath, partitionDepth).find(root => fs.exists(IndexLayout.dirOf(root)))
  }.getOrElse(None)

  /** Refreshes the index of every indexed table a successful write wrote to. */
  private final class Listener(session: SparkSession) extends QueryExecutionListener {
    override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit = {
      writesIn(qe).flatMap(w => indexRoot(session, w.outputPath, w.partitionColumns.size)).distinct.foreach { root =>
        BloomRuntime.of(session.sparkContext)(RefreshQueue).request(root.toString,
          () => IndexBuilder.build(session, IndexedTable.ParquetDirectory(root), None, None))
      }
    }

    override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit = ()
  }

  private def writesIn(qe: QueryExecution): Seq[InsertIntoHadoopFsRelationCommand] = {
    def inPlan(plan: SparkPlan): Seq[InsertIntoHadoopFsRelationCommand] = plan.collect {
      case DataWritingCommandExec(cmd: InsertIntoHadoopFsRelationCommand, _) => Seq(cmd)
      case result: CommandResultExec => inPlan(result.commandPhysicalPlan)
    }.flatten
    (try inPlan(qe.executedPlan)
    catch { case NonFatal(_) => Nil }) ++ qe.analyzed.collect { case cmd: InsertIntoHadoopFsRelationCommand => cmd }
  }
}
