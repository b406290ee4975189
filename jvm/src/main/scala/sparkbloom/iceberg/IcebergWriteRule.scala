// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NamedRelation, ResolvedIdentifier, ResolvedTable}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.StructType

import sparkbloom.catalyst.CommandsInSequence
import sparkbloom.errors.SparkBloomException
import sparkbloom.write.{BloomWriteOptions, BloomWriteSpec}

/**
 * Bloom filters in Apache Iceberg tables. Iceberg writes its files with its own writer, which
 * writes filters only from its own table properties (`write.parquet.bloom-filter-*`), keyed
 * by column name. This rule turns a table's `bloom_filter_*` settings into those properties,
 * checked like any write's options, when they are set: CREATE and REPLACE (TBLPROPERTIES,
 * OPTIONS, or a DataFrame's write options), and `ALTER TABLE ... SET` / `UNSET TBLPROPERTIES`.
 * Only Iceberg's properties are stored: they are what every later write (INSERT, MERGE,
 * compaction, other engines) follows.
 *
 * A change derives every filter property again and removes those no longer asked for; a
 * setting of the fpp alone applies to the columns the table has filters on. Iceberg moves a
 * column's `bloom-filter-enabled` key when the column is renamed, but not its fpp or NDV: a
 * `RENAME COLUMN` moves those too. Sizes: without an NDV for a column, Iceberg's adaptive
 * filters where its release has them (1.12), which pick the smallest of several sizes that
 * meets the fpp for the values a row group holds.
 */
