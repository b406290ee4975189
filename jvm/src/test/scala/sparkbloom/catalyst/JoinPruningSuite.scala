package sparkbloom.catalyst

import java.nio.file.Files

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ScanPruning, SparkSessionSuite}
import sparkbloom.read.PruningStats

/**
 * Keys from the other side of a join, or of an `IN`/`EXISTS` subquery, prune the Parquet
 * side's files and row groups at run time. Every query is also run with sparkbloom off and
 * Parquet pushdown off, and must return the same rows.
 */
class JoinPruningSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] = Map("spark.sql.shuffle.partitions" -> "4")

  /** 40,000 rows in 20 files of ~10 row groups, ids shuffled so min/max cannot prune. */
  private lazy val fact: String = {
    val path = Files.createTempDirectory("sparkbloom-join").toString + "/fact"
    spark.range(0, 40000, 1, 20)
      .select(col("id").as("user_id"), concat(lit("u-"), col("id")).as("email"), (col("id") % 7).as("bucket"))
      .orderBy(rand(3)).repartition(20)
      .write.option("bloom_filter_columns", "user_id,email").option("parquet.block.size", 16 * 1024)
      .parquet(path)
    path
  }

  /** 1,000 keys, 20 of them in segment 'a' (all present in the fact table), the rest spread. */
  private lazy val dim: String = {
    val path = Files.createTempDirectory("sparkbloom-join").toString + "/dim"
    spark.range(0, 1000, 1, 1)
      .select((col("id") * 37 + 11).as("user_id"), concat(lit("u-"), col("id") * 37 + 11).as("email"),
        when(col("id") < 20, lit("a")).otherwise(lit("b")).as("segment"))
      .write.parquet(path)
    path
  }

  private def withConf[T](conf: (String, String)*)(body: => T): T = {
    conf.foreach { case (k, v) => spark.conf.set(k, v) }
    try body finally conf.foreach { case (k, _) => spark.conf.unset(k) }
  }

  private def views(): Unit = {
    spark.read.parquet(fact).createOrReplaceTempView("fact")
    spark.read.parquet(dim).createOrReplaceTempView("dim")
  }

  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  /** Runs `query` with sparkbloom and without (no pushdown either); returns the pruning. */
  private def checked(query: String): Seq[PruningStats] = {
    views()
    val expected = withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
      views(); rows(spark.sql(query))
    }
    views()
    val df = spark.sql(query)
    val got = rows(df)
    assert(got == expected, s"$query: ${got.size} rows with sparkbloom, ${expected.size} without")
    assert(got.nonEmpty || query.contains("absent"), s"$query returned nothing")
    ScanPruning.of(df)
  }

  private val layouts = Seq(
    "broadcast, adaptive" -> Seq("spark.sql.adaptive.enabled" -> "true"),
    "broadcast, not adaptive" -> Seq("spark.sql.adaptive.enabled" -> "false"),
    "sort-merge, adaptive" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false"),
    "sort-merge, not adaptive" -> Seq("spark.sql.adaptive.enabled" -> "false",
      "spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false"),
    "DataSource V2, broadcast, adaptive" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.sources.useV1SourceList" -> ""),
    "DataSource V2, sort-merge, not adaptive" -> Seq("spark.sql.adaptive.enabled" -> "false",
      "spark.sql.sources.useV1SourceList" -> "", "spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false"))

  private val shapes = Seq(
    "inner" -> "SELECT f.* FROM fact f JOIN dim d ON f.user_id = d.user_id WHERE d.segment = 'a'",
    "IN subquery" -> "SELECT * FROM fact WHERE email IN (SELECT email FROM dim WHERE segment = 'a')",
    "EXISTS" -> "SELECT * FROM fact f WHERE EXISTS (SELECT 1 FROM dim d WHERE d.user_id = f.user_id AND d.segment = 'a')",
    "left semi" -> "SELECT * FROM fact f LEFT SEMI JOIN (SELECT * FROM dim WHERE segment = 'a') d ON f.user_id = d.user_id",
    "right outer" -> "SELECT f.user_id, d.email FROM fact f RIGHT JOIN (SELECT * FROM dim WHERE segment = 'a') d ON f.user_id = d.user_id",
    "left outer" -> "SELECT f.user_id, d.email FROM (SELECT * FROM dim WHERE segment = 'a') d LEFT JOIN fact f ON f.user_id = d.user_id",
    "two key columns" -> ("SELECT f.* FROM fact f JOIN dim d ON f.user_id = d.user_id AND f.email = d.email " +
      "WHERE d.segment = 'a'"))

  for ((layout, conf) <- layouts; (shape, query) <- shapes) {
    // An outer join broadcasts only its non-preserved side, which here is the big one: with
    // no broadcast of the keys to reuse, the keys are only worth a subquery of their own.
    val broadcastOnly = !conf.contains("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false")
    if (broadcastOnly && shape.contains("outer")) {
      test(s"$shape, $layout: no broadcast to reuse, so the fact table is read whole, with the same rows") {
        withConf(conf: _*) {
          assert(checked(query).forall(_.joinKeys == 0))
        }
      }
    } else {
      test(s"$shape, $layout: 20 keys read at most 20 row groups plus false positives") {
        withConf(conf: _*) {
          val scans = checked(query).filter(_.joinKeys > 0)
          assert(scans.size == 1, s"one scan probes join keys: $scans")
          val s = scans.head
          assert(s.joinKeys == (if (shape == "two key columns") 40 else 20), s)
          assert(s.rowGroupsTotal == 80, s)
          assert(s.rowGroupsTotal - s.rowGroupsSkipped <= 22, s)
          assert(s.filesTotal - s.filesSkipped <= 20, s)
        }
      }
    }
  }
}
