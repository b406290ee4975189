// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.lang.reflect.Method

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.iceberg.{FileContent, FileFormat, FileScanTask, Schema}
import org.apache.iceberg.types.Type
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.connector.read.Scan
import org.apache.spark.sql.execution.datasources.PartitionDirectory

import sparkbloom.read.PruningStats

/**
 * An Iceberg batch scan's task list, pruned through the pair of methods Iceberg's own
 * runtime filtering uses: `tasks()` (whole data files, each with its delete files) and
 * `resetTasks(kept)`, which also drops the task groups planned from the old list. Both are
 * protected members of Iceberg's scan classes in every release sparkbloom supports
 * (1.11, 1.12), reached by reflection; the rest is Iceberg's public table API.
 *
 * Loaded only for scans [[IcebergScans]] has named as Iceberg's: it links to Iceberg's classes.
 */
private[catalyst] object IcebergTasks {

  /**
   * Drops the tasks of files that cannot match `filters` from `scan`; the decision, or None
   * where the scan reads anything but Parquet data files (a metadata table's rows, say).
   */
  def prune(session: SparkSession, scan: Scan, filters: Seq[Expression]): Option[PruningStats] = {
    val tasks = call(scan, "tasks").asInstanceOf[java.util.List[AnyRef]].asScala.toIndexedSeq
    val files = tasks.collect {
      case t: FileScanTask
          if !t.isDataTask && t.file.content == FileContent.DATA && t.file.format == FileFormat.PARQUET =>
        t
    }
    if (files.size != tasks.size) return None
    // the columns as this scan reads them: the schema of the snapshot it reads, projected
    val schema = call(scan, "projection", "expectedSchema").asInstanceOf[Schema]
    val statuses = files.map(t => new FileStatus(t.file.fileSizeInBytes, false, 1, 0, 0, new Path(t.file.location)))
    // Iceberg reads dates and timestamps as stored, never rebased from the hybrid calendar
    val options = Map(ListingPruner.RebaseModeOption -> "CORRECTED")
    val pruner = new ListingPruner(session, options, selectRowGroups = false, IcebergColumns(fieldIds(schema)),
      indexRoots = () => Nil, partitionColumns = () => Nil, immutableFiles = true)
    val kept = pruner.keptListing(Nil, filters)(Seq(PartitionDirectory(InternalRow.empty, statuses.toArray)))
      .flatMap(_.files.map(_.fileStatus.getPath.toString)).toSet
    if (kept.size < files.size) {
      callWith(scan, Seq("resetTasks"), Seq(files.filter(t => kept(new Path(t.file.location).toString)).asJava))
    }
    pruner.decided(Nil, filters)
  }

  /** Each primitive column's field id by its path of names, through structs. */
  private def fieldIds(schema: Schema): Map[Seq[String], Int] = {
    def walk(prefix: Seq[String], t: Type): Seq[(Seq[String], Int)] =
      t.asStructType.fields.asScala.toSeq.flatMap { f =>
        val path = prefix :+ f.name
        if (f.`type`.isPrimitiveType) Seq(path -> f.fieldId)
        else if (f.`type`.isStructType) walk(path, f.`type`)
        else Nil
      }
    walk(Nil, schema.asStruct).toMap
  }

  private def call(target: AnyRef, names: String*): AnyRef = callWith(target, names, Nil)

  /** The first of `names` that `target`'s class or a superclass declares with as many parameters as `args`. */
  private def callWith(target: AnyRef, names: Seq[String], args: Seq[AnyRef]): AnyRef = {
    val declared: Seq[Method] = Iterator.iterate[Class[_]](target.getClass)(_.getSuperclass).takeWhile(_ != null)
      .flatMap(_.getDeclaredMethods).toSeq
    val method = names.flatMap(n => declared.find(m => m.getName == n && m.getParameterCount == args.size)).headOption
      .getOrElse(throw new NoSuchMethodException(s"${target.getClass.getName}: none of ${names.mkString(", ")}"))
    method.setAccessible(true)
    method.invoke(target, args: _*)
  }
}
