// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.io.File
import java.nio.file.Files

import org.apache.parquet.io.api.Binary
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite, TestShims}
import sparkbloom.errors.SparkBloomException
import sparkbloom.sbbf.{FilterSizing, XxHash64}
import sparkbloom.shims.SparkShims

class BloomWriteSuite extends AnyFunSuite with SparkSessionSuite {

  private def tempPath(): String = {
    val dir = Files.createTempDirectory("sparkbloom-write").toFile
    dir.delete()
    dir.getPath
  }

  private def filteredChunks(path: String, column: String): Seq[ParquetFiles.Chunk] =
    ParquetFiles.dataFiles(path).flatMap(ParquetFiles.chunks).filter(_.path == column)

  test("a path write with bloom_filter_columns puts a filter in every row group") {
    val path = tempPath()
    spark.range(0, 100000, 1, 2)
      .select(col("id"), sha2(col("id").cast("string"), 256).as("s"), (col("id") % 3).as("small"))
      .write.option("bloom_filter_columns", "id,S").option("parquet.block.size", 256 * 1024).parquet(path)
    for (column <- Seq("id", "s")) {
      val chunks = filteredChunks(path, column)
      assert(chunks.size > 2, s"$column: expected several row groups")
      chunks.foreach { c =>
        assert(c.filter.isDefined, s"$column row group ${c.rowGroup} has no filter")
        // parquet-java 1.13 (Spark 3.5) predates bloom_filter_length and neither writes nor reads it
        if (TestShims.FilterLength.exists)
          assert(SparkShims.bloomFilterLength(c.meta) > 0, "bloom_filter_length must be written")
      }
    }
    assert(filteredChunks(path, "small").forall(_.filter.isEmpty))
    // every value is found by its row group's filter
    val idFilters = filteredChunks(path, "id").flatMap(_.filter)
    (0L until 100000L by 7).foreach { v =>
      assert(idFilters.exists(f => f.findHash(XxHash64.hashLong(v))), s"id $v")
    }
    val absent = (1000000L until 1010000L).count(v => idFilters.exists(_.findHash(XxHash64.hashLong(v))))
    assert(absent < 10000 * 0.01 * idFilters.size * 1.5)
    assert(spark.read.parquet(path).count() == 100000)
  }

  test("filters are right-sized to each chunk's distinct count: powers of two by default, exact sizes on request") {
    val target = sparkbloom.settings.SparkBloomConf.WriteFpp.default
    val ceiling = FilterSizing.rowGroupCeiling(128L * 1024 * 1024)
    for (n <- Seq(100, 10000); exactSize <- Seq(None, Some("TRUE"), Some("false"))) {
      val path = tempPath()
      val writer = spark.range(0, n, 1, 1).write.option("bloom_filter_columns", "id")
      exactSize.fold(writer)(v => writer.option("bloom_filter_exact_size", v)).parquet(path)
      val chunk = filteredChunks(path, "id").head
      val bytes = chunk.filter.get.getBitsetSize
      // Both counts are below the hash buffer's size: exact sizes count the values; powers
      // of two start at the model's size for the count, and these values' bits at half of
      // it miss the fpp (the folding itself is ColumnFilterBuilderSuite's).
      val expected =
        if (exactSize.contains("TRUE")) FilterSizing.optimalNumBytes(n, target)
        else FilterSizing.optimalPowerOfTwoBytes(n, target, 32, ceiling)
      assert(bytes == expected, s"n=$n, exact size $exactSize: $bytes bytes, expected $expected")
      val probes = 400000
      val falsePositives = (0 until probes).count(i => chunk.filter.get.findHash(XxHash64.hashLong(10000000L + i)))
      assert(falsePositives <= 1.5 * target * probes + 5, s"n=$n: $falsePositives false positives in $probes")
      (0 until n).foreach(i => assert(chunk.filter.get.findHash(XxHash64.hashLong(i)), s"n=$n: $i lost"))
      info(s"$n distinct values, exact size $exactSize: $bytes bytes (exact optimum " +
        s"${FilterSizing.optimalNumBytes(n, target)}), measured fpp ${falsePositives.toDouble / probes}")
    }
  }

