// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import java.util.Locale

import org.apache.spark.sql.types.{StructField, StructType}
import sparkbloom.catalyst.FileColumns
import sparkbloom.predicate.PointPredicate

/**
 * Where a Delta table's columns are in its data files. With column mapping, Delta writes a
 * column under a physical name (`col-<uuid>`, or the name it had when mapping began) that a
 * rename never changes, and in `id` mode with a Parquet field id that Spark reads it by.
 * After `RENAME COLUMN a TO b` and `ADD COLUMN a`, old files still hold a column named `a`
 * that is now `b`: judging by table names would ask the wrong column's filter.
 *
 * @param referenceSchema the table schema with Delta's column mapping metadata
 * @param mode            Delta's column mapping mode: "none", "name" or "id"
 */
private[sparkbloom] final case class DeltaColumns(referenceSchema: StructType, mode: String) extends FileColumns {
  import DeltaColumns.{FieldIdKey, PhysicalNameKey}

  /**
   * Columns Delta adds to a scan (its deletion vector flag, row tracking, change data
   * feed's) are not in the table schema and are never judged.
   */
  def resolve(predicate: PointPredicate): Option[PointPredicate] =
    PointPredicate.resolved(predicate) { in =>
      physicalPath(referenceSchema, in.path).flatMap { case (path, leaf) =>
        mode match {
          case "none" | "name" => Some(in.copy(path = path))
          // Spark matches by id level by level; only a top-level column's id is in a
          // footer's leaf, so nested columns of id-mapped tables are not judged.
          case "id" if path.size == 1 && leaf.metadata.contains(FieldIdKey) =>
            Some(in.copy(path = path, fieldId = Some(leaf.metadata.getLong(FieldIdKey).toInt)))
          case _ => None
        }
      }
    }

  /** The Parquet path of a table column (field names from the top), if the table has it. */
  def filePath(path: Seq[String]): Option[Seq[String]] = physicalPath(referenceSchema, path).map(_._1)

  /** Delta resolves column names case-insensitively, whatever `spark.sql.caseSensitive` says. */
  private def physicalPath(schema: StructType, path: Seq[String]): Option[(Seq[String], StructField)] = path match {
    case head +: rest =>
      schema.fields.filter(_.name.toLowerCase(Locale.ROOT) == head.toLowerCase(Locale.ROOT)).toSeq match {
        // with mapping on, a field without a physical name is not judged: its table name may be
        // another column's name in the files
        case Seq(field) if mode == "none" || field.metadata.contains(PhysicalNameKey) =>
          val name = if (mode == "none") field.name else field.metadata.getString(PhysicalNameKey)
          (rest, field.dataType) match {
            case (Seq(), _) => Some((Seq(name), field))
            case (_, nested: StructType) => physicalPath(nested, rest).map { case (p, leaf) => (name +: p, leaf) }
            case _ => None
          }
        case _ => None
      }
    case _ => None
  }
}

private[sparkbloom] object DeltaColumns {
  val PhysicalNameKey = "delta.columnMapping.physicalName"
  val FieldIdKey = "delta.columnMapping.id"
}
