// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import org.apache.spark.sql.{Row, SaveMode, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.execution.datasources.SaveIntoDataSourceCommand

/**
 * The first DataFrame write of a Delta table at a path, with `bloom_filter_*` options.
 * Delta takes no other table properties from a path write, and under column mapping the
 * columns' names in the files exist only once the table does; so the write is three
 * commits: Delta creates the table as it would (schema, partitioning, its own `delta.*`
 * options) with no rows, the filter settings become table properties
 * ([[DeltaWriteRule]] derives parquet-java's keys from the names Delta gave the columns),
 * and the rows are written with filters.
 */
private[sparkbloom] final case class CreateDeltaTableWithFilters(write: SaveIntoDataSourceCommand, path: String,
    bloomOptions: Map[String, String])
    extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    write.copy(query = LocalRelation(write.query.output)).run(session)
    CreateDeltaTableWithFilters.setFilters(session, s"delta.`${path.replace("`", "``")}`", bloomOptions)
    write.copy(mode = if (write.mode == SaveMode.Overwrite) SaveMode.Overwrite else SaveMode.Append).run(session)
  }

  override def simpleString(maxFields: Int): String =
    s"CreateDeltaTableWithFilters $path, ${bloomOptions.mkString(", ")}"
}

private[sparkbloom] object CreateDeltaTableWithFilters {

  /** `ALTER TABLE table SET TBLPROPERTIES (options)`: [[DeltaWriteRule]] adds the keys on the table's physical names. */
  def setFilters(session: SparkSession, table: String, bloomOptions: Map[String, String]): Unit = {
    val properties = bloomOptions.map { case (k, v) => s"${quote(k)} = ${quote(v)}" }.mkString(", ")
    session.sql(s"ALTER TABLE $table SET TBLPROPERTIES ($properties)")
  }

  private def quote(s: String): String = "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"
}
