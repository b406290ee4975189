// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.nio.file.Files

import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{CountingFileSystem, SparkSessionSuite}
import sparkbloom.commands.TableIndexCommands
import sparkbloom.read.PruningStats

/**
 * The index a runtime holds answers a lookup without asking the store for a newer version
 * while it covers every listed file: on an object store that is one LIST fewer per lookup.
 * A file it does not cover makes it look for a newer one.
 */
class HeldIndexSuite extends AnyFunSuite with SparkSessionSuite {

  test("a lookup the held index answers lists no index directory; an uncovered file makes it look") {
    val hadoop = spark.sparkContext.hadoopConfiguration
    hadoop.set("fs.countfs.impl", classOf[CountingFileSystem].getName)
    hadoop.set("fs.countfs.impl.disable.cache", "true")
    val dir = Files.createTempDirectory("sparkbloom-held-index").toAbsolutePath + "/t"
    val table = "countfs://" + dir
    // countfs keeps no change time: only files settled for a while are indexed (FileIdentity)
    def settle(): Unit = new java.io.File(dir).listFiles().filter(_.getName.endsWith(".parquet"))
      .foreach(f => f.setLastModified(System.currentTimeMillis() - 60000L - 123L))
    // files without filters of their own, keys shuffled: only the index can skip them
    spark.range(0, 8000, 1, 8).select(col("id").as("k"), concat(lit("v-"), col("id")).as("v"))
      .orderBy(rand(5)).repartition(8).write.parquet(table)
    settle()
    TableIndexCommands.build(spark, table, java.util.Arrays.asList("k"), null).collect()
    val listings = CountingFileSystem.indexListings
    def lookUp(k: Long): (Seq[String], PruningStats, Long) = {
      val before = listings.get
      val rows = spark.read.parquet(table).where(col("k") === k).select("v").collect().map(_.getString(0)).toSeq
      (rows, PruningStats.last(spark).get, listings.get - before)
    }
    val (first, firstStats, _) = lookUp(4242L)
    assert(first == Seq("v-4242") && firstStats.filesCoveredByIndex == 8 && firstStats.filesSkippedByIndex == 7,
      firstStats)
    val (second, secondStats, secondListings) = lookUp(17L)
    assert(second == Seq("v-17") && secondStats.filesCoveredByIndex == 8 && secondStats.filesSkippedByIndex == 7)
    assert(secondListings == 0, "every file was covered by the index held: no newer version was looked for")
    // a file the held index does not cover: a newer version is looked for, and the file is read
    spark.range(9000, 9010, 1, 1).select(col("id").as("k"), concat(lit("v-"), col("id")).as("v"))
      .write.mode("append").parquet(table)
    val (added, addedStats, addedListings) = lookUp(9005L)
    assert(added == Seq("v-9005") && addedStats.filesTotal == 9, addedStats)
    assert(addedListings >= 1, "an uncovered file: the store was asked for a newer index")
  }
}
