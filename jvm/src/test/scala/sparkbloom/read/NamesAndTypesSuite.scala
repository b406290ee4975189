// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import org.apache.spark.sql.Row
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, ParquetFooters, SparkSessionSuite}
import sparkbloom.errors.SparkBloomException

/** Smaller paths to a false negative: narrowing reads, dotted names, case, `_metadata`. */
class NamesAndTypesSuite extends AnyFunSuite with SparkSessionSuite {

  private def dir(name: String): String = Files.createTempDirectory(s"sparkbloom-$name").toString + "/t"

  /** Rows with sparkbloom off and Parquet filter pushdown off: the oracle. */
  private def vanilla[T](body: => T): T = {
    spark.conf.set("spark.sparkbloom.enabled", "false")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try body
    finally {
      spark.conf.unset("spark.sparkbloom.enabled")
      spark.conf.unset("spark.sql.parquet.filterPushdown")
    }
  }

  test("an INT32 column read as tinyint or smallint (Spark truncates) is never judged") {
    val path = dir("narrow")
    spark.range(0, 1, 1, 1).select(lit(300).as("v"), lit(70000).as("w"))
      .write.option("bloom_filter_columns", "v,w").parquet(path)
    val narrow = spark.read.schema("v tinyint, w smallint").parquet(path)
    val expected = vanilla(narrow.where(col("v") === 44.toByte && col("w") === 4464.toShort).count())
    assert(expected == 1, "Spark reads 300 as 44 and 70000 as 4464")
    // Spark's own pushdown has the same blind spot (it pushes v = 44 to INT32 statistics),
    // so it is off here: what is checked is that sparkbloom's driver does not skip the file.
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try {
      assert(narrow.where(col("v") === 44.toByte).count() == 1)
      assert(narrow.where(col("w") === 4464.toShort).count() == 1)
    } finally spark.conf.unset("spark.sql.parquet.filterPushdown")
  }

  test("a top-level column named a.b next to a struct field a.b cannot get a filter") {
    val schema = StructType(Seq(
        StructField("a.b", LongType),
        StructField("a", StructType(Seq(StructField("b", LongType))))))
    val df = spark.createDataFrame(java.util.Collections.singletonList(Row(1L, Row(2L))), schema)
    Seq("`a.b`", "a.b").foreach { name =>
      val e = intercept[SparkBloomException](df.write.option("bloom_filter_columns", name).parquet(dir("dotted")))
      assert(e.getMessage.contains("same Parquet path 'a.b'"), e.getMessage)
    }
  }

  test("a file with both id and ID is never skipped where vanilla Spark fails") {
    val path = dir("case")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try {
      spark.range(0, 100, 1, 1).select(col("id"), (col("id") + 1000).as("ID"))
        .write.option("bloom_filter_columns", "id,ID").parquet(path)
    } finally spark.conf.unset("spark.sql.caseSensitive")
    def outcome(): String =
      try spark.read.schema("id long").parquet(path).where(col("id") === 5000L).collect().length.toString
      catch { case e: Exception => "failed" }
    val expected = vanilla(outcome())
    assert(expected == "failed", "Spark refuses a case-insensitive read of a file with id and ID")
    assert(outcome() == expected)
  }

  test("_metadata.file_block_start and file_block_length keep Spark's splits") {
    val path = dir("metadata")
    spark.range(0, 40000, 1, 1).select(col("id").as("k"), sha2(col("id").cast("string"), 256).as("pad"))
      .orderBy(rand(3)).coalesce(1)
      .write.option("bloom_filter_columns", "k").option("parquet.block.size", 64 * 1024).parquet(path)
    spark.conf.set("spark.sql.files.maxPartitionBytes", (256 * 1024).toString)
    try {
      def blocks() = spark.read.parquet(path).where(col("k").isin(7L, 30123L))
        .select(col("k"), col("_metadata.file_block_start"), col("_metadata.file_block_length"))
        .collect().map(_.toString).sorted.toSeq
      val expected = vanilla(blocks())
      assert(expected.size == 2)
      // Spark fills `_metadata` from its own split, whatever ranges the reader is handed
      // (V2 Parquet scans have no `_metadata`).
      assert(blocks() == expected)
    } finally spark.conf.unset("spark.sql.files.maxPartitionBytes")
  }

