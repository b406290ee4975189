// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, ParquetFooters, SparkBloom, SparkSessionSuite}

/**
 * Row-group selection across splits never loses or repeats a row group: files of many
 * row groups read by many small splits, from sparkbloom and parquet-java, and footers
 * crafted so that parquet-java's split midpoints lie outside a row group's own bytes.
 * Expected rows come from Spark with sparkbloom off and Parquet filter pushdown off.
 */
class SplitSelectionSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.files.maxPartitionBytes" -> (64 * 1024).toString,
    "spark.sql.files.openCostInBytes" -> "0")

  private val rows = 40000L
  private val keys = Seq(3L, 9001L, 17777L, 20000L, 26123L, 39999L)

  /** One file of ~12 row groups, keys shuffled so that statistics cannot prune. */
  private def write(path: String, sparkbloomFilters: Boolean, options: Map[String, String] = Map.empty): String = {
    val writer = spark.range(0, rows, 1, 1).select(col("id").as("k"), sha2(col("id").cast("string"), 256).as("pad"))
      .orderBy(rand(11)).coalesce(1)
      .write.option("parquet.block.size", 96 * 1024).option("parquet.enable.dictionary", "false").options(options)
    (if (sparkbloomFilters) writer.option("bloom_filter_columns", "k")
     else writer.option("parquet.bloom.filter.enabled#k", "true")).parquet(path)
    path
  }

  /** Each key's rows, read with sparkbloom and pushdown off: one scan for all keys. */
  private def truth(path: String): Map[Long, Seq[Row]] = {
    spark.conf.set("spark.sparkbloom.enabled", "false")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    try {
      val found = spark.read.parquet(path).where(col("k").isin(keys: _*)).collect().toSeq.groupBy(_.getLong(0))
      keys.map(k => k -> found.getOrElse(k, Seq.empty)).toMap
    } finally {
      spark.conf.unset("spark.sparkbloom.enabled")
      spark.conf.unset("spark.sql.parquet.filterPushdown")
    }
  }

  private def assertSameAsTruth(path: String, v2: Boolean = false): Unit = {
    val rowGroups = ParquetFiles.chunks(ParquetFiles.dataFiles(path).head).map(_.rowGroup).distinct.size
    assert(rowGroups >= 8, s"the file should have many row groups, has $rowGroups")
    val expected = truth(path)
    if (v2) spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try keys.foreach { k =>
        val df: DataFrame = spark.read.parquet(path).where(col("k") === k)
        val got = df.collect().toSeq
        val stats = SparkBloom.lastPruning(spark).asScala
        assert(got == expected(k), s"key $k")
        assert(stats("row_groups_skipped").longValue >= rowGroups - 2, s"key $k: $stats")
        assert(spark.read.parquet(path).rdd.getNumPartitions > 1, "the file should be read by several splits")
        // only splits holding a row group that may match become tasks
        val kept = stats("row_groups_total").longValue - stats("row_groups_skipped").longValue
        assert(df.rdd.getNumPartitions <= math.max(kept, 1),
          s"key $k: ${df.rdd.getNumPartitions} partitions, $kept row groups")
      }
    finally if (v2) spark.conf.unset("spark.sql.sources.useV1SourceList")
  }

  private def dir(name: String): String = Files.createTempDirectory(s"sparkbloom-split-$name").toString + "/t"

  test("sparkbloom files read by many splits, V1 and V2") {
    val path = write(dir("ours"), sparkbloomFilters = true)
    assertSameAsTruth(path)
    assertSameAsTruth(path, v2 = true)
  }

  test("parquet-java's own filters, read by many splits") {
    assertSameAsTruth(write(dir("pj"), sparkbloomFilters = false))
  }

  test("a dictionary page offset of 0 moves parquet-java's midpoints: still no row group lost") {
    val path = write(dir("dict0"), sparkbloomFilters = true)
    ParquetFooters.rewrite(ParquetFiles.dataFiles(path).head) { meta =>
      meta.getRow_groups.asScala.foreach(_.getColumns.get(0).getMeta_data.setDictionary_page_offset(0L))
    }
    assertSameAsTruth(path)
    assertSameAsTruth(path, v2 = true)
  }

  test("a row group size larger than its chunks (padding) moves midpoints: still no row group lost") {
    val path = write(dir("padded"), sparkbloomFilters = true)
    ParquetFooters.rewrite(ParquetFiles.dataFiles(path).head) { meta =>
      meta.getRow_groups.asScala.foreach(rg => rg.setTotal_compressed_size(rg.getTotal_compressed_size * 3))
    }
    assertSameAsTruth(path)
  }
}