  test("the default ceiling follows the row group; a ceiling that binds is recorded and inspect shows it") {
    assert(FilterSizing.rowGroupCeiling(128L << 20) == (8 << 20))
    assert(FilterSizing.rowGroupCeiling(8L << 20) == (1 << 20))
    assert(FilterSizing.rowGroupCeiling(1L << 30) == (64 << 20))
    assert(FilterSizing.rowGroupCeiling(8L << 30) == (128 << 20))
    // 400,000 distinct keys in one row group need ~1.3 MB at fpp 0.0001: more than the old fixed 1 MiB
    def write(options: Map[String, String]): (String, ParquetFiles.Chunk) = {
      val path = tempPath()
      spark.range(0, 400000, 1, 1).write.option("bloom_filter_columns", "id").options(options).parquet(path)
      (path, filteredChunks(path, "id").head)
    }
    def inspected(path: String): Seq[org.apache.spark.sql.Row] =
      sparkbloom.commands.Inspection.inspect(spark, path, java.util.Collections.singletonList("id")).collect().toSeq
    val (followed, chunk) = write(Map.empty)
    assert(chunk.filter.get.getBitsetSize == (2 << 20), "Spark's 128 MB row groups allow 8 MiB; 2 MiB meets the fpp")
    assert(inspected(followed).forall(r => !r.getAs[Boolean]("ceiling_bound")))
    val (capped, small) = write(Map("bloom_filter_max_bytes" -> "65536"))
    assert(small.filter.get.getBitsetSize == 65536)
    val rows = inspected(capped)
    assert(rows.nonEmpty && rows.forall(_.getAs[Boolean]("ceiling_bound")))
    assert(rows.forall(_.getAs[Double]("estimated_fpp") > 0.0001))
    // smaller row groups, a smaller default ceiling (1 MiB at most 16 MB): bound again
    val (smallGroups, _) = write(Map("parquet.block.size" -> (8 << 20).toString))
    assert(inspected(smallGroups).exists(_.getAs[Boolean]("ceiling_bound")))
    assert(spark.read.parquet(capped).where("id = 399999").count() == 1)
  }

  test("the session default spark.sparkbloom.write.exactSize, and the option winning over it") {
    def bytesWritten(options: Map[String, String]): Int = {
      val path = tempPath()
      spark.range(0, 100, 1, 1).write.option("bloom_filter_columns", "id").options(options).parquet(path)
      filteredChunks(path, "id").head.filter.get.getBitsetSize
    }
    val exact = FilterSizing.optimalNumBytes(100, sparkbloom.settings.SparkBloomConf.WriteFpp.default)
    val pow2 =
      FilterSizing.optimalPowerOfTwoBytes(100, sparkbloom.settings.SparkBloomConf.WriteFpp.default, 32, 1 << 20)
    assert(exact != pow2, "the case must tell the two modes apart")
    assert(bytesWritten(Map.empty) == pow2)
    spark.conf.set(sparkbloom.settings.SparkBloomConf.WriteExactSize.key, "true")
    try {
      assert(bytesWritten(Map.empty) == exact)
      assert(bytesWritten(Map("bloom_filter_exact_size" -> "False")) == pow2)
      // a bad session value is refused where it is set, not at every later write
      val error =
        intercept[IllegalArgumentException](spark.conf.set(sparkbloom.settings.SparkBloomConf.WriteExactSize.key,
            "yes"))
      assert(error.getMessage.contains("spark.sparkbloom.write.exactSize"))
      assert(bytesWritten(Map.empty) == exact, "the value set before stays")
    } finally spark.conf.unset(sparkbloom.settings.SparkBloomConf.WriteExactSize.key)
  }

