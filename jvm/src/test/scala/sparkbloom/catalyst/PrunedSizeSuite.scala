// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.io.File
import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.execution.joins.{BroadcastHashJoinExec, SortMergeJoinExec}
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, ScanPruning, SparkSessionSuite}

/**
 * Spark plans joins by the sizes of their sides. A lookup sparkbloom prunes to one file of
 * 200 must look like that file to the join planner, as a partition-pruned table does; keys
 * that arrive from a join at run time must not change any size.
 */
class PrunedSizeSuite extends AnyFunSuite with SparkSessionSuite {

  private val lookupFiles = 200

  /** 200 files of 500 rows; `uuid` has Bloom filters, and its min/max span every file, as `grp`'s do. */
  private lazy val lookup: String = {
    val path = Files.createTempDirectory("sparkbloom-sized").toString + "/lookup"
    spark.range(0, lookupFiles * 500L, 1, lookupFiles)
      .select(col("id"), md5(col("id").cast("string")).as("uuid"), (col("id") % 3).as("grp"))
      .write.option("bloom_filter_columns", "uuid").parquet(path)
    path
  }

  /** A table to join the lookup to, above the broadcast threshold (20 files the size of the lookup's). */
  private lazy val orders: String = {
    val path = Files.createTempDirectory("sparkbloom-sized").toString + "/orders"
    spark.range(0, 20 * 500L, 1, 20)
      .select(col("id"), concat(lit("order-"), md5(col("id").cast("string"))).as("note"), (col("id") % 13).as("qty"))
      .write.parquet(path)
    path
  }

  private def bytes(dir: String): Seq[Long] = ParquetFiles.dataFiles(dir).map(_.length())

  /** Broadcast only what is at most four lookup files: less than either table, more than the one file kept. */
  private lazy val threshold: Long = {
    val fileSize = bytes(lookup).max
    assert(bytes(lookup).size == lookupFiles && 4 * fileSize < bytes(orders).sum && 4 * fileSize < bytes(lookup).sum)
    4 * fileSize
  }

  private def uuidOf(id: Long): String = {
    val digest = java.security.MessageDigest.getInstance("MD5").digest(id.toString.getBytes("UTF-8"))
    digest.map(b => f"$b%02x").mkString
  }

  private def lookupJoin(): DataFrame =
    spark.read.parquet(lookup).where(col("uuid") === uuidOf(1234)).join(spark.read.parquet(orders), "id")

  /** The join Spark planned before adaptive execution could change it. */
  private def joinOf(df: DataFrame): SparkPlan = df.queryExecution.sparkPlan.collectFirst {
    case j: BroadcastHashJoinExec => j
    case j: SortMergeJoinExec => j
  }.getOrElse(fail(s"no join in ${df.queryExecution.sparkPlan}"))

  private def settings(v2: Boolean): Seq[(String, String)] =
    Seq("spark.sql.autoBroadcastJoinThreshold" -> threshold.toString) ++
      (if (v2) Seq("spark.sql.sources.useV1SourceList" -> "") else Nil)

  private def rows(df: DataFrame): Seq[Row] = df.collect().toSeq.sortBy(_.toString)

  for (v2 <- Seq(false, true)) {
    val reader = if (v2) "DataSource V2" else "DataSource V1"
    test(s"a lookup that keeps 1 of 200 files is broadcast to a join; without sparkbloom it is sort-merged ($reader)") {
      withConf(settings(v2): _*) {
        val df = lookupJoin()
        joinOf(df) match {
          case j: BroadcastHashJoinExec =>
            // the lookup is the join's left side: it is the one broadcast
            assert(j.buildSide == org.apache.spark.sql.catalyst.optimizer.BuildLeft, j)
          case other => fail(s"planned as ${other.nodeName}, not a broadcast of the lookup:\n$other")
        }
        val got = rows(df)
        assert(got.size == 1 && got.head.getLong(0) == 1234L, got)
        val pruning = ScanPruning.of(df).filter(_.filesTotal == lookupFiles)
        assert(pruning.nonEmpty && pruning.forall(_.filesSkipped == lookupFiles - 1), pruning)
        withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
          val plain = lookupJoin()
          assert(joinOf(plain).isInstanceOf[SortMergeJoinExec], plain.queryExecution.sparkPlan)
          assert(rows(plain) == got)
        }
      }
    }
  }

  test("a table's catalog statistics are replaced by the kept size, as Spark does after partition pruning") {
    withConf(settings(v2 = false): _*) {
      spark.sql(s"CREATE TABLE sized_lookup USING parquet LOCATION '${new File(lookup).toURI}'")
      try {
        spark.sql("ANALYZE TABLE sized_lookup COMPUTE STATISTICS")
        val df = spark.table("sized_lookup").where(col("uuid") === uuidOf(1234)).join(spark.read.parquet(orders), "id")
        assert(joinOf(df).isInstanceOf[BroadcastHashJoinExec], df.queryExecution.sparkPlan)
        val relation = df.queryExecution.optimizedPlan.collectFirst {
          case r: LogicalRelation if r.catalogTable.isDefined => r
        }.get
        assert(relation.stats.sizeInBytes <= threshold, relation.stats)
        assert(rows(df).map(_.getLong(0)) == Seq(1234L))
      } finally spark.sql("DROP TABLE sized_lookup")
    }
  }

  /** The size the optimizer gave the lookup relation in `plan`, computed now. */
  private def lookupSize(plan: LogicalPlan): BigInt = {
    plan.foreach(_.invalidateStatsCache())
    plan.collectFirst {
      case r: LogicalRelation
          if r.relation.isInstanceOf[HadoopFsRelation] &&
            r.relation.asInstanceOf[HadoopFsRelation].location.rootPaths.exists(_.getName == "lookup") =>
        r.stats.sizeInBytes
      case r: DataSourceV2ScanRelation if r.scan.isInstanceOf[BloomParquetScan] => r.stats.sizeInBytes
    }.getOrElse(fail(s"no lookup relation sparkbloom judged in $plan"))
  }

  for (v2 <- Seq(false, true)) {
    val reader = if (v2) "DataSource V2" else "DataSource V1"
    test(s"keys a join brings at run time prune files but leave the lookup's size as planned ($reader)") {
      withConf("spark.sql.autoBroadcastJoinThreshold" -> (10L << 20).toString,
        "spark.sql.sources.useV1SourceList" -> (if (v2) "" else "parquet")) {
        val keys = spark.createDataFrame(Seq(Tuple1(uuidOf(77)), Tuple1(uuidOf(31337)))).toDF("uuid")
        // `grp` is in every file: judged while planning, it keeps them all; the keys keep 2
        val df = spark.read.parquet(lookup).where(col("grp").isin(0, 1, 2)).join(keys, "uuid")
        val plan = df.queryExecution.optimizedPlan
        val planned = lookupSize(plan)
        if (!v2) assert(planned == bytes(lookup).sum, s"the lookup is sized $planned before any key is known")
        assert(rows(df).map(_.getLong(1)).sorted == Seq(77L, 31337L))
        val pruning = ScanPruning.of(df).filter(_.filesTotal == lookupFiles)
        assert(pruning.nonEmpty && pruning.forall(p => p.joinKeys == 2 && p.filesSkipped == lookupFiles - 2), pruning)
        assert(lookupSize(plan) == planned, "sized again after the keys pruned 198 files")
        assert(rows(df).size == 2)
        assert(lookupSize(plan) == planned, "sized again after a second execution")
      }
    }
  }
}
