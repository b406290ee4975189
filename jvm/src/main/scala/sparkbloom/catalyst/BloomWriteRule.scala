// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.command.{AlterTableSetPropertiesCommand, CreateDataSourceTableAsSelectCommand, CreateDataSourceTableCommand}
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.StructType

import sparkbloom.hashing.FilterSupport
import sparkbloom.write.{BloomParquetFileFormat, BloomWriteOptions}

/**
 * Turns `bloom_filter_*` options into filters in the written files.
 *
 * Every V1 Parquet write (path writes, `saveAsTable`, `insertInto`, `INSERT`, CTAS) ends
 * as an `InsertIntoHadoopFsRelationCommand` that this rule sees while it is analyzed,
 * before anything runs; the options come from the writer, then the table's OPTIONS,
 * then its TBLPROPERTIES. Table creation and `ALTER TABLE ... SET TBLPROPERTIES` are checked
 * too, so that a bad option fails them rather than the first `INSERT` after them.
 */
private[sparkbloom] final case class BloomWriteRule(session: SparkSession) extends Rule[LogicalPlan] {
  // Matched at the root, where Spark puts write commands, and not with transform: Spark's
  // ParquetFileFormat equals any ParquetFileFormat, so transform would see the rewritten
  // command as unchanged and keep the original.
  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    // Only Spark's own Parquet format: a subclass belongs to another project (a lake
    // format's writer) and is written exactly as without sparkbloom.
    case cmd: InsertIntoHadoopFsRelationCommand if cmd.fileFormat.getClass == classOf[ParquetFileFormat] =>
      val options = cmd.catalogTable.map(tableOptions).getOrElse(Map.empty) ++ cmd.options
      specFor(options, cmd.query.schema, cmd.partitionColumns.map(_.name)) match {
        case Some(spec) => cmd.copy(fileFormat = new BloomParquetFileFormat(spec))
        case None => cmd
      }
    case c: CreateDataSourceTableAsSelectCommand if isParquet(c.table) => check(c.table, c.query.schema); c
    case create: CreateDataSourceTableCommand if isParquet(create.table) && create.table.schema.nonEmpty =>
      check(create.table, create.table.schema); create
    // A bad option set later would fail every INSERT after it, so it fails the ALTER.
    case alter: AlterTableSetPropertiesCommand if !alter.isView && BloomWriteOptions.mentioned(alter.properties) =>
      val catalog = session.sessionState.catalog
      if (catalog.tableExists(alter.tableName)) {
        val table = catalog.getTableMetadata(alter.tableName)
        if (isParquet(table) && table.schema.nonEmpty) {
          check(table.copy(properties = table.properties ++ alter.properties), table.schema)
        }
      }
      alter
    case other => other
  }

  private def isParquet(table: CatalogTable): Boolean =
    table.provider.exists(p => p.toLowerCase(Locale.ROOT) == "parquet" || p == classOf[ParquetFileFormat].getName)

  /** TBLPROPERTIES, overridden by OPTIONS (both case-insensitive in name). */
  private def tableOptions(table: CatalogTable): Map[String, String] = table.properties ++ table.storage.properties

  private def check(table: CatalogTable, schema: StructType): Unit =
    specFor(tableOptions(table), schema, table.partitionColumnNames)

  private def specFor(options: Map[String, String], schema: StructType, partitions: Seq[String]) =
    if (!BloomWriteOptions.mentioned(options)) None
    else {
      val conf = session.sessionState.conf
      val dataSchema = StructType(schema.filterNot(f => partitions.exists(conf.resolver(_, f.name))))
      BloomWriteOptions.resolve(options, dataSchema, partitions, conf,
        FilterSupport.filterableTimestampType(FilterSupport.outputTimestampType(conf)))
    }
}
