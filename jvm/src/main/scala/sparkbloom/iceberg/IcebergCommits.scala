// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import scala.util.control.NonFatal

import org.apache.iceberg.events.{Listener, Listeners}
import org.apache.spark.sql.SparkSession

import sparkbloom.catalyst.WatchWrites
import sparkbloom.index.{IndexMaintenance, WrittenTable}

/**
 * Iceberg's snapshot events: Iceberg sends one, on the committing thread, for every commit in
 * this JVM that adds a snapshot (an append or overwrite, a row-level DELETE, UPDATE or MERGE,
 * `rewrite_data_files`), named by the table's catalog name. A commit made by a session that
 * sparkbloom watches has the table's index, if it has one, refreshed in the background. The
 * event is Iceberg's public API, unlike the plans of its procedures. Iceberg keeps its
 * listeners for the JVM's life, so one is registered, the first time a session is watched.
 * The event's class is in Iceberg's core, which sparkbloom does not compile against: its
 * table name is read by reflection.
 *
 * Loaded only where Iceberg's classes are ([[IcebergSource.watchCommits]]): it links to them.
 */
private[sparkbloom] object IcebergCommits {
  private lazy val registered: Unit = Listeners.register(Refresher,
    Class.forName("org.apache.iceberg.events.CreateSnapshotEvent", true, classOf[Listeners].getClassLoader)
      .asInstanceOf[Class[AnyRef]])

  def watch(): Unit = registered

  private object Refresher extends Listener[AnyRef] {
    override def notify(event: AnyRef): Unit =
      try {
        SparkSession.getActiveSession.filter(IndexMaintenance.watched(_, WatchWrites.Commits)).foreach { session =>
          val name = event.getClass.getMethod("tableName").invoke(event).toString
          // the event joins the name's parts with dots, unquoted: quoted again where the plain name fails
          val quoted = name.split('.').map(part => s"`${part.replace("`", "``")}`").mkString(".")
          IndexMaintenance.refreshAfterWrite(session,
            WrittenTable(s"iceberg:$name",
              s =>
                IcebergIndexedTable.named(s, name).orElse(IcebergIndexedTable.named(s, quoted))
                  .filter(table => IndexMaintenance.indexedAt(s, table.root))))
        }
      } catch { case NonFatal(_) => } // a commit never fails for its index: the next refresh covers it
  }
}
