// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.predicate.PointPredicate.{All, AnyOf, ColumnIn}

/** Delta's column mapping, as a predicate on table columns becomes one on file columns. */
class DeltaColumnsSuite extends AnyFunSuite {

  private def field(name: String, dataType: DataType, physical: String, id: Long): StructField =
    StructField(name, dataType, nullable = true,
      new MetadataBuilder()
        .putString(DeltaColumns.PhysicalNameKey, physical).putLong(DeltaColumns.FieldIdKey, id).build())

  /** `k` was renamed to `old_k`, and a new `k` added: old files hold the first as `k`. */
  private val schema = StructType(Seq(
      field("id", LongType, "id", 1),
      field("old_k", StringType, "k", 2),
      field("k", StringType, "col-7f3a", 5),
      field("s", StructType(Seq(field("inner", IntegerType, "col-in", 4))), "col-s", 3)))

  private def in(path: String*) = ColumnIn(path, StringType, Seq("v"))

  test("name mode judges each column by its physical name, so a re-added name never answers for the old column") {
    val columns = DeltaColumns(schema, "name")
    assert(columns.resolve(in("old_k")) == Some(ColumnIn(Seq("k"), StringType, Seq("v"))))
    assert(columns.resolve(in("K")) == Some(ColumnIn(Seq("col-7f3a"), StringType, Seq("v"))))
    assert(columns.resolve(in("s", "inner")) == Some(ColumnIn(Seq("col-s", "col-in"), StringType, Seq("v"))))
  }

  test("id mode asks for the field id too; nested columns, whose parents' ids footers do not keep, are not judged") {
    val columns = DeltaColumns(schema, "id")
    assert(columns.resolve(in("old_k")) == Some(ColumnIn(Seq("k"), StringType, Seq("v"), fieldId = Some(2))))
    assert(columns.resolve(in("s", "inner")).isEmpty)
  }

  test("with column mapping, a field without a physical name is not judged, at any level") {
    // after RENAME COLUMN k TO old_k; ADD COLUMN k, a `k` without its physical name would be
    // judged by the old column's filter
    val unnamed = StructType(Seq(
        field("old_k", StringType, "k", 2),
        StructField("k", StringType),
        field("s", StructType(Seq(StructField("inner", StringType))), "col-s", 3)))
    for (mode <- Seq("name", "id")) {
      val columns = DeltaColumns(unnamed, mode)
      assert(columns.resolve(in("k")).isEmpty, mode)
      assert(columns.resolve(in("s", "inner")).isEmpty, mode)
      assert(columns.filePath(Seq("k")).isEmpty, mode)
    }
    assert(DeltaColumns(unnamed, "name").resolve(in("old_k")) == Some(ColumnIn(Seq("k"), StringType, Seq("v"))))
  }

  test("without column mapping, names are the table's (in the table's case)") {
    val plain = StructType(Seq(StructField("Id", LongType), StructField("k", StringType)))
    assert(DeltaColumns(plain, "none").resolve(in("id")) == Some(ColumnIn(Seq("Id"), StringType, Seq("v"))))
  }

  test("columns Delta adds to a scan (the deletion vector flag) are dropped from an AND and spoil an OR") {
    val columns = DeltaColumns(schema, "name")
    val deleted = ColumnIn(Seq("__delta_internal_is_row_deleted"), ByteType, Seq(0.toByte))
    assert(columns.resolve(All(Seq(deleted, in("id")))) == Some(ColumnIn(Seq("id"), StringType, Seq("v"))))
    assert(columns.resolve(AnyOf(Seq(deleted, in("id")))).isEmpty)
    assert(columns.resolve(deleted).isEmpty)
  }
}
