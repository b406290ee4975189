// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.File
import java.nio.file.{Files, StandardCopyOption}

import org.apache.hadoop.fs.{EtagSource, FileStatus, Path}
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, ParquetFooters, SparkSessionSuite}

/**
 * A file rewritten in place with the same length and modification time (object stores
 * report seconds; copies can keep times) is never judged by the older file's footer or
 * filters: young files are not cached, etags are part of the key, and Spark's own
 * invalidations drop sparkbloom's entries.
 */
class StaleCacheSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] =
    Map("spark.hadoop.fs.flaky.impl" -> classOf[FlakyFileSystem].getName)

  private val present = 1000001L
  private val replacement = 1000002L

  /** A one-file table holding `present`, and a file of the same length holding `replacement`. */
  private def twoFiles(prefix: String = "sparkbloom-stale"): (String, File, File) = {
    val base = Files.createTempDirectory(prefix).toString
    def one(value: Long, dir: String): File = {
      spark.range(0, 1, 1, 1).select(lit(value).as("id"))
        .write.option("bloom_filter_columns", "id").option("compression", "uncompressed").parquet(dir)
      ParquetFiles.dataFiles(dir).head
    }
    val target = one(present, base + "/t")
    val other = one(replacement, base + "/other")
    assert(target.length == other.length, "the rewrite must keep the length for this test to mean anything")
    (base + "/t", target, other)
  }

  private def rewrite(target: File, from: File, modified: Long): Unit = {
    Files.copy(from.toPath, target.toPath, StandardCopyOption.REPLACE_EXISTING)
    new File(target.getParent, "." + target.getName + ".crc").delete()
    assert(target.setLastModified(modified))
  }

  private def count(path: String): Long = spark.read.parquet(path).where(col("id") === replacement).count()

  private val anHourAgo = (System.currentTimeMillis() - 3600 * 1000) / 1000 * 1000

  test("REFRESH of the path drops the cached footer of a file rewritten with the same length and time") {
    val (path, target, other) = twoFiles()
    assert(target.setLastModified(anHourAgo))
    assert(count(path) == 0)
    rewrite(target, other, anHourAgo)
    spark.sql(s"REFRESH '$path'")
    assert(count(path) == 1)
  }

  /** A catalog table over `twoFiles(prefix)`: REFRESH TABLE drops the cached footer of its rewritten file. */
  private def refreshTableSeesTheRewrite(table: String, prefix: String = "sparkbloom-stale"): String = {
    val (path, target, other) = twoFiles(prefix)
    spark.sql(s"CREATE TABLE $table USING parquet LOCATION '$path'")
    val query = s"SELECT count(*) FROM $table WHERE id = $replacement"
    assert(target.setLastModified(anHourAgo))
    assert(spark.sql(query).head().getLong(0) == 0)
    rewrite(target, other, anHourAgo)
    spark.sql(s"REFRESH TABLE $table")
    assert(spark.sql(query).head().getLong(0) == 1)
    path
  }

  test("REFRESH TABLE and CLEAR CACHE drop them too") {
    val path = refreshTableSeesTheRewrite("stale_t")

    // a temporary view has no location of its own: refreshing it refreshes as vanilla does
    spark.read.parquet(path).createOrReplaceTempView("stale_view")
    spark.sql("REFRESH TABLE stale_view")
    assert(spark.sql(s"SELECT count(*) FROM stale_view WHERE id = $replacement").head().getLong(0) == 1)

    val (path2, target2, other2) = twoFiles()
    assert(target2.setLastModified(anHourAgo))
    assert(count(path2) == 0)
    rewrite(target2, other2, anHourAgo)
    spark.sql("CLEAR CACHE")
    assert(count(path2) == 1)
  }

  test("REFRESH TABLE drops them where the table's location has characters a URI escapes") {
    refreshTableSeesTheRewrite("stale_spaced", prefix = "sparkbloom stale")
  }

  test("a footer read by a reader opting into signed string statistics does not prune reads that did not") {
    // a parquet-mr 1.8 footer: only the deprecated min/max, in signed byte order, so "é" (0xC3A9)
    // sorts below "a"; parquet-java ignores them unless a read sets
    // parquet.strings.signed-min-max.enabled, and the footer is cached for every later read
    val path = Files.createTempDirectory("sparkbloom-signed").toString + "/t"
    spark.createDataFrame(Seq(Tuple1("a"), Tuple1("\u00e9"))).toDF("s").coalesce(1).write.parquet(path)
    val file = ParquetFiles.dataFiles(path).head
    ParquetFooters.rewrite(file) { meta =>
      meta.setCreated_by("parquet-mr version 1.8.1 (build 4aba4dae7bb0d4edbcf7923ae1339f28fd3f7fcf)")
      meta.unsetColumn_orders()
      meta.getRow_groups.forEach(_.getColumns.forEach { chunk =>
        val stats = chunk.getMeta_data.getStatistics
        stats.unsetMin_value()
        stats.unsetMax_value()
        stats.setMin("\u00e9".getBytes("UTF-8"))
        stats.setMax("a".getBytes("UTF-8"))
      })
    }
    assert(file.setLastModified(anHourAgo))
    spark.read.option("parquet.strings.signed-min-max.enabled", "true").parquet(path).where(col("s") === "zz").count()
    assert(spark.read.parquet(path).where(col("s") === "a").count() == 1)
    assert(spark.newSession().read.parquet(path).where(col("s") === "a").count() == 1)
  }

  test("a file rewritten within the same clock second, with no refresh at all, is judged by its new footer") {
    val (path, target, other) = twoFiles()
    val justNow = System.currentTimeMillis() / 1000 * 1000
    assert(target.setLastModified(justNow))
    assert(count(path) == 0)
    rewrite(target, other, justNow)
    assert(count(path) == 1)
  }

  test("a filter read that fails (a transient I/O error) is not cached: the next query judges the file") {
    val path = Files.createTempDirectory("sparkbloom-stale").toString + "/t"
    spark.range(0, 1000, 1, 1).select(col("id").as("a"), (col("id") * 2).as("b"))
      .write.option("bloom_filter_columns", "a,b").parquet(path)
    ParquetFiles.dataFiles(path).foreach(f => assert(f.setLastModified(anHourAgo)))
    // odd b: absent, and within b's min and max. The schema is read before a failure is
    // injected: it is the probe's read that must fail.
    def absentB(failingOpens: Int): PruningStats = {
      val df = spark.read.parquet("flaky://" + path).where(col("b") === 501L)
      FlakyFileSystem.failingOpens.set(failingOpens)
      assert(df.collect().isEmpty)
      assert(FlakyFileSystem.failingOpens.get == 0)
      PruningStats.last(spark).get
    }
    // the footer is cached by a first query, so the next one opens the file only for b's filter
    assert(spark.read.parquet("flaky://" + path).where(col("a") === 7L).count() == 1)
    assert(absentB(failingOpens = 1).filesSkipped == 0, "the failed read leaves the file to be read")
    assert(absentB(failingOpens = 0).filesSkipped == 1, "the next query reads the filter again and skips it")
  }

  test("a file system's etag is part of the cache key") {
    def status(etag: String): FileStatus = new FileStatus(100L, false, 1, 1L, 5000L, new Path("s3a://b/k.parquet"))
      with EtagSource { override def getEtag: String = etag }
    assert(FileKey.of(status("v1"), "") != FileKey.of(status("v2"), ""))
    assert(FileKey.of(status("v1"), "") == FileKey.of(status("v1"), ""))
  }
}
