// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import org.apache.parquet.hadoop.{ParquetOutputFormat, ParquetWriter}
import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NamedRelation, ResolvedIdentifier, ResolvedTable}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.SaveIntoDataSourceCommand
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.StructType

import sparkbloom.catalyst.CommandsInSequence
import sparkbloom.errors.SparkBloomException
import sparkbloom.hashing.FilterSupport
import sparkbloom.write.{BloomWriteOptions, ParquetJavaFilterKeys}
import sparkbloom.write.BloomWriteOptions.mentioned

/**
 * Bloom filters in Delta Lake tables. Delta writes its files with its own writer, which
 * sparkbloom cannot replace, but it hands the table's properties to parquet-java, whose own
 * settings can add filters. So `bloom_filter_*` settings live in table properties, and this
 * rule, when they are set (CREATE, CTAS, REPLACE, ALTER TABLE ... SET TBLPROPERTIES, or the
 * first DataFrame write of a table), checks them like any write's options and adds
 * parquet-java's settings on the columns' paths in the files (Delta's physical names under
 * column mapping). Every later write of the table (INSERT, MERGE, UPDATE and DELETE
 * rewrites, OPTIMIZE) then writes filters, with nothing of sparkbloom in its plan.
 *
 * Everything is checked while the command is analyzed: a bad setting fails before Delta
 * commits anything.
 */