private[sparkbloom] final case class IcebergWriteRule(session: SparkSession) extends Rule[LogicalPlan] {
  import IcebergWriteRule._

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    case step @ (_: SetTableProperties | _: UnsetTableProperties | _: RenameColumn) if CommandsInSequence.running =>
      step
    case c: CreateTable if creates(c.tableSpec, c.name) =>
      withKeys(c.tableSpec, Map.empty, c.tableSchema)(s => c.copy(tableSpec = s)).getOrElse(c)
    case c: CreateTableAsSelect if creates(c.tableSpec, c.name) =>
      withKeys(c.tableSpec, c.writeOptions, c.query.schema)(s =>
        c.copy(tableSpec = s, writeOptions = plain(c.writeOptions)))
        .getOrElse(c)
    case r: ReplaceTable if creates(r.tableSpec, r.name) =>
      withKeys(r.tableSpec, Map.empty, r.tableSchema)(s => r.copy(tableSpec = s)).getOrElse(r)
    case r: ReplaceTableAsSelect if creates(r.tableSpec, r.name) =>
      withKeys(r.tableSpec, r.writeOptions, r.query.schema)(s =>
        r.copy(tableSpec = s, writeOptions = plain(r.writeOptions)))
        .getOrElse(r)

    case s @ SetTableProperties(table: ResolvedTable, properties)
        if isIcebergTable(table.table) && BloomWriteOptions.mentioned(properties) =>
      val current = table.table.properties.asScala.toMap
      val asked = bloomOptions(properties)
      def asks(key: String) = asked.keys.exists(_.equalsIgnoreCase(key))
      val settings =
        if (asks(BloomWriteOptions.Columns)) asked
        else {
          val now = IcebergFilterKeys.settingsOf(current, table.table.schema)
          // an fpp for the whole table replaces each column's
          val kept = if (asks(BloomWriteOptions.Fpp)) now.filterNot(_._1.startsWith(BloomWriteOptions.Fpp + "."))
          else now
          kept ++ asked
        }
      changed(s.copy(properties = plain(properties)), table, current, keysFor(settings, table.table.schema))
    case u @ UnsetTableProperties(table: ResolvedTable, unset, _)
        if isIcebergTable(table.table) && BloomWriteOptions.mentioned(unset.map(_ -> "").toMap) =>
      if (!unset.exists(_.equalsIgnoreCase(BloomWriteOptions.Columns))) {
        fail(s"an Iceberg table keeps no bloom_filter_* property of its own: UNSET '${BloomWriteOptions.Columns}' " +
          "removes its filters, and SET TBLPROPERTIES changes them")
      }
      val current = table.table.properties.asScala.toMap
      val rest = unset.filterNot(k => BloomWriteOptions.mentioned(Map(k -> "")))
      val stale = current.keys.filter(IcebergFilterKeys.isFilterKey).toSeq.sorted
      val steps = (if (rest.nonEmpty) Seq(u.copy(propertyKeys = rest)) else Nil) ++
        (if (stale.nonEmpty) Seq(UnsetTableProperties(table, stale, ifExists = true)) else Nil)
      CommandsInSequence(steps)
    case r @ RenameColumn(table: ResolvedTable, column, newName) if isIcebergTable(table.table) =>
      val current = table.table.properties.asScala.toMap
      val from = column.name.mkString(".")
      val to = (column.name.init :+ newName).mkString(".")
      val moved = IcebergFilterKeys.renamed(current, from, to)
      if (moved.isEmpty) r
      else CommandsInSequence(Seq(r, SetTableProperties(table, moved),
          UnsetTableProperties(table, IcebergFilterKeys.columnKeys(current, from), ifExists = true)))

    case a: AppendData => requireTableSettings(a.writeOptions, a.table); a
    case o: OverwriteByExpression => requireTableSettings(o.writeOptions, o.table); o
    case o: OverwritePartitionsDynamic => requireTableSettings(o.writeOptions, o.table); o
    case other => other
  }

  /** A new table's properties with Iceberg's filter keys for its settings (and none of sparkbloom's). */
  private def withKeys(spec: TableSpecBase, writeOptions: Map[String, String], schema: StructType)(
      copy: TableSpec => LogicalPlan): Option[LogicalPlan] = spec match {
    case resolved: TableSpec if BloomWriteOptions.mentioned(resolved.properties ++ resolved.options ++ writeOptions) =>
      val settings = bloomOptions(resolved.properties) ++ bloomOptions(resolved.options) ++ bloomOptions(writeOptions)
      val keys = keysFor(settings, schema)
      Some(copy(resolved.copy(properties = plain(resolved.properties) ++ keys, options = plain(resolved.options))))
    case _ => None
  }

  /** The change of filter keys as `set` followed by the removal of those no longer derived. */
  private def changed(set: SetTableProperties, table: ResolvedTable, current: Map[String, String],
      keys: Map[String, String]): LogicalPlan = {
    val stale = current.keys.filter(IcebergFilterKeys.isFilterKey).filterNot(keys.contains).toSeq.sorted
    val withKeys = set.copy(properties = set.properties ++ keys)
    if (stale.isEmpty) withKeys
    else CommandsInSequence(Seq(withKeys, UnsetTableProperties(table, stale, ifExists = true)))
  }

  /** Checks `settings` against the table's columns, as any write's options, and derives Iceberg's keys. */
  private def keysFor(settings: Map[String, String], schema: StructType): Map[String, String] = {
    // Iceberg writes every column, partition sources too, and timestamps as INT64 microseconds
    val spec: Option[BloomWriteSpec] =
      BloomWriteOptions.resolve(settings, schema, Nil, session.sessionState.conf, "TIMESTAMP_MICROS")
    spec.map(IcebergFilterKeys.of(_, IcebergFilterKeys.adaptiveAvailable)).getOrElse(Map.empty)
  }

  /**
   * A write to an existing Iceberg table writes the filters its properties name: options that
   * ask for others fail (Iceberg's writer reads no such option, and the next write would not either).
   */
  private def requireTableSettings(options: Map[String, String], relation: NamedRelation): Unit = relation match {
    case r: DataSourceV2Relation if BloomWriteOptions.mentioned(options) && isIcebergTable(r.table) =>
      val current = r.table.properties.asScala.toMap
      val asked = keysFor(bloomOptions(options), r.table.schema)
      val table = current.filter { case (k, _) => IcebergFilterKeys.isFilterKey(k) }
      if (asked.exists { case (k, v) => !table.get(k).contains(v) } ||
        table.keys.exists(k => IcebergFilterKeys.isColumnEnabledKey(k) && !asked.contains(k))) {
        fail(s"this Iceberg table writes the Bloom filters its table properties name, and so does every later " +
          "write (MERGE, compaction, other engines): change them with ALTER TABLE ... SET TBLPROPERTIES " +
          s"('${BloomWriteOptions.Columns}' = '...'), not with options of one write")
      }
    case _ =>
  }

  /** Whether a CREATE or REPLACE makes an Iceberg table: `USING iceberg`, or any table of Iceberg's own catalog. */
  private def creates(spec: TableSpecBase, name: LogicalPlan): Boolean =
    spec.provider.exists(_.equalsIgnoreCase("iceberg")) || (spec.provider.isEmpty && (name match {
      case ResolvedIdentifier(catalog, _) => catalog.getClass.getName == IcebergCatalog
      case _ => false
    }))
}

private[sparkbloom] object IcebergWriteRule {
  private val IcebergCatalog = "org.apache.iceberg.spark.SparkCatalog"

  def isIcebergTable(table: AnyRef): Boolean = table.getClass.getName == "org.apache.iceberg.spark.source.SparkTable"

  private def bloomOptions(settings: Map[String, String]): Map[String, String] =
    settings.filter { case (k, _) => BloomWriteOptions.mentioned(Map(k -> "")) }

  private def plain(settings: Map[String, String]): Map[String, String] = settings -- bloomOptions(settings).keys

  private def fail(message: String): Nothing = throw new SparkBloomException(message)
}
