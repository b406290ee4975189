// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.SparkSessionSuite
import sparkbloom.catalyst.BloomPruningExec

/**
 * What a user sees of pruning: EXPLAIN (before the query runs) and the SQL metrics the
 * Spark UI shows, for DataSource V1 scans and, with Parquet routed to V2, `ParquetScan`.
 */
class VisibilitySuite extends AnyFunSuite with SparkSessionSuite {

  private lazy val table: String = {
    val path = Files.createTempDirectory("sparkbloom-visible").toString + "/t"
    spark.range(0, 20000, 1, 10)
      .select(col("id").as("k"), concat(lit("v-"), col("id")).as("s"))
      .orderBy(rand(3)).repartition(10)
      .write.option("bloom_filter_columns", "k,s").option("parquet.block.size", 16 * 1024)
      .parquet(path)
    path
  }

  private def withV2[T](body: => T): T = {
    spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try body
    finally spark.conf.unset("spark.sql.sources.useV1SourceList")
  }

  /** The SQL metrics of the last execution, by name, as the Spark UI shows them. */
  private def uiMetrics(): Map[String, String] = {
    val store = spark.sharedState.statusStore
    val execution = store.executionsList().maxBy(_.executionId)
    val values = store.executionMetrics(execution.executionId)
    execution.metrics.flatMap(m => values.get(m.accumulatorId).map(m.name -> _)).toMap
  }

  private def explain(df: DataFrame): String = df.queryExecution.explainString(
    org.apache.spark.sql.execution.SimpleMode)

  test("V1: EXPLAIN shows files and row groups before and after, before anything runs") {
    val present = spark.read.parquet(table).where(col("k") === 4242L)
    val text = explain(present)
    assert(text.contains("BloomPruning files 10 -> 1, row groups "), text)
    // no file can hold an absent key: the scan keeps none, and runs no task
    val absent = explain(spark.read.parquet(table).where(col("k") === 987654321L))
    assert(absent.contains("BloomPruning files 10 -> 0"), absent)
    val sql = spark.sql(s"EXPLAIN FORMATTED SELECT * FROM parquet.`$table` WHERE s = 'v-42'").head().getString(0)
    assert(sql.contains("Pruning: files 10 -> 1, row groups "), sql)
  }

  test("rendering a planned query reads no file: the pruning was decided while planning") {
    val hadoop = spark.sparkContext.hadoopConfiguration
    hadoop.set("fs.countfs.impl", classOf[sparkbloom.CountingFileSystem].getName)
    hadoop.set("fs.countfs.impl.disable.cache", "true")
    val counted = "countfs://" + new java.io.File(table).getAbsolutePath
    for (v2 <- Seq(false, true)) {
      // V1: a present key (an absent one plans no scan); V2: an absent key
      def plan(): DataFrame = spark.read.parquet(counted).where(col("k") === (if (v2) 987654322L else 4242L))
      val df = if (v2) withV2(plan()) else plan()
      val executed = if (v2) withV2(df.queryExecution.executedPlan) else df.queryExecution.executedPlan
      val before = sparkbloom.CountingFileSystem.calls.get()
      val texts = (1 to 3).map(_ => df.queryExecution.explainString(org.apache.spark.sql.execution.ExtendedMode)) :+
        executed.toString :+ executed.treeString(verbose = true)
      assert(sparkbloom.CountingFileSystem.calls.get() == before, s"v2=$v2: rendering did I/O")
      assert(texts.head.contains(if (v2) "files 10 -> 0" else "files 10 -> 1"), texts.head)
    }
  }

  test("a lookup is judged once: from optimizing to running, the driver opens each file once") {
    val hadoop = spark.sparkContext.hadoopConfiguration
    hadoop.set("fs.countfs.impl", classOf[sparkbloom.CountingFileSystem].getName)
    hadoop.set("fs.countfs.impl.disable.cache", "true")
    val counted = "countfs://" + new java.io.File(table).getAbsolutePath
    val opens = sparkbloom.CountingFileSystem.driverOpens
    spark.conf.set("spark.sparkbloom.cache.maxBytes", "0") // a second judgement would open every file again
    try for (v2 <- Seq(false, true)) {
        def as[T](body: => T): T = if (v2) withV2(body) else body
        val df = as(spark.read.parquet(counted).where(col("k") === 4242L))
        val before = opens.get()
        as(df.queryExecution.executedPlan) // optimized (judged, sized), then planned
        val planning = opens.get() - before
        assert(as(df.collect()).length == 1)
        val running = opens.get() - before - planning
        assert(planning == 10, s"v2=$v2: the driver opened $planning files while optimizing and planning 10")
        assert(running == 0, s"v2=$v2: the driver opened $running files while running: judged again")
      }
    finally spark.conf.unset("spark.sparkbloom.cache.maxBytes")
  }