private[sparkbloom] final case class DeltaWriteRule(session: SparkSession) extends Rule[LogicalPlan] {
  import DeltaWriteRule._

  override def apply(plan: LogicalPlan): LogicalPlan = plan match {
    // the steps of a change of filter settings made below are run as they are
    case step @ (_: SetTableProperties | _: UnsetTableProperties) if CommandsInSequence.running => step
    case c: CreateTable => withKeys(c, c.tableSpec, Map.empty, c.tableSchema)(s => c.copy(tableSpec = s))
    case c: CreateTableAsSelect => withKeys(c, c.tableSpec, c.writeOptions, c.query.schema)(s => c.copy(tableSpec = s))
    case r: ReplaceTable => withKeys(r, r.tableSpec, Map.empty, r.tableSchema)(s => r.copy(tableSpec = s))
    case r: ReplaceTableAsSelect => withKeys(r, r.tableSpec, r.writeOptions, r.query.schema)(s => r.copy(tableSpec = s))

    case s @ SetTableProperties(table: ResolvedTable, properties)
        if DeltaTables.isDeltaTable(table.table) && mentioned(properties) =>
      val state = DeltaTables.stateOf(table.table)
      val settings = bloomOptions(state.configuration).filterNot { case (k, _) =>
        properties.keys.exists(_.equalsIgnoreCase(k))
      } ++ bloomOptions(properties)
      val (keys, stale) = refiltered(state, settings)
      val set = s.copy(properties = properties ++ keys)
      if (stale.isEmpty) set else CommandsInSequence(Seq(set, UnsetTableProperties(table, stale, ifExists = true)))
    case u @ UnsetTableProperties(table: ResolvedTable, unset, _)
        if DeltaTables.isDeltaTable(table.table) && mentioned(unset.map(_ -> "").toMap) =>
      val state = DeltaTables.stateOf(table.table)
      val settings = bloomOptions(state.configuration).filterNot { case (k, _) => unset.exists(_.equalsIgnoreCase(k)) }
      val (keys, stale) = refiltered(state, settings)
      val changed = keys.filterNot { case (k, v) => state.configuration.get(k).contains(v) }
      val removed = u.copy(propertyKeys = (unset ++ stale).distinct)
      if (changed.isEmpty) removed else CommandsInSequence(Seq(removed, SetTableProperties(table, changed)))

    case w: SaveIntoDataSourceCommand if DeltaTables.isDeltaSource(w.dataSource) && mentioned(w.options) =>
      val path = w.options.collectFirst { case (k, v) if k.equalsIgnoreCase("path") => v }
        .getOrElse(fail("a Delta write with bloom_filter_* options needs a path"))
      DeltaTables.stateAt(session, path) match {
        case Some(state) => requireTableSettings(w.options, state); w
        case None =>
          keysFor(w.options, w.query.schema, partitionColumnsOption(w.options), filePath = identity)
          requireNoTransaction(w.options)
          CreateDeltaTableWithFilters(w, path, bloomOptions(w.options))
      }
    case w @ DeltaTables.StreamingWrite(path, options) if mentioned(options) =>
      DeltaTables.stateAt(session, path) match {
        case Some(state) => requireTableSettings(options, state); w
        case None =>
          fail("a streaming write does not create a Delta table with Bloom filters: create it first with " +
            s"TBLPROPERTIES ('${BloomWriteOptions.Columns}' = '...') (or write it once as a batch), then stream into " +
            "it: every write of the table follows its properties")
      }
    case a: AppendData => requireTableSettingsOf(a.writeOptions, a.table); a
    case o: OverwriteByExpression => requireTableSettingsOf(o.writeOptions, o.table); o
    case o: OverwritePartitionsDynamic => requireTableSettingsOf(o.writeOptions, o.table); o
    case other => other
  }

  /**
   * A new Delta table's properties with the filter settings of its properties and of the
   * write (a DataFrame's options) and parquet-java's keys. A table whose columns may be mapped
   * gets physical names only when Delta commits it: it is created in steps
   * ([[CreateMappedDeltaTable]]), its settings checked against its columns first.
   */
  private def withKeys(create: V2CreateTablePlan, spec: TableSpecBase, writeOptions: Map[String, String],
      schema: StructType)(copy: TableSpec => LogicalPlan): LogicalPlan = spec match {
    case resolved: TableSpec
        if DeltaTables.isDeltaProvider(spec.provider) && mentioned(
          spec.properties ++ resolved.options ++ writeOptions) =>
      // OPTIONS of a CREATE are properties of a Delta table too
      val asked = bloomOptions(writeOptions) ++ bloomOptions(resolved.options)
      val settings = asked ++ resolved.properties
      val identityColumns =
        create.partitioning.filter(_.name == "identity").flatMap(_.references.map(_.fieldNames.mkString(".")))
      val keys = keysFor(settings, schema, identityColumns, filePath = identity)
      mappingSetting(writeOptions ++ resolved.options ++ resolved.properties) match {
        case None => copy(resolved.copy(properties = resolved.properties ++ asked ++ keys))
        case Some(mapping) => inSteps(create, resolved, writeOptions, bloomOptions(settings), mapping)
      }
    case _ => create
  }

  /**
   * The setting that maps, or may map, a new table's columns: column mapping itself (also as
   * the session's default for new tables), or IcebergCompat and UniForm's Iceberg, which turn
   * it on. None where the columns keep their names.
   */
  private def mappingSetting(settings: Map[String, String]): Option[String] = {
    def setting(key: String) = settings.collectFirst { case (k, v) if k.equalsIgnoreCase(key) => v.trim }
      .orElse(session.conf.getOption(DefaultsPrefix + key.stripPrefix("delta.")).map(_.trim))
    val mode = setting(ColumnMappingKey)
    mode.filterNot(_.equalsIgnoreCase("none")).map(m => s"'$ColumnMappingKey' = '$m'")
      .orElse(MappingFeatures.collectFirst {
        case key
            if setting(key).exists(v => v.equalsIgnoreCase("true") || v.toLowerCase(Locale.ROOT).contains("iceberg")) =>
          s"'$key' = '${setting(key).get}'"
      })
  }

  private def inSteps(create: V2CreateTablePlan, spec: TableSpec, writeOptions: Map[String, String],
      filters: Map[String, String], mapping: String): LogicalPlan = {
    val unfiltered = spec.copy(properties = spec.properties -- filters.keys, options = spec.options -- filters.keys)
    val plainOptions = writeOptions -- bloomOptions(writeOptions).keys
    requireNoTransaction(writeOptions)
    val location = spec.location
    // IF NOT EXISTS is decided by the command: a table another session makes meanwhile is not ours to change
    (create, create.name) match {
      case (c: CreateTable, name: ResolvedIdentifier) =>
        CreateMappedDeltaTable(c.copy(tableSpec = unfiltered, ignoreIfExists = false), name, c.ignoreIfExists,
          location, filters, None, plainOptions)
      case (c: CreateTableAsSelect, name: ResolvedIdentifier) =>
        val empty = c.copy(query = LocalRelation(c.query.output), tableSpec = unfiltered, writeOptions = plainOptions,
          ignoreIfExists = false)
        CreateMappedDeltaTable(empty, name, c.ignoreIfExists, location, filters, Some(c.query), plainOptions)
      case _ =>
        fail(s"a Delta table whose columns are mapped ($mapping) stores them under names Delta gives them when " +
          "it creates the table, and REPLACE gives new ones: replace it without bloom_filter_* settings, then set " +
          s"its filters with ALTER TABLE ... SET TBLPROPERTIES ('${BloomWriteOptions.Columns}' = '...')")
    }
  }

  /**
   * An idempotent write (Delta's `txnAppId`/`txnVersion`) cannot create a table with filters:
   * [[CreateDeltaTableWithFilters]] commits three times, and the first commit would record
   * the transaction, so that Delta would skip the write of the rows as already done.
   */
  private def requireNoTransaction(options: Map[String, String]): Unit = {
    val txn = options.keys.filter(k => TransactionOptions.exists(_.equalsIgnoreCase(k))) ++
      TransactionOptions.map("spark.databricks.delta.write." + _).filter(session.conf.getOption(_).isDefined)
    if (txn.nonEmpty) {
      fail(s"an idempotent Delta write (${txn.mkString(", ")}) cannot create a table with Bloom filters: create " +
        s"the table first with TBLPROPERTIES ('${BloomWriteOptions.Columns}' = '...'), then write to it")
    }
  }

  /**
   * parquet-java's keys for a table's filter settings as they will be, and the keys it has
   * that they no longer ask for: every change (the columns, an fpp alone, an UNSET) derives
   * them all again, so that no filter of a column left out, nor an old fpp, stays behind.
   */
  private def refiltered(
      state: DeltaTables.DeltaState, settings: Map[String, String]): (Map[String, String], Seq[String]) = {
    val keys = if (settings.keys.exists(isColumnsKey)) keysFor(settings, state) else Map.empty[String, String]
    (keys, state.configuration.keys.filter(ParquetJavaFilterKeys.isDerived).filterNot(keys.contains).toSeq.sorted)
  }

  private def keysFor(settings: Map[String, String], state: DeltaTables.DeltaState): Map[String, String] =
    keysFor(settings, state.schema, state.partitionColumns, path => state.columns.filePath(path).getOrElse(path))

  /** Checks `settings` against the table's columns, as any write's options, and derives the keys. */
  private def keysFor(settings: Map[String, String], schema: StructType, partitionColumns: Seq[String],
      filePath: Seq[String] => Seq[String]): Map[String, String] = {
    val conf = session.sessionState.conf
    val dataSchema = StructType(schema.filterNot(f => partitionColumns.exists(conf.resolver(_, f.name))))
    BloomWriteOptions.resolve(bloomOptions(settings), dataSchema, partitionColumns, conf,
      FilterSupport.outputTimestampType(conf))
      .map(ParquetJavaFilterKeys.of(_, filePath,
          session.sessionState.newHadoopConf()
            .getLong(ParquetOutputFormat.BLOCK_SIZE, ParquetWriter.DEFAULT_BLOCK_SIZE)))
      .getOrElse(Map.empty)
  }

  private def requireTableSettingsOf(options: Map[String, String], table: NamedRelation): Unit = table match {
    case r: DataSourceV2Relation if mentioned(options) && DeltaTables.isDeltaTable(r.table) =>
      requireTableSettings(options, DeltaTables.stateOf(r.table))
    case _ =>
  }

  /**
   * A write to an existing Delta table writes the filters its properties name: options that
   * ask for others fail (one write with other filters would be forgotten by the next).
   */
  private def requireTableSettings(options: Map[String, String], state: DeltaTables.DeltaState): Unit = {
    val asked = keysFor(options, state)
    val table = keysFor(state.configuration, state)
    if (asked != table) {
      val current = state.configuration.collectFirst { case (k, v) if isColumnsKey(k) => s"'$v'" }.getOrElse("none")
      fail(s"this Delta table writes the Bloom filters its table properties name (${BloomWriteOptions.Columns}: " +
        s"$current), and every later write (MERGE, UPDATE, OPTIMIZE) follows them: change them with ALTER TABLE ... " +
        s"SET TBLPROPERTIES, not with options of one write")
    }
  }
}

