// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.{ResolvedIdentifier, TableAlreadyExistsException, UnresolvedRelation}
import org.apache.spark.sql.catalyst.plans.logical.{AppendData, LogicalPlan}
import org.apache.spark.sql.connector.catalog.TableCatalog
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/**
 * `CREATE TABLE` or `CREATE TABLE ... AS SELECT` of a Delta table whose columns may be
 * mapped (`delta.columnMapping.mode`, or a feature that turns it on, such as IcebergCompat),
 * with `bloom_filter_*` settings, in one statement. Under column mapping the files name each
 * column by a physical name Delta gives it only when it commits the table, and parquet-java's
 * filter settings must name those. So the statement is run as Delta would run it without the
 * filter settings (and, for `AS SELECT`, without its rows), the settings are then set as in
 * `ALTER TABLE ... SET TBLPROPERTIES` ([[DeltaWriteRule]] derives the keys from the table's
 * physical names), and the rows are appended with filters. Delta's own `AS SELECT` leaves no
 * table when it fails: if a later step fails, the table made by the first is dropped, and the
 * directory (or the `_delta_log` in an existing one) it made is removed.
 *
 * @param create the statement without the filter settings and rows
 * @param rows   the query of an `AS SELECT`
 */
private[sparkbloom] final case class CreateMappedDeltaTable(create: LogicalPlan, name: ResolvedIdentifier,
    ifNotExists: Boolean, location: Option[String], bloomOptions: Map[String, String], rows: Option[LogicalPlan],
    writeOptions: Map[String, String])
    extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val identifier = name.identifier
    if (ifNotExists && name.catalog.asInstanceOf[TableCatalog].tableExists(identifier)) return Nil
    val parts = name.catalog.name +: identifier.namespace.toSeq :+ identifier.name
    val table = parts.map(p => "`" + p.replace("`", "``") + "`").mkString(".")
    val pathBased = identifier.namespace.toSeq == Seq("delta") && new Path(identifier.name).isAbsolute
    val directory = location.orElse(Some(identifier.name).filter(_ => pathBased)).map(new Path(_))
    val hadoopConf = session.sessionState.newHadoopConf()
    def exists(p: Path) = p.getFileSystem(hadoopConf).exists(p)
    // what a failure removes: the directory, or the log, this statement made
    val made = directory.flatMap(d => if (!exists(d)) Some(d) else Some(new Path(d, "_delta_log")).filterNot(exists))
    try session.sessionState.executePlan(create).assertCommandExecuted()
    catch { case _: TableAlreadyExistsException if ifNotExists => return Nil }
    try {
      CreateDeltaTableWithFilters.setFilters(session, table, bloomOptions)
      rows.foreach { query =>
        session.sessionState.executePlan(AppendData.byName(UnresolvedRelation(parts), query, writeOptions))
          .assertCommandExecuted()
      }
    } catch {
      case NonFatal(e) =>
        try {
          if (!pathBased) session.sql(s"DROP TABLE IF EXISTS $table")
          made.foreach(d => d.getFileSystem(hadoopConf).delete(d, true))
        } catch { case NonFatal(cleanup) => e.addSuppressed(cleanup) }
        throw e
    }
    Nil
  }

  override def simpleString(maxFields: Int): String =
    s"CreateMappedDeltaTable ${name.identifier}, ${bloomOptions.mkString(", ")}"
}
