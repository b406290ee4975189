// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * Keeps table indexes current after writes: once a write into an indexed table has committed
 * (any write or commit a scan source reports), the table's new files are indexed and
 * its removed files dropped (a refresh, which reads only the new files) on the runtime's
 * background thread, coalesced per index ([[RefreshQueue]]). Until then the new files are
 * simply not covered: a scan judges them by their own footers, so a write is never hidden.
 * Writes by other sessions or engines are picked up by the next refresh, the same way.
 */
private[sparkbloom] object IndexMaintenance {

  /** Per session, what watches its writes (a listener each), kept by their runtime. */
  private final class Watched extends RuntimePart {
    val sessions = new java.util.WeakHashMap[SparkSession, Set[String]]()
    // a session stays watched for its life: cache commands do not concern it
    override def clear(): Unit = ()
  }

  private object Watched extends PartKind[Watched] {
    def make(runtime: BloomRuntime): Watched = new Watched
  }

  /** Runs `register` the first time `session` is to be watched by `watcher`. */
  def watchOnce(session: SparkSession, watcher: String)(register: => Unit): Unit = {
    val sessions = BloomRuntime.of(session.sparkContext)(Watched).sessions
    sessions.synchronized {
      val watchers = Option(sessions.get(session)).getOrElse(Set.empty)
      if (!watchers(watcher)) {
        register
        sessions.put(session, watchers + watcher)
      }
    }
  }

  def watched(session: SparkSession, watcher: String): Boolean = {
    val sessions = BloomRuntime.of(session.sparkContext)(Watched).sessions
    sessions.synchronized(Option(sessions.get(session)).exists(_(watcher)))
  }

  /** Refreshes the index of `table`, if it has one, in the background. */
  def refreshAfterWrite(session: SparkSession, table: WrittenTable): Unit =
    BloomRuntime.of(session.sparkContext)(RefreshQueue).request(table.key,
      () => {
        // what a format's code finds as the active session is the writer's
        SparkSession.setActiveSession(session)
        try table.indexed(session).foreach(IndexBuilder.build(session, _, None, None))
        finally SparkSession.clearActiveSession()
      })

  /**
   * A Parquet write into `outputPath`: its table is the directory that holds an index at the
   * output or as many levels up as it has partition columns.
   */
  def parquetWrite(outputPath: Path, partitionDepth: Int): WrittenTable =
    WrittenTable(outputPath.toString,
      session => {
        val fs = outputPath.getFileSystem(session.sessionState.newHadoopConf())
        IndexLayout.candidateRoots(outputPath, partitionDepth).find(root => fs.exists(IndexLayout.dirOf(root)))
          .map(IndexedTable.ParquetDirectory)
      })

  /** Whether an index lies at `root`. */
  def indexedAt(session: SparkSession, root: Path): Boolean =
    root.getFileSystem(session.sessionState.newHadoopConf()).exists(IndexLayout.dirOf(root))
}