  test("V1: driver-side SQL metrics reach the scan and the UI's store") {
    val df = spark.read.parquet(table).where(col("s").isin("v-1", "v-2"))
    assert(df.count() == 2)
    val ui = uiMetrics()
    assert(ui("sparkbloom: files before pruning") == "10", ui)
    assert(ui("sparkbloom: files skipped").toLong >= 7, ui)
    assert(ui("sparkbloom: row groups skipped").toLong > 0, ui)
    assert(ui.contains("sparkbloom: probe time (ms)") && ui.contains("sparkbloom: filter bytes read"), ui)
    val plain = spark.read.parquet(table).where(col("k") === 5L)
    plain.collect()
    val node = plain.queryExecution.executedPlan.collectFirst { case b: BloomPruningExec => b }.get
    assert(node.metrics("bloomFilesSkipped").value >= 9)
    assert(node.child.isInstanceOf[FileSourceScanExec])
  }

  test("V2: absent keys plan one input partition that reads no file, present keys only their row groups") {
    withV2 {
      val absent = spark.read.parquet(table).where(col("k") === 987654321L)
      assert(absent.collect().isEmpty)
      val scan = absent.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b }.get
      // the ruled-out files, to be read only if they change before the plan runs again
      assert(scan.inputRDD.getNumPartitions == 1)
      assert(scan.metrics("numOutputRows").value == 0)
      val stats = PruningStats.last(spark).get
      assert(stats.filesTotal == 10 && stats.filesSkipped == 10, stats)

      // whole row groups, so that the rows scanned count them (MatchingRowsSuite narrows rows)
      spark.conf.set("spark.sparkbloom.pruning.rows", "false")
      val present = spark.read.parquet(table).where(col("k") === 4242L)
      try assert(present.collect().map(_.getLong(0)).toSeq == Seq(4242L))
      finally spark.conf.unset("spark.sparkbloom.pruning.rows")
      val kept = PruningStats.last(spark).get
      assert(kept.filesSkipped >= 9 && kept.rowGroupsSkipped >= kept.rowGroupsTotal - 2, kept)
      val presentScan = present.queryExecution.executedPlan.collectFirst { case b: BatchScanExec => b }.get
      assert(presentScan.metrics("numOutputRows").value <= 2 * 20000 / kept.rowGroupsTotal + 500)
    }
  }

  test("V2: EXPLAIN and custom driver metrics") {
    withV2 {
      val df = spark.read.parquet(table).where(col("s") === "v-7" || col("k") === 8L)
      val text = explain(df)
      assert(text.contains("BatchScan") && text.contains("BloomPruning: files 10 -> "), text)
      assert(df.count() == 2)
      val ui = uiMetrics()
      assert(ui("sparkbloom: files before pruning") == "10", ui)
      assert(ui("sparkbloom: files skipped").toLong >= 6, ui)
    }
  }

  test("partitioned tables, catalog and path, V1 and V2: partition pruning first, then files") {
    val data = spark.range(0, 4000, 1, 4).select(col("id").as("k"), (col("id") % 4).as("p"))
    data.write.partitionBy("p").option("bloom_filter_columns", "k").saveAsTable("visible_parts")
    val path = Files.createTempDirectory("sparkbloom-parts").toString + "/t"
    data.write.partitionBy("p").option("bloom_filter_columns", "k").parquet(path)
    for (v2 <- Seq(false, true); source <- Seq("visible_parts", s"parquet.`$path`")) {
      def run() = spark.sql(s"SELECT k FROM $source WHERE p = 1 AND k IN (5, 9, 13, 6)")
        .collect().map(_.getLong(0)).sorted.toSeq
      val rows = if (v2) withV2(run()) else run()
      assert(rows == Seq(5L, 9L, 13L), s"$source v2=$v2")
      val s = PruningStats.last(spark).get
      assert(s.filesTotal <= 4 && s.filesTotal > 0, s"$source v2=$v2: $s") // partition p = 1 only
    }
  }
}