private[sparkbloom] object DeltaWriteRule {
  val ColumnMappingKey = "delta.columnMapping.mode"

  /** Where a session sets a `delta.<key>` for the tables it creates. */
  val DefaultsPrefix = "spark.databricks.delta.properties.defaults."
  private val TransactionOptions = Seq("txnAppId", "txnVersion")

  /** Settings of a new Delta table that turn column mapping on with them. */
  private val MappingFeatures =
    Seq("delta.enableIcebergCompatV1", "delta.enableIcebergCompatV2", "delta.enableIcebergCompatV3",
      "delta.universalFormat.enabledFormats")

  def bloomOptions(settings: Map[String, String]): Map[String, String] =
    settings.filter { case (k, _) => k.toLowerCase(Locale.ROOT).startsWith("bloom_filter_") }

  private def isColumnsKey(key: String): Boolean = key.equalsIgnoreCase(BloomWriteOptions.Columns)

  /** The partition columns `DataFrameWriter.partitionBy` hands a V1 source, as a JSON list. */
  private def partitionColumnsOption(options: Map[String, String]): Seq[String] =
    options.collectFirst { case (k, v) if k == "__partition_columns" => v }.toSeq.flatMap { json =>
      org.json4s.jackson.JsonMethods.parse(json).values match {
        case names: List[_] => names.map(_.toString)
        case _ => Nil
      }
    }

  private def fail(message: String): Nothing = throw new SparkBloomException(message)
}
