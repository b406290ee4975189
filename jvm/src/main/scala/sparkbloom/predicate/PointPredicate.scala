// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.predicate

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.DataType

/**
 * The part of a scan's filters that Bloom filters can answer: equality of a column with
 * literals, combined by AND and OR. Anything else is left out, in a way that only ever
 * keeps more data: a conjunct that cannot be answered is dropped from an AND, and an OR
 * with any such branch is dropped whole.
 */
private[sparkbloom] sealed trait PointPredicate {
  def columns: Set[Seq[String]]
}

private[sparkbloom] object PointPredicate {

  /**
   * `path` equals one of `values` (non-null Catalyst values of `dataType`). With a
   * `fieldId`, the file column at `path` answers only if it carries that Parquet field id.
   */
  /**
   * `path` equals one of `values`. With a `fieldId`, the file column must carry that Parquet
   * field id too; with `locatedById`, the file column is the one that carries it, whatever
   * its name (Iceberg: an id is unique in a table's schema, and old files keep a renamed
   * column's old name).
   */
  final case class ColumnIn(path: Seq[String], dataType: DataType, values: Seq[Any], fieldId: Option[Int] = None,
      locatedById: Boolean = false)
      extends PointPredicate {
    def columns: Set[Seq[String]] = Set(path)
  }

  final case class All(children: Seq[PointPredicate]) extends PointPredicate {
    def columns: Set[Seq[String]] = children.flatMap(_.columns).toSet
  }

  final case class AnyOf(children: Seq[PointPredicate]) extends PointPredicate {
    def columns: Set[Seq[String]] = children.flatMap(_.columns).toSet
  }

  /** The predicate all of `filters` (a scan's conjuncts) imply, if any. */
  def fromFilters(filters: Seq[Expression]): Option[PointPredicate] = all(filters.flatMap(convert))

  private def all(children: Seq[PointPredicate]): Option[PointPredicate] =
    if (children.lengthCompare(1) > 0) Some(All(children)) else children.headOption

  /**
   * `column` equals one of `values` (Catalyst values of its type, as a join's other side
   * produced them), if `column` is a column; nulls never match and are left out.
   */
  def columnIn(column: Expression, values: Seq[Any]): Option[ColumnIn] = column match {
    case ColumnPath(path, t) => Some(ColumnIn(path, t, values.filter(_ != null)))
    case _ => None
  }

  /**
   * `predicate` with each column as `resolve` finds it in the files (another name, a field
   * id), keeping the promise to only ever keep more data: a column `resolve` cannot find
   * is dropped from an AND, and makes an OR unanswerable.
   */
  def resolved(predicate: PointPredicate)(resolve: ColumnIn => Option[ColumnIn]): Option[PointPredicate] =
    predicate match {
      case in: ColumnIn => resolve(in)
      case All(children) => all(children.flatMap(resolved(_)(resolve)))
      case AnyOf(children) =>
        val each = children.map(resolved(_)(resolve))
        if (each.forall(_.isDefined)) Some(AnyOf(each.flatten)) else None
    }

  def isColumn(e: Expression): Boolean = ColumnPath.unapply(e).isDefined

  private def convert(e: Expression): Option[PointPredicate] = e match {
    case And(left, right) => all(convert(left).toSeq ++ convert(right))
    case Or(left, right) =>
      for (l <- convert(left); r <- convert(right)) yield AnyOf(Seq(l, r))
    case EqualTo(ColumnPath(path, t), Literal(v, lt)) if v != null && lt == t => Some(ColumnIn(path, t, Seq(v)))
    case EqualTo(Literal(v, lt), ColumnPath(path, t)) if v != null && lt == t => Some(ColumnIn(path, t, Seq(v)))
    // `col <=> NULL` means IS NULL, which filters say nothing about.
    case EqualNullSafe(ColumnPath(path, t), Literal(v, lt)) if v != null && lt == t => Some(ColumnIn(path, t, Seq(v)))
    case EqualNullSafe(Literal(v, lt), ColumnPath(path, t)) if v != null && lt == t => Some(ColumnIn(path, t, Seq(v)))
    case In(ColumnPath(path, t), list)
        if list.nonEmpty && list.forall(l => l.isInstanceOf[Literal] && l.dataType == t) =>
      // NULL in an IN list never makes a row match; if nothing else is left, do not judge.
      val values = list.map(_.asInstanceOf[Literal].value).filter(_ != null)
      if (values.isEmpty) None else Some(ColumnIn(path, t, values))
    case InSet(ColumnPath(path, t), set) if set.nonEmpty =>
      val values = set.toSeq.filter(_ != null)
      if (values.isEmpty) None else Some(ColumnIn(path, t, values))
    case _ => None
  }

  /**
   * Keys Spark puts in the metadata of its hidden columns. Spark plans a filter on
   * `_metadata.file_name` with a flattened attribute named `file_name`: it must never be
   * taken for a data column of that name, whose filters say nothing about file names.
   */
  private val MetadataColumnKeys = Seq("__metadata_col", "__file_source_metadata_col",
    "__file_source_constant_metadata_col", "__file_source_generated_metadata_col")

  /** A column reference: an attribute, or struct fields under one, as field names. */
  private object ColumnPath {
    def unapply(e: Expression): Option[(Seq[String], DataType)] = path(e).map(p => (p, e.dataType))

    private def path(e: Expression): Option[Seq[String]] = e match {
      case a: AttributeReference if MetadataColumnKeys.exists(a.metadata.contains) => None
      case a: AttributeReference => Some(Seq(a.name))
      case GetStructField(child, _, Some(name)) => path(child).map(_ :+ name)
      case GetStructField(child, ordinal, None) =>
        child.dataType match {
          case s: org.apache.spark.sql.types.StructType => path(child).map(_ :+ s(ordinal).name)
          case _ => None
        }
      case _ => None
    }
  }
}
