// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.ResolvedTable
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, RefreshTable}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.TableCatalog
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.command.{ClearCacheCommand, RefreshTableCommand}
import org.apache.spark.sql.execution.datasources.RefreshResource

import sparkbloom.runtime.BloomRuntime

/**
 * Spark's own cache invalidations also drop what sparkbloom cached for those files:
 * `REFRESH TABLE t` and `REFRESH 'path'` the footers, filters and loaded table indexes under
 * the table's or the path's location, `CLEAR CACHE` all of them (see [[ClearCacheStrategy]]). It only reacts
 * to the commands as they are analyzed (just before they run) and returns every plan unchanged.
 */
private[sparkbloom] final case class BloomCacheInvalidation(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan match {
      case RefreshResource(path) => invalidate(Some(path))
      case RefreshTableCommand(table) => invalidate(Some(tableLocation(table)))
      case RefreshTable(ResolvedTable(_, _, table, _)) =>
        invalidate(Option(table.properties.get(TableCatalog.PROP_LOCATION)))
      case _ =>
    }
    plan
  }

  /**
   * Where a table's files are: its location, or everything ("") for what has no single
   * location (a view, a temporary view, a table whose partitions may live elsewhere).
   */
  private def tableLocation(table: TableIdentifier): String =
    try {
      val meta = session.sessionState.catalog.getTableMetadata(table)
      if (meta.partitionColumnNames.nonEmpty) "" else meta.storage.locationUri.fold("")(_.toString)
    } catch { case NonFatal(_) => "" }

  private def invalidate(location: Option[String]): Unit = location.foreach { where =>
    val qualified =
      try {
        val path = new Path(where)
        path.getFileSystem(session.sessionState.newHadoopConf()).makeQualified(path).toString
      } catch {
        // A location that cannot be qualified: drop everything rather than keep a stale entry.
        case NonFatal(_) => ""
      }
    BloomRuntime.of(session.sparkContext).invalidate(qualified)
  }
}

/**
 * `CLEAR CACHE` drops every footer, filter and table index sparkbloom keeps loaded. Not in the
 * analysis rule: Spark's plan for it is one object (`ClearCacheCommand`) that the first analysis
 * in the JVM marks analyzed, and an analyzed plan is never analyzed again; each run plans it again.
 */
private[sparkbloom] object ClearCacheStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = {
    if (plan eq ClearCacheCommand) BloomRuntime.get.clear()
    Nil
  }
}
