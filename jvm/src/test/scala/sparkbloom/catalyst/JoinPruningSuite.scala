// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.nio.file.Files

import scala.collection.mutable

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

  private def views(): Unit = {
    spark.read.parquet(fact).createOrReplaceTempView("fact")
    spark.read.parquet(dim).createOrReplaceTempView("dim")
  }

  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  /** The rows of `query` with sparkbloom off and Parquet pushdown off. */
  private def oracle(query: String): Seq[String] =
    withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
      views(); rows(spark.sql(query))
    }

  /**
   * The join matrix's oracle, once per query: a query's rows do not depend on how its join
   * is planned, and the matrix's tables never change.
   */
  private val matrixOracle = mutable.Map.empty[String, Seq[String]]

  /** Runs `query` with sparkbloom and without (no pushdown either); returns the pruning. */
  private def checked(query: String): Seq[PruningStats] = checkedAgainst(query, oracle(query))

  private def checkedAgainst(query: String, expected: Seq[String]): Seq[PruningStats] = {
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
    // the row-based reader: no columnar-to-row transition above the pruning node
    "row-based reader, broadcast, adaptive" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.parquet.enableVectorizedReader" -> "false"),
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

  private def matrixChecked(query: String): Seq[PruningStats] =
    checkedAgainst(query, matrixOracle.getOrElseUpdate(query, oracle(query)))

  for ((layout, conf) <- layouts; (shape, query) <- shapes) {
    // An outer join broadcasts only its non-preserved side, which here is the big one: with
    // no broadcast of the keys to reuse, the keys are only worth a subquery of their own.
    val broadcastOnly = !conf.contains("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false")
    if (broadcastOnly && shape.contains("outer")) {
      test(s"$shape, $layout: no broadcast to reuse, so the fact table is read whole, with the same rows") {
        withConf(conf: _*) {
          assert(matrixChecked(query).forall(_.joinKeys == 0))
        }
      }
    } else {
      test(s"$shape, $layout: 20 keys read at most 20 row groups plus false positives") {
        withConf(conf: _*) {
          val scans = matrixChecked(query).filter(_.joinKeys > 0)
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

  private val twentyKeys = "SELECT f.* FROM fact f JOIN dim d ON f.user_id = d.user_id WHERE d.segment = 'a'"

  private def keyedScans(query: String): Seq[PruningStats] = checked(query).filter(_.joinKeys > 0)

  test("the other side is computed once: its broadcast is reused, with and without adaptive execution") {
    for (adaptive <- Seq("true", "false")) withConf("spark.sql.adaptive.enabled" -> adaptive) {
      val rowsSeen = spark.sparkContext.longAccumulator
      spark.udf.register("seen", (_: Long) => { rowsSeen.add(1); true })
      views()
      spark.range(0, 20, 1, 1).selectExpr("id * 37 + 11 AS user_id", "id").where("seen(id)").createOrReplaceTempView(
        "keys")
      val df = spark.sql("SELECT f.* FROM fact f JOIN keys k ON f.user_id = k.user_id")
      assert(df.collect().length == 20)
      assert(ScanPruning.of(df).exists(_.joinKeys == 20))
      assert(rowsSeen.value == 20,
        s"adaptive $adaptive: the other side's 20 rows were computed ${rowsSeen.value / 20.0} times")
    }
  }

  test("EXPLAIN shows the join keys on the pruned scan; SQL metrics count them") {
    withConf("spark.sql.adaptive.enabled" -> "false") {
      views()
      val df = spark.sql(twentyKeys)
      val before = df.queryExecution.explainString(org.apache.spark.sql.execution.ExplainMode.fromString("simple"))
      assert(before.contains("BloomPruning") && before.contains("join keys: dynamicpruningexpression(user_id"), before)
      df.collect()
      val node =
        df.queryExecution.executedPlan.collectFirst { case p: BloomPruningExec if p.joinKeys.nonEmpty => p }.get
      assert(node.metrics("bloomJoinKeys").value == 20)
      assert(node.metrics("bloomFilesSkipped").value > 0)
      assert(node.simpleString(100).contains("join keys 20"), node.simpleString(100))
    }
  }

  test("toggles: join pruning off, or more keys than join.maxKeys, probe nothing and return the same rows") {
    withConf("spark.sparkbloom.join.enabled" -> "false") {
      assert(keyedScans(twentyKeys).isEmpty)
    }
    withConf("spark.sparkbloom.join.maxKeys" -> "19") {
      assert(keyedScans(twentyKeys).isEmpty)
    }
    withConf("spark.sparkbloom.join.maxKeys" -> "20") {
      assert(keyedScans(twentyKeys).map(_.joinKeys) == Seq(20))
    }
    withConf("spark.sql.optimizer.dynamicPartitionPruning.enabled" -> "false") {
      assert(keyedScans(twentyKeys).isEmpty)
    }
  }

  test("no key on the other side: an inner join reads no file of the Parquet side") {
    val s = keyedScans("SELECT f.* FROM fact f JOIN dim d ON f.user_id = d.user_id WHERE d.segment = 'absent'")
    // Spark may plan the empty side away entirely; if it does not, sparkbloom skips every file
    assert(s.forall(x => x.filesSkipped == x.filesTotal), s)
  }

  test("keys are the other side's values of the Parquet column's type; a cast Parquet column is not probed") {
    // the other side's expression is evaluated there: its values are plain bigints
    assert(keyedScans("SELECT f.* FROM fact f JOIN dim d ON f.user_id = cast(d.user_id AS int) WHERE d.segment = 'a'")
      .map(_.joinKeys) == Seq(20))
    assert(keyedScans("SELECT f.* FROM fact f JOIN dim d ON cast(f.user_id AS string) = substr(d.email, 3) " +
        "WHERE d.segment = 'a'").isEmpty)
  }

  test("files without filters are read; partitioned and catalog tables are pruned after partition pruning") {
    val root = Files.createTempDirectory("sparkbloom-join-part").toString
    // half the files with filters, half without; partitioned by bucket
    spark.read.parquet(fact).where("user_id % 2 = 0").write.partitionBy("bucket")
      .option("bloom_filter_columns", "user_id").option("parquet.block.size", 16 * 1024).parquet(root + "/p")
    spark.read.parquet(fact).where("user_id % 2 = 1").write.mode("append").partitionBy("bucket").parquet(root + "/p")
    spark.read.parquet(root + "/p").createOrReplaceTempView("parted")
    spark.sql("DROP TABLE IF EXISTS fact_table")
    spark.read.parquet(fact).write.option("bloom_filter_columns", "user_id").option("parquet.block.size", 16 * 1024)
      .saveAsTable("fact_table")
    withConf("spark.sql.adaptive.enabled" -> "false") {
      val parted = checked("SELECT p.* FROM parted p JOIN dim d ON p.user_id = d.user_id " +
        "WHERE d.segment = 'a' AND p.bucket IN (1, 2)").filter(_.joinKeys > 0)
      assert(parted.size == 1, parted)
      // partition pruning first: only buckets 1 and 2 are judged
      val all = spark.read.parquet(root + "/p").inputFiles.length
      assert(parted.head.filesTotal < all * 0.5, s"${parted.head} of $all files")
      assert(parted.head.rowGroupsSkipped > 0, parted.head)
      val table = checked(twentyKeys.replace("fact f", "fact_table f")).filter(_.joinKeys > 0)
      assert(table.size == 1 && table.head.rowGroupsSkipped > 0, table)
    }
  }

  test("a LIMIT on the other side: never computed again for keys, so not probed (the broadcast does not match)") {
    val limited = "SELECT f.* FROM fact f WHERE f.user_id IN (SELECT user_id FROM dim WHERE segment = 'b' LIMIT 20)"
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false") {
      assert(keyedScans(limited).isEmpty) // a second LIMIT 20 may pick other rows
    }
    // Spark's dynamic pruning plans the subquery's LIMIT on its own (a CollectLimit), which
    // is not the join's broadcast (a GlobalLimit under it): nothing to reuse, nothing probed.
    for (adaptive <- Seq("true", "false")) withConf("spark.sql.adaptive.enabled" -> adaptive) {
      assert(keyedScans(limited).isEmpty)
    }
  }
  test("a side that picks rows by their order is not computed again for keys: OFFSET, first, windows, subqueries") {
    spark.range(0, 100).select(col("id").as("k"), (col("id") % 7).as("g")).createOrReplaceTempView("side")
    def again(sql: String) = JoinKeysStrategy.recomputesTheSame(spark.sql(sql).queryExecution.optimizedPlan)
    assert(again("SELECT k FROM side WHERE g = 3"))
    assert(again("SELECT g, sum(k) AS k FROM side GROUP BY g"))
    Seq(
      "SELECT k FROM side LIMIT 5",
      "SELECT k FROM side OFFSET 5",
      "SELECT g, first(k) AS k FROM side GROUP BY g",
      "SELECT g, any_value(k) AS k FROM side GROUP BY g",
      "SELECT g, max_by(k, g) AS k FROM side GROUP BY g",
      "SELECT g, element_at(collect_list(k), 1) AS k FROM side GROUP BY g",
      "SELECT k, row_number() OVER (PARTITION BY g ORDER BY g) AS r FROM side",
      "SELECT k FROM side WHERE k > (SELECT k FROM side LIMIT 1)",
      "SELECT k FROM side TABLESAMPLE (50 PERCENT)"
    ).foreach(sql => assert(!again(sql), sql))
    assert(!JoinKeysStrategy.recomputesTheSame(
        spark.table("side").dropDuplicates("g").select("k").queryExecution.optimizedPlan))
  }

  test("a side whose keys another run could compute otherwise is not computed again for keys: " +
    "floating-point sums, mode, percentile_approx, a Dataset's functions (the broadcast is still reused)") {
    val session = spark
    import session.implicits._
    val keys = spark.read.parquet(dim).where("segment = 'a'").select("user_id").as[Long]
    keys.map(_ + 0).toDF("k").createOrReplaceTempView("mapped")
    keys.mapPartitions(_.map(_ + 0)).toDF("k").createOrReplaceTempView("mapped_partitions")
    val sides = Seq(
      "SELECT CAST(sum(CAST(user_id AS double)) AS bigint) AS k FROM dim WHERE segment = 'a' GROUP BY user_id",
      "SELECT CAST(avg(CAST(user_id AS double)) AS bigint) AS k FROM dim WHERE segment = 'a' GROUP BY user_id",
      "SELECT mode(user_id) AS k FROM dim WHERE segment = 'a' GROUP BY email",
      "SELECT percentile_approx(user_id, 0.5) AS k FROM dim WHERE segment = 'a' GROUP BY email",
      "SELECT k FROM mapped",
      "SELECT k FROM mapped_partitions")
    def query(side: String) = s"SELECT f.* FROM fact f JOIN ($side) d ON f.user_id = d.k"
    // the rows are the oracle's either way (keyedScans checks them)
    val recomputed = withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false") {
      sides.filter(side => keyedScans(query(side)).nonEmpty)
    }
    assert(recomputed.isEmpty, "keys from a second run of the other side")
    val fromBroadcast = withConf("spark.sql.adaptive.enabled" -> "false") {
      sides.map(side => side -> keyedScans(query(side)).map(_.joinKeys))
    }
    assert(fromBroadcast.filter(_._2 != Seq(20)).isEmpty, "the join's own keys, from its broadcast")
  }

  test("a side that every run computes alike is computed again for keys: columns, filters, joins, exact aggregates") {
    val sides = Seq(
      "SELECT d.user_id AS k FROM dim d JOIN (VALUES ('a')) AS s(segment) ON d.segment = s.segment",
      "SELECT sum(user_id) AS k FROM dim WHERE segment = 'a' GROUP BY email",
      "SELECT max(user_id) + count(*) - 1 AS k FROM dim WHERE segment = 'a' GROUP BY email",
      "SELECT min(user_id) AS k FROM dim WHERE segment = 'a' AND user_id % 2 IN (0, 1) GROUP BY email")
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false") {
      for (side <- sides) {
        val query = s"SELECT f.* FROM fact f JOIN ($side) d ON f.user_id = d.k"
        val scans = keyedScans(query).filter(_.rowGroupsTotal == 80) // the fact table's
        assert(scans.map(_.joinKeys) == Seq(20), side)
        assert(scans.head.filesSkipped > 0, side)
      }
    }
  }

  test("only what is known to give the same rows in any order is computed again for keys") {
    val session = spark
    import session.implicits._
    val side = spark.range(0, 100).select(col("id").as("k"), (col("id") % 7).as("g"))
    side.createOrReplaceTempView("side")
    spark.udf.register("plus_zero", (k: Long) => k + 0)
    def again(sql: String) = JoinKeysStrategy.recomputesTheSame(spark.sql(sql).queryExecution.optimizedPlan)
    val wronglyRefused = Seq(
      "SELECT g, count(*) AS c, count(DISTINCT k) AS d, sum(k) AS s, min(k) AS lo, max(k) AS hi FROM side GROUP BY g",
      "SELECT g, bit_or(k) AS b, bool_and(k > 3) AS a, approx_count_distinct(k) AS n FROM side GROUP BY g",
      "SELECT g, sum(CAST(k AS decimal(20, 2))) AS s, avg(CAST(k AS decimal(20, 2))) AS a FROM side GROUP BY g",
      "SELECT DISTINCT g FROM side",
      "SELECT k FROM side UNION SELECT g FROM side",
      "SELECT k FROM side INTERSECT SELECT g FROM side",
      "SELECT s.k FROM side s LEFT JOIN side t ON s.k = t.g * 2 ORDER BY s.k",
      "SELECT explode(array(k, g)) AS k FROM side",
      "SELECT /*+ REPARTITION(3) */ k FROM side WHERE k IN (SELECT max(g) FROM side)"
    ).filterNot(again)
    assert(wronglyRefused.isEmpty)
    val wronglyAccepted = Seq(
      "SELECT g, sum(CAST(k AS double)) AS s FROM side GROUP BY g",
      "SELECT g, avg(CAST(k AS float)) AS s FROM side GROUP BY g",
      "SELECT g, avg(k) AS s FROM side GROUP BY g", // Spark sums the integers in doubles
      "SELECT g, try_sum(k) AS s FROM side GROUP BY g", // null where a partial sum overflows
      "SELECT g, sum(CAST(k AS decimal(38, 0))) AS s FROM side GROUP BY g",
      "SELECT g, max(CAST(k AS double)) AS s FROM side GROUP BY g", // 0.0 or -0.0
      "SELECT CAST(g AS double) AS d, count(*) AS c FROM side GROUP BY 1",
      "SELECT g, mode(k) AS s FROM side GROUP BY g",
      "SELECT g, percentile_approx(k, 0.5) AS s FROM side GROUP BY g",
      "SELECT g, stddev(k) AS s FROM side GROUP BY g",
      "SELECT plus_zero(k) AS k FROM side",
      "SELECT k FROM side WHERE k IN (SELECT mode(k) FROM side GROUP BY g)"
    ).filter(again)
    assert(wronglyAccepted.isEmpty)
    val typed = side.select("k").as[Long]
    val typedWronglyAccepted = Seq(
      "map" -> typed.map(_ + 0),
      "mapPartitions" -> typed.mapPartitions(_.map(_ + 0)),
      "filter" -> typed.filter(_ > 3),
      "mapGroups" -> typed.groupByKey(_ % 7).mapGroups((g, ks) => g + ks.size),
      "reduceGroups" -> typed.groupByKey(_ % 7).reduceGroups(_ + _).map(_._2)
    ).collect { case (name, ds) if JoinKeysStrategy.recomputesTheSame(ds.queryExecution.optimizedPlan) => name }
    assert(typedWronglyAccepted.isEmpty)
  }
}
