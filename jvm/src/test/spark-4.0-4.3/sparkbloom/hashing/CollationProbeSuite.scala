// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

import java.nio.file.Files

import org.apache.parquet.schema.{LogicalTypeAnnotation, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.SparkSessionSuite

/** Collations (Spark 4): equal strings need not be equal bytes, so their filters never judge. */
class CollationProbeSuite extends AnyFunSuite with SparkSessionSuite {

  test("a literal of a non-binary collation is never probed by its bytes") {
    val column = Types.required(BINARY).as(LogicalTypeAnnotation.stringType()).named("s")
    assert(LiteralProbe.hashes(column, StringType("UTF8_LCASE"), UTF8String.fromString("a")) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(column, StringType, UTF8String.fromString("a")) != ProbeHashes.Undecidable)
  }

  test("a case-insensitive lookup finds the rows whose bytes differ from the literal") {
    val path = Files.createTempDirectory("sparkbloom-collation").toString + "/t"
    spark.range(0, 2000, 1, 4).select(concat(lit("User-"), col("id")).as("email"))
      .write.option("bloom_filter_columns", "email").parquet(path)
    val lookup = spark.read.parquet(path)
      .where(col("email").cast(StringType("UTF8_LCASE")) === lit("user-1234").cast(StringType("UTF8_LCASE")))
    assert(lookup.collect().map(_.getString(0)).toSeq == Seq("User-1234"))
  }
}