  /** What a query returns, or that it fails: sparkbloom must not change either. */
  private def outcome(rows: => Seq[String]): Either[String, Seq[String]] =
    try Right(rows)
    catch { case _: Exception => Left("failed") }

  test("a decimal column read as a whole number or at a smaller scale is never judged by a rescaled literal") {
    // INT32, INT64 and FIXED_LEN_BYTE_ARRAY decimals. Read as a whole number Spark returns the
    // unscaled value (1.2345 reads as 12345); the row reader rounds a read at a smaller scale
    // (1.2345 reads as 1.23): a literal then names stored values other than its rescaled self.
    var matched = 0
    Seq(9, 18, 30).foreach { precision =>
      val path = dir(s"decimal$precision")
      spark.range(0, 10, 1, 1).select(lit("1.2345").cast(s"decimal($precision,4)").as("d"))
        .write.option("bloom_filter_columns", "d").parquet(path)
      val reads = Seq("d int" -> lit(12345), "d bigint" -> lit(12345L),
        s"d decimal(${precision - 2},2)" -> lit(BigDecimal("1.23")).cast(s"decimal(${precision - 2},2)"))
      for ((schema, literal) <- reads; vectorized <- Seq("true", "false")) {
        spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
        try {
          def rows() = spark.read.schema(schema).parquet(path).where(col("d") === literal).collect().map(_.toString)
          val expected = vanilla(outcome(rows().toSeq))
          assert(outcome(rows().toSeq) == expected, s"decimal($precision,4) read as $schema, vectorized $vectorized")
          if (expected.exists(_.nonEmpty)) matched += 1
        } finally spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
      }
    }
    assert(matched >= 2, "Spark reads some of these as the unscaled or the rounded value")
  }

  test("a conjunct naming a partition column is never judged, also where a V2 scan keeps it among data filters") {
    // the file holds a column named like the partition column, with other values: Spark reads
    // the partition's value from the directory, so every row has p = 1
    val path = dir("partition-or")
    spark.range(100, 200, 1, 1).select(col("id"), lit(7).as("p"))
      .write.option("bloom_filter_columns", "id,p").parquet(path + "/p=1")
    for (v1List <- Seq("parquet", ""); where <- Seq("p = 1 OR id = 5", "(p = 1 OR id = 5) AND id > 0")) {
      spark.conf.set("spark.sql.sources.useV1SourceList", v1List)
      try {
        def rows() = spark.read.parquet(path).where(where).collect().map(_.toString).sorted.toSeq
        val expected = vanilla(rows())
        assert(expected.size == 100)
        assert(rows() == expected, s"$where, V1 sources '$v1List'")
      } finally spark.conf.unset("spark.sql.sources.useV1SourceList")
    }
  }
  test("decimal statistics are not trusted: writers have ordered them by bytes") {
    // {127, 128} in a FIXED_LEN_BYTE_ARRAY decimal, with min and max as Arrow C++ before 4.0
    // wrote them (byte order: 128 below 127); the file has no Bloom filter
    val path = dir("decimal-stats")
    spark.range(127, 129, 1, 1).select(col("id").cast("decimal(38,0)").as("d")).write.parquet(path)
    def bytes(v: Int) = java.math.BigInteger.valueOf(v).toByteArray.reverse.padTo(16, 0.toByte).reverse
    ParquetFooters.rewrite(ParquetFiles.dataFiles(path).head) { meta =>
      meta.getRow_groups.forEach(_.getColumns.forEach { chunk =>
        val stats = chunk.getMeta_data.getStatistics
        stats.setMin_value(bytes(128))
        stats.setMax_value(bytes(127))
      })
    }
    ParquetFiles.dataFiles(path).foreach(f => assert(f.setLastModified(System.currentTimeMillis() - 3600 * 1000)))
    spark.conf.set("spark.sql.parquet.filterPushdown", "false") // Spark's own pushdown trusts them
    try {
      for (v <- Seq(127, 128)) {
        assert(spark.read.parquet(path).where(col("d") === lit(BigDecimal(v))).count() == 1, v)
      }
    } finally spark.conf.unset("spark.sql.parquet.filterPushdown")
  }
}
