// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import java.util.Locale

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, SaveIntoDataSourceCommand}
import org.apache.spark.sql.types.StructType

/**
 * What sparkbloom knows of Delta Lake, by class and member names: it does not link against
 * Delta (one jar serves sessions with and without it). Delta 3.x and 4.x have the members
 * used here; a Delta without them gets no pruning and a clear error for filter settings.
 */
private[sparkbloom] object DeltaTables {
  private val DeltaDataSource = "org.apache.spark.sql.delta.sources.DeltaDataSource"
  private val DeltaLog = "org.apache.spark.sql.delta.DeltaLog"

  /** A table's current metadata: its schema carries Delta's column mapping metadata. */
  final case class DeltaState(schema: StructType, configuration: Map[String, String], partitionColumns: Seq[String],
      columnMappingMode: String) {
    def columns: DeltaColumns = DeltaColumns(schema, columnMappingMode)

    /** Every column that is not a struct, by its field names from the top. */
    def leafPaths: Seq[Seq[String]] = leaves(schema)
  }

  /**
   * A scan of a Delta table's data files (a snapshot, a time travel version, change data).
   * Delta's own log and checkpoint scans use other file indexes.
   */
  def isDeltaScan(relation: HadoopFsRelation): Boolean =
    isDeltaFileIndex(relation.location) &&
      extendsClass(relation.fileFormat.getClass, "org.apache.spark.sql.delta.DeltaParquetFileFormat")

  /** A listing of a Delta snapshot's files: paths Delta never writes twice. */
  def isDeltaFileIndex(index: AnyRef): Boolean =
    extendsClass(index.getClass, "org.apache.spark.sql.delta.files.TahoeFileIndex")

  def isDeltaTable(table: AnyRef): Boolean =
    extendsClass(table.getClass, "org.apache.spark.sql.delta.catalog.DeltaTableV2")

  def isDeltaSource(source: AnyRef): Boolean = extendsClass(source.getClass, DeltaDataSource)

  /**
   * The table path and options of a streaming write into a Delta table (Spark's
   * `WriteToStream` of a `DeltaSink`, both named, not linked: their packages differ by line).
   * A Delta whose sink does not show them gives None: its streams are planned as they were.
   */
  object StreamingWrite {
    def unapply(plan: AnyRef): Option[(String, Map[String, String])] =
      if (!plan.getClass.getName.endsWith(".WriteToStream")) None
      else
        try {
          val sink = plan.getClass.getMethod("sink").invoke(plan)
          if (!extendsClass(sink.getClass, "org.apache.spark.sql.delta.sources.DeltaSink")) None
          else {
            val deltaOptions = sink.getClass.getMethod("options").invoke(sink)
            val options = deltaOptions.getClass.getMethod("options").invoke(deltaOptions)
              .asInstanceOf[scala.collection.Map[String, String]]
            Some((sink.getClass.getMethod("path").invoke(sink).toString, options.toMap))
          }
        } catch { case NonFatal(_) => None }
  }

  /**
   * The roots of the Delta tables that `plan` names if it is or holds a command: Delta's own
   * commands (a write, MERGE, UPDATE, DELETE, OPTIMIZE) by the log, file index or table they
   * hold, V2 writes by their table, and path writes through Delta's data source by their
   * path. Found by walking the command's fields a few levels deep rather than by command
   * class, which Delta changes between releases; a table the command only reads may be named too.
   */
  def commandRoots(plan: LogicalPlan): Seq[String] =
    if (!plan.exists(_.isInstanceOf[Command])) Nil
    else {
      val roots = mutable.LinkedHashSet.empty[String]
      val seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[AnyRef, java.lang.Boolean]())
      def visit(value: Any, depth: Int): Unit = value match {
        case ref: AnyRef if depth > CommandDepth || !seen.add(ref) =>
        case save: SaveIntoDataSourceCommand =>
          if (isDeltaSource(save.dataSource)) roots ++= save.options.get("path")
        case table: CatalogTable =>
          if (isDeltaProvider(table.provider)) roots += table.location.toString
        case option: Option[_] => option.foreach(visit(_, depth))
        case values: Iterable[_] => values.take(CommandFanOut).foreach(visit(_, depth + 1))
        case ref: AnyRef if extendsClass(ref.getClass, DeltaLog) => roots += call(ref, "dataPath").toString
        case ref: AnyRef if isDeltaFileIndex(ref) || isDeltaTable(ref) => roots += call(ref, "path").toString
        case node: LogicalPlan => node.foreach(_.productIterator.foreach(visit(_, depth + 1)))
        case product: Product => product.productIterator.foreach(visit(_, depth + 1))
        case _ =>
      }
      try visit(plan, 0)
      catch { case NonFatal(_) => } // what was found so far; the rest waits for a refresh
      roots.toSeq
    }

  // a table's root lies within a few fields of any node: command -> plan -> relation -> file index
  private val CommandDepth = 5
  private val CommandFanOut = 64

  def isDeltaProvider(provider: Option[String]): Boolean =
    provider.exists(p => p.toLowerCase(Locale.ROOT) == "delta" || p == DeltaDataSource)

  /** Where the columns of the table a Delta scan reads are in its files. */
  def scanColumns(relation: HadoopFsRelation): DeltaColumns = {
    val format = relation.fileFormat
    val mode = call(format, "columnMappingMode")
    DeltaColumns(call(format, "referenceSchema").asInstanceOf[StructType], modeName(mode))
  }

  /** The current state of a catalog table Delta resolved. */
  def stateOf(table: AnyRef): DeltaState = stateOfLog(call(table, "deltaLog"))

  /** Whether a Delta table (a `_delta_log` with commits) is at `path`. */
  def isTableAt(session: SparkSession, path: String): Boolean = {
    val log = new Path(path, "_delta_log")
    val fs = log.getFileSystem(session.sessionState.newHadoopConf())
    fs.exists(log) && fs.listStatus(log).nonEmpty
  }

  def stateAt(session: SparkSession, path: String): Option[DeltaState] =
    if (!isTableAt(session, path)) None
    else {
      val deltaLog = checked(DeltaLog, "forTable")(Class.forName(DeltaLog, true,
          Thread.currentThread()
            .getContextClassLoader).getMethod("forTable", classOf[SparkSession], classOf[String]).invoke(null, session,
          path))
      Some(stateOfLog(deltaLog))
    }

  private def stateOfLog(deltaLog: AnyRef): DeltaState = {
    val snapshot = updated(deltaLog)
    val metadata = call(snapshot, "metadata")
    DeltaState(
      call(metadata, "schema").asInstanceOf[StructType],
      call(metadata, "configuration").asInstanceOf[Map[String, String]],
      call(metadata, "partitionColumns").asInstanceOf[scala.collection.Seq[String]].toSeq,
      modeName(call(metadata, "columnMappingMode")))
  }

  private def leaves(struct: StructType): Seq[Seq[String]] = struct.fields.toSeq.flatMap { f =>
    f.dataType match {
      case nested: StructType => leaves(nested).map(f.name +: _)
      case _ => Seq(Seq(f.name))
    }
  }

  private def modeName(mode: AnyRef): String = call(mode, "name").toString.toLowerCase(Locale.ROOT)

  private def call(target: AnyRef, method: String): AnyRef = checked(target.getClass.getName, method)(
    target.getClass.getMethod(method).invoke(target))

  /**
   * `deltaLog.update()`, the log's current snapshot. Delta releases have added optional
   * parameters after `stalenessAcceptable` (a timestamp to check against, the catalog table):
   * each is left at None.
   */
  private def updated(deltaLog: AnyRef): AnyRef = checked(deltaLog.getClass.getName, "update") {
    val update = deltaLog.getClass.getMethods.toSeq.filter { m =>
      val types = m.getParameterTypes.toSeq
      m.getName == "update" && types.headOption.contains(classOf[Boolean]) && types.tail.forall(_ == classOf[Option[_]])
    }.sortBy(-_.getParameterCount).headOption
      .getOrElse(throw new NoSuchMethodException("update(Boolean, Option...)"))
    val args = java.lang.Boolean.FALSE +: Seq.fill[AnyRef](update.getParameterCount - 1)(None)
    update.invoke(deltaLog, args: _*)
  }

  private def checked(owner: String, method: String)(body: => AnyRef): AnyRef =
    try body
    catch {
      case NonFatal(e) => throw new UnsupportedOperationException(
          s"sparkbloom does not know this Delta Lake version: $owner.$method() failed ($e)", e)
    }

  private def extendsClass(c: Class[_], name: String): Boolean =
    Iterator.iterate[Class[_]](c)(_.getSuperclass).takeWhile(_ != null).exists(_.getName == name)
}
