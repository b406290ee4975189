// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ScanPruning, SparkSessionSuite}
import sparkbloom.read.PruningStats

/**
 * A lookup no file can answer reads no file, and only then: every query is also run with
 * sparkbloom off and Parquet pushdown off, and must return the same rows.
 */
class EmptyLookupSuite extends AnyFunSuite with SparkSessionSuite {

  /** 8 files, keys shuffled so min/max cannot prune; `p` also names the partition below. */
  private lazy val table: String = {
    val path = Files.createTempDirectory("sparkbloom-empty").toString + "/t"
    spark.range(0, 8000, 1, 8).select(col("id").as("k"), concat(lit("v-"), col("id")).as("s"))
      .orderBy(rand(5)).repartition(8)
      .write.option("bloom_filter_columns", "k,s").parquet(path)
    path
  }

  private def oracle(df: => DataFrame): Seq[Row] =
    withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
      df.collect().toSeq.map(_.toString).sorted.map(Row(_))
    }

  private def rows(df: DataFrame): Seq[Row] = df.collect().toSeq.map(_.toString).sorted.map(Row(_))

  /** The tasks `body` ran. */
  private def tasksOf(body: => Unit): Int = {
    val group = java.util.UUID.randomUUID().toString
    spark.sparkContext.setJobGroup(group, "counted")
    try body
    finally spark.sparkContext.clearJobGroup()
    val tracker = spark.sparkContext.statusTracker
    tracker.getJobIdsForGroup(group).toSeq.flatMap(tracker.getJobInfo).flatMap(_.stageIds.toSeq)
      .flatMap(tracker.getStageInfo).map(_.numTasks).sum
  }

  test("an absent key reads no file, in the one task that would read files changed since; the last pruning says why") {
    def absent = spark.read.parquet(table).where(col("k") === 123456789L || col("s").isin("v-x", "v-y"))
    val df = absent
    assert(tasksOf(assert(df.collect().isEmpty)) == 1)
    assert(df.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s.metrics("numFiles").value }
        .contains(0L))
    assert(ScanPruning.readsNoTable(df), df.queryExecution.executedPlan)
    val last = PruningStats.last(spark).get
    assert(last.filesTotal == 8 && last.filesSkipped == 8, last)
    assert(oracle(absent).isEmpty)
  }

  test("above a scan that keeps no file, Spark's semantics: aggregates, outer joins, unions") {
    def t = spark.read.parquet(table)
    def queries: Seq[DataFrame] = Seq(
      t.where(col("k") === -1L).agg(count(lit(1)), max(col("s"))),
      t.where(col("k") === -1L).groupBy(col("s")).count(),
      t.where(col("k") === 7L).join(t.where(col("k") === -1L).select(col("k").as("k2")), col("k") === col("k2"),
        "left"),
      t.where(col("k") === 7L).join(t.where(col("k") === -1L).select(col("k").as("k2")), col("k") === col("k2")),
      t.where(col("k") === -1L).union(t.where(col("k") === 9L)),
      // a conjunct that is not judged (not deterministic) stays above the scan
      t.where(col("k") === -1L && rand() < 2.0))
    queries.indices.foreach { i =>
      assert(rows(queries(i)) == oracle(queries(i)), s"query $i")
    }
    assert(rows(queries.head) == Seq(Row("[0,null]")))
    assert(rows(queries(2)) == Seq(Row("[7,v-7,null]")))
  }

  test("each query judges its files anew, through an index of its own planned scan") {
    val df = spark.read.parquet(table).where(col("k") === 4242L)
    assert(rows(df) == Seq(Row("[4242,v-4242]")))
    val scanned = df.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s.relation.location }
    assert(scanned.exists(_.isInstanceOf[BloomPruningFileIndex]), scanned)
    val base = spark.read.parquet(table)
    def index(q: DataFrame) =
      q.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s.relation.location }.get
    assert(!(index(base.where(col("k") === 1L)) eq index(base.where(col("k") === 1L))))
    assert(!locationOf(base).isInstanceOf[BloomPruningFileIndex], "the DataFrame's own relation was changed")
  }

  private def locationOf(df: DataFrame): FileIndex = df.queryExecution.optimizedPlan.collectFirst {
    case r: LogicalRelation if r.relation.isInstanceOf[HadoopFsRelation] => r.relation.asInstanceOf[HadoopFsRelation]
  }.get.location

  test("partition values are never judged by the files' filters, even where a file holds a column of that name") {
    val base = Files.createTempDirectory("sparkbloom-empty-parts").toString
    // files under p=5 hold a column p of 3 (an int, as Spark infers the partition): Spark
    // reads p as 5, from the directory
    spark.range(0, 500, 1, 2).select(col("id").as("k"), lit(3).as("p"))
      .write.option("bloom_filter_columns", "k,p").parquet(base + "/p=5")
    spark.range(500, 1000, 1, 2).select(col("id").as("k"), lit(3).as("p"))
      .write.option("bloom_filter_columns", "k,p").parquet(base + "/p=6")
    def t = spark.read.parquet(base)
    val queries = Seq(
      t.where(col("p") === 5 && col("k") === 7L), // one row
      t.where(col("p") === 5 && col("k") === 700L), // in the other partition: no file left
      t.where(col("p") === 3 && col("k") === 7L), // 3 is in the files, not the partition value
      t.where((col("p") === 5 || col("k") === -1L) && col("k") === 8L), // mixed: not judged
      t.where(col("p") === 5 && col("k") === -1L), // absent from the partition's files
      t.where(col("P") === 5 && col("K") === 7L), // names as typed, not as in the schema
      t.where(col("P") === 6 && col("K") === 7L))
    queries.indices.foreach { i =>
      assert(rows(queries(i)) == oracle(queries(i)), s"query $i")
    }
    assert(rows(queries.head) == Seq(Row("[7,5]")) && rows(queries(3)) == Seq(Row("[8,5]")))
    assert(rows(queries(5)) == Seq(Row("[7,5]")))
    assert(ScanPruning.readsNoTable(queries(1)) && ScanPruning.readsNoTable(queries(4)))
    assert(ScanPruning.readsNoTable(queries(6)), queries(6).queryExecution.executedPlan)
    assert(!ScanPruning.readsNoTable(queries.head) && !ScanPruning.readsNoTable(queries(3)))
  }

  test("switched off or keeping all files, the scan reads; a catalog table's partitions are judged as listed") {
    def absent = spark.read.parquet(table).where(col("k") === -1L)
    withConf("spark.sparkbloom.enabled" -> "false")(assert(!ScanPruning.readsNoTable(absent)))
    withConf("spark.sparkbloom.pruning.files" -> "false")(assert(!ScanPruning.readsNoTable(absent)))
    spark.range(0, 400, 1, 4).select(col("id").as("k"), (col("id") % 2).as("part"))
      .write.partitionBy("part").option("bloom_filter_columns", "k").saveAsTable("empty_lookup_parts")
    val catalog = spark.table("empty_lookup_parts").where(col("k") === -1L)
    assert(catalog.collect().isEmpty)
    assert(ScanPruning.readsNoTable(catalog))
    val last = PruningStats.last(spark).get
    assert(last.filesSkipped == last.filesTotal && last.filesTotal > 0, last)
  }
}
