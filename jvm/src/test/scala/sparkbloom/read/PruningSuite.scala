// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ScanPruning, SparkBloom, SparkSessionSuite}

class PruningSuite extends AnyFunSuite with SparkSessionSuite {

  private lazy val table: String = {
    val path = Files.createTempDirectory("sparkbloom-prune").toString + "/t"
    // 20 files, ids shuffled so min/max cannot prune
    spark.range(0, 40000, 1, 20)
      .select(col("id").as("user_id"), concat(lit("u-"), col("id")).as("email"), (col("id") % 5).as("bucket"))
      .orderBy(rand(1)).repartition(20)
      .write.option("bloom_filter_columns", "user_id,email").option("parquet.block.size", 16 * 1024)
      .parquet(path)
    path
  }

  private def stats(): Map[String, Long] =
    SparkBloom.lastPruning(spark).asScala.map { case (k, v) => k -> v.longValue }.toMap

  private def filesRead(df: DataFrame): Long = {
    df.collect()
    df.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s.metrics("numFiles").value }
      .getOrElse { assert(ScanPruning.readsNoTable(df), df.queryExecution.executedPlan); 0L }
  }

  test("filters of any whole number of blocks (other writers', or bloom_filter_exact_size) prune as well") {
    val path = Files.createTempDirectory("sparkbloom-exact").toString + "/t"
    spark.range(0, 4000, 1, 8).select(col("id").as("k")).orderBy(rand(2)).repartition(8)
      .write.option("bloom_filter_columns", "k").option("bloom_filter_exact_size", "true").parquet(path)
    val sizes = sparkbloom.ParquetFiles.dataFiles(path).flatMap(sparkbloom.ParquetFiles.chunks).flatMap(_.filter)
      .map(_.getBitsetSize)
    assert(sizes.size == 8 && sizes.forall(b => b % 32 == 0 && Integer.bitCount(b) != 1), s"not exact sizes: $sizes")
    val absent = spark.read.parquet(path).where(col("k").isin(-1L, 5000L, 123456L))
    assert(filesRead(absent) == 0 && absent.count() == 0)
    assert(stats()("files_skipped") == 8)
    val present = spark.read.parquet(path).where(col("k") === 1234L)
    assert(present.collect().map(_.getLong(0)).toSeq == Seq(1234L))
    assert(filesRead(present) <= 2 && stats()("files_skipped") >= 6)
  }

  test(
    "with Spark's field-id matching on (Delta's extension turns it on), scans without ids prune, scans with ids are not judged") {
    // Spark's own Parquet pushdown matches names even when reading by id (it drops the row
    // here without sparkbloom): it is off, so that only sparkbloom's judgement is tested
    withConf("spark.sql.parquet.fieldId.read.enabled" -> "true", "spark.sql.parquet.filterPushdown" -> "false") {
      val absent = spark.read.parquet(table).where(col("user_id") === 123456789L)
      assert(filesRead(absent) == 0 && stats()("files_skipped") == 20)
      // Spark reads file column `a` (id 1) as `b`: judging `b` by the file's `b` would lose the row
      def withId(
          name: String, id: Long) = org.apache.spark.sql.types.StructField(name, org.apache.spark.sql.types.LongType,
        nullable = true, new org.apache.spark.sql.types.MetadataBuilder().putLong("parquet.field.id", id).build())
      val path = Files.createTempDirectory("sparkbloom-ids").toString + "/t"
      val written = org.apache.spark.sql.types.StructType(Seq(withId("a", 1), withId("b", 2)))
      spark.createDataFrame(spark.range(0, 1000, 1, 2).selectExpr("id", "-id").rdd, written)
        .write.option("bloom_filter_columns", "a,b").parquet(path)
      val swapped = org.apache.spark.sql.types.StructType(Seq(withId("b", 1), withId("a", 2)))
      val found = spark.read.schema(swapped).parquet(path).where(col("b") === 7L)
      assert(found.collect().map(_.getLong(0)).toSeq == Seq(7L))
      assert(stats()("files_skipped") == 0)
    }
  }

  test("an absent key schedules no file") {
    val df = spark.read.parquet(table).where(col("user_id") === 123456789L)
    assert(df.collect().isEmpty)
    assert(ScanPruning.readsNoTable(df), df.queryExecution.executedPlan)
    assert(df.count() == 0)
    val s = stats()
    assert(s("files_total") == 20 && s("files_skipped") == 20, s)
    assert(s("filter_bytes_read") > 0 || s("row_groups_skipped") > 0)
  }

  test("a present key reads only the file that holds it") {
    val df = spark.read.parquet(table).where(col("email") === "u-777")
    // the file holding it, plus at most a false positive or two at fpp 1 % over ~100 row groups
    assert(filesRead(df) >= 1 && filesRead(df) <= 3)
    assert(df.collect().map(_.getLong(0)).toSeq == Seq(777L))
    assert(stats()("files_skipped") >= 17)
  }

  test("IN lists, OR across columns, <=>") {
    val inList = spark.read.parquet(table).where(col("user_id").isin((0L until 3L) ++ (100000L until 100100L): _*))
    assert(inList.count() == 3)
    assert(stats()("files_skipped") >= 17 - 3)
    val or = spark.read.parquet(table).where(col("user_id") === 5L || col("email") === "u-6")
    assert(or.count() == 2)
    val orNonSelective = spark.read.parquet(table).where(col("user_id") === 5L || col("bucket") === 1L)
    assert(orNonSelective.count() == 8001) // bucket 1 has 8000 rows; user_id 5 is in bucket 0
    assert(stats()("files_skipped") == 0)
    val nullSafe = spark.read.parquet(table).where(col("user_id") <=> lit(42L))
    assert(nullSafe.count() == 1)
    assert(stats()("files_skipped") >= 18)
  }

  test("toggles: disabled means no pruning, and results stay the same") {
    def ids(df: DataFrame): Seq[Long] = df.collect().map(_.getLong(0)).sorted.toSeq
    val lookup = (col("user_id") === 123456789L) || (col("email") === "u-31337")
    val expected = ids(spark.read.parquet(table).where(lookup))
    assert(expected == Seq(31337L))
    spark.conf.set("spark.sparkbloom.enabled", "false")
    try {
      val df = spark.read.parquet(table).where(lookup)
      assert(filesRead(df) == 20)
      assert(ids(df) == expected)
    } finally spark.conf.unset("spark.sparkbloom.enabled")
    spark.conf.set("spark.sparkbloom.pruning.files", "false")
    try {
      val df = spark.read.parquet(table).where(lookup)
      assert(filesRead(df) == 20)
      assert(ids(df) == expected)
    } finally spark.conf.unset("spark.sparkbloom.pruning.files")
  }

  test("a file rewritten in place is judged by its new filter") {
    val base = Files.createTempDirectory("sparkbloom-rewrite").toString
    spark.range(0, 1000, 1, 1).write.option("bloom_filter_columns", "id").parquet(base + "/a")
    spark.range(5000, 6000, 1, 1).write.option("bloom_filter_columns", "id").parquet(base + "/b")
    val target = sparkbloom.ParquetFiles.dataFiles(base + "/a").head
    assert(spark.read.parquet(base + "/a").where(col("id") === 5500L).count() == 0)
    assert(stats()("files_skipped") == 1)
    val replacement = sparkbloom.ParquetFiles.dataFiles(base + "/b").head
    Files.copy(replacement.toPath, target.toPath, java.nio.file.StandardCopyOption.REPLACE_EXISTING)
    target.setLastModified(target.lastModified() + 5000)
    new java.io.File(target.getParent, "." + target.getName + ".crc").delete()
    assert(spark.read.parquet(base + "/a").where(col("id") === 5500L).count() == 1)
  }

  test("partitioned catalog tables: partition pruning first, then files") {
    spark.range(0, 4000, 1, 4).select(col("id").as("k"), (col("id") % 4).as("p"))
      .write.partitionBy("p").option("bloom_filter_columns", "k").saveAsTable("prune_parts")
    assert(spark.sql("SELECT count(*) FROM prune_parts WHERE p = 1 AND k = 5").head().getLong(0) == 1)
    val s = stats()
    assert(s("files_total") <= 4, s) // only partition p=1's files were judged
    assert(s("files_skipped") >= s("files_total") - 1)
    assert(spark.sql("SELECT count(*) FROM prune_parts WHERE k IN (1, 2, 3, 99999)").head().getLong(0) == 3)
  }

  test("in a file that is read, only the row groups that may match are read") {
    val path = Files.createTempDirectory("sparkbloom-rowgroups").toString + "/t"
    spark.range(0, 60000, 1, 1).select(col("id").as("k"), sha2(col("id").cast("string"), 256).as("pad"))
      .orderBy(rand(5)).coalesce(1)
      .write.option("bloom_filter_columns", "k").option("parquet.block.size", 256 * 1024).parquet(path)
    // whole row groups, so that the rows scanned count them (MatchingRowsSuite narrows rows)
    spark.conf.set("spark.sparkbloom.pruning.rows", "false")
    val df = spark.read.parquet(path).where(col("k") === 4242L)
    try assert(df.collect().map(_.getLong(0)).toSeq == Seq(4242L))
    finally spark.conf.unset("spark.sparkbloom.pruning.rows")
    val s = stats()
    assert(s("files_skipped") == 0 && s("row_groups_total") > 5, s)
    assert(s("row_groups_skipped") >= s("row_groups_total") - 2, s)
    val scanned = df.queryExecution.executedPlan.collectFirst { case scan: FileSourceScanExec =>
      scan.metrics("numOutputRows").value
    }.get
    val rowsPerGroup = 60000 / s("row_groups_total")
    assert(scanned <= 2 * rowsPerGroup + 1000, s"scan produced $scanned rows; a row group holds ~$rowsPerGroup")
    spark.conf.set("spark.sparkbloom.pruning.rowGroups", "false")
    try {
      val all = spark.read.parquet(path).where(col("k") === 4242L)
      assert(all.count() == 1)
    } finally spark.conf.unset("spark.sparkbloom.pruning.rowGroups")
  }

  test("a filter on _metadata is never judged by the filter of a data column of the same name") {
    // Spark plans `_metadata.file_name = ...` with a flattened attribute named file_name
    val path = Files.createTempDirectory("sparkbloom-metadata").toString + "/t"
    spark.range(0, 100, 1, 2)
      .select(col("id"), concat(lit("v"), col("id")).as("file_name"), (col("id") + 1000000L).as("file_size"))
      .write.option("bloom_filter_columns", "file_name,file_size").parquet(path)
    val file = sparkbloom.ParquetFiles.dataFiles(path).head
    def lookups(): Seq[Long] = Seq(
      spark.read.parquet(path).where(col("_metadata.file_name") === file.getName).count(),
      spark.read.parquet(path).where(col("_metadata.file_size") === file.length).count(),
      spark.read.parquet(path).where(col("_metadata.file_name") === file.getName && col("id") === 3L).count())
    val vanilla = withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false")(
      lookups())
    assert(vanilla.take(2).forall(_ == 50L), vanilla)
    assert(lookups() == vanilla)
    withConf("spark.sparkbloom.pruning.rowsAbove" -> "0")(assert(lookups() == vanilla)) // rows narrowed too
  }
}