  test("bad options fail before anything is written") {
    val df = spark.range(10).select(col("id"), lit(true).as("flag"), array(lit(1)).as("arr"),
      struct(col("id").as("x")).as("st"))
    val cases = Seq(
      Map("bloom_filter_columns" -> "nope") -> "does not exist",
      Map("bloom_filter_columns" -> "flag") -> "boolean",
      Map("bloom_filter_columns" -> "arr") -> "array",
      Map("bloom_filter_columns" -> "st") -> "struct",
      Map("bloom_filter_columns" -> "id", "bloom_filter_fpp" -> "1.5") -> "strictly between 0 and 1",
      Map("bloom_filter_columns" -> "id", "bloom_filter_fpp" -> "abc") -> "strictly between 0 and 1",
      Map("bloom_filter_columns" -> "id", "bloom_filter_fpp.id" -> "0") -> "strictly between 0 and 1",
      Map("bloom_filter_columns" -> "id", "bloom_filter_ndv.id" -> "-3") -> "positive whole number",
      Map("bloom_filter_columns" -> "id", "bloom_filter_ndv.id" -> "many") -> "positive whole number",
      Map("bloom_filter_columns" -> "id", "bloom_filter_max_bytes" -> "-1") -> "whole number of bytes",
      Map("bloom_filter_columns" -> "id", "bloom_filter_fpp.other" -> "0.1") -> "not in bloom_filter_columns",
      Map("bloom_filter_columns" -> "id", "bloom_filter_ndv.id" -> "1", "bloom_filter_ndv.`id`" -> "2") ->
        "options 'bloom_filter_ndv.`id`' and 'bloom_filter_ndv.id' name the same column",
      Map("bloom_filter_columns" -> "id", "bloom_filter_exact_size" -> "yes") ->
        "option 'bloom_filter_exact_size' must be true or false, got 'yes'",
      Map("bloom_filter_columns" -> "id", "BLOOM_FILTER_EXACT_SIZE" -> "") ->
        "option 'BLOOM_FILTER_EXACT_SIZE' must be true or false, got ''",
      Map("bloom_filter_exact_size" -> "true") -> "bloom filter options are set but 'bloom_filter_columns' names no column"
    )
    for ((options, message) <- cases) {
      val path = tempPath()
      val error = intercept[SparkBloomException](df.write.options(options).parquet(path))
      assert(error.getMessage.contains(message), s"$options: ${error.getMessage}")
      assert(!new File(path).exists(), s"$options: output directory was created")
    }
    // existing data stays as it was
    val path = tempPath()
    df.select("id").write.parquet(path)
    val before = ParquetFiles.dataFiles(path).map(_.getName)
    intercept[SparkBloomException](df.select("id").write.mode("overwrite").option("bloom_filter_columns", "x").parquet(
        path))
    assert(ParquetFiles.dataFiles(path).map(_.getName) == before)
  }

  test("strings, nested fields and timestamps (INT96 switched to micros)") {
    val path = tempPath()
    spark.range(0, 500, 1, 1)
      .select(col("id"), struct(concat(lit("user-"), col("id")).as("email")).as("contact"),
        timestamp_seconds(col("id") * 1000).as("ts"))
      .write.option("bloom_filter_columns", "contact.email,ts").parquet(path)
    val email = filteredChunks(path, "contact.email").head.filter.get
    (0 until 500).foreach(i => assert(email.findHash(email.hash(Binary.fromString(s"user-$i")))))
    val ts = filteredChunks(path, "ts").head
    assert(ts.meta.getPrimitiveType.getPrimitiveTypeName.name == "INT64")
    (0 until 500).foreach(i => assert(ts.filter.get.findHash(XxHash64.hashLong(i * 1000L * 1000000L))))
    assert(spark.read.parquet(path).where("ts = timestamp_seconds(3000)").count() == 1)
  }
}
