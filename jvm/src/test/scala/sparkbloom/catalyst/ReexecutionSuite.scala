// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.io.File
import java.nio.file.{Files, StandardCopyOption}

import scala.util.{Random, Try}

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{CountingFileSystem, ParquetFiles, ScanOptionsCountingFileSystem, SparkSessionSuite}

/**
 * A Dataset executed again reads the files as they are then: Spark keeps its listing but
 * reads each file's current bytes, so sparkbloom's verdicts, made when the plan was made,
 * hold only while the files they ruled anything out of are unchanged. The differential
 * builds its queries once, collects them, changes the directory (a file appended, deleted,
 * rewritten in place with the same length, with its modification time set back or not)
 * and collects the same Datasets again, with sparkbloom on and against the oracle
 * (sparkbloom off, Parquet pushdown off). Where the oracle fails (a deleted file it still
 * lists), sparkbloom may fail too; where it answers, sparkbloom answers the same rows.
 */
class ReexecutionSuite extends AnyFunSuite with SparkSessionSuite {

  // the counting file system under countfs://, for every scan of the application
  override protected def sessionConf: Map[String, String] = Map(
    "spark.hadoop.fs.countfs.impl" -> classOf[CountingFileSystem].getName,
    "spark.hadoop.fs.countfs.impl.disable.cache" -> "true")

  private val rowsPerFile = 40

  /** One file of `keys` (exactly `rowsPerFile`, distinct): fixed-width values, filters sized
   *  by their count, no dictionary, compression or page checksums (a varint), so every such
   *  file has the same length and a rewrite can keep it. */
  private def fileOf(keys: Seq[Long]): File = {
    require(keys.size == rowsPerFile)
    val dir = Files.createTempDirectory("sparkbloom-reexec-one").toString + "/f"
    spark.createDataFrame(keys.map(Tuple1(_))).toDF("k").coalesce(1).select(col("k"),
      format_string("v-%012d", col("k")).as("s"))
      .write.option("bloom_filter_columns", "k,s").option("bloom_filter_exact_size", "true")
      .option("compression", "uncompressed")
      .option("parquet.enable.dictionary", "false").option("parquet.page.write-checksum.enabled", "false")
      // row groups of about ten rows, so that small splits leave some without a row group to read
      .option("parquet.block.size", "256").option("parquet.block.size.row.check.min", "5")
      .option("parquet.block.size.row.check.max", "5")
      .parquet(dir)
    ParquetFiles.dataFiles(dir).head
  }

  private def distinct(random: Random, from: Long): Seq[Long] =
    Seq.fill(rowsPerFile * 2)(from + random.nextInt(1000000)).distinct.take(rowsPerFile)

  private def place(file: File, target: File): Unit =
    Files.copy(file.toPath, target.toPath, StandardCopyOption.REPLACE_EXISTING)

  /** The calls that reach a counting file system while `body` runs ([[CountingFileSystem]]). */
  private def calls(body: => Unit): Long = {
    val before = CountingFileSystem.calls.get()
    body
    CountingFileSystem.calls.get() - before
  }

  private def rows(df: DataFrame): Try[Seq[String]] = Try(df.collect().toSeq.map(_.toString).sorted)

  private val oracleConf = Seq("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false")

  private def lookups(keys: Seq[Long]): Seq[Column] = {
    def s(k: Long) = f"v-$k%012d"
    Seq(
      col("k") === keys(0),
      col("k").isin(keys.take(3): _*),
      col("k") <=> keys(1),
      col("s") === s(keys(2)),
      col("s").isin(keys.drop(1).take(4).map(s): _*),
      col("k").isin(keys(0), keys(3)) && col("s") =!= "x")
  }

  private val changes = Seq("rewritten, time set back", "rewritten", "appended", "deleted")

  private def trial(seed: Int, change: String, v2: Boolean, smallSplits: Boolean = false): Unit =
    withConf((if (smallSplits) Seq("spark.sql.files.maxPartitionBytes" -> "700",
                "spark.sql.files.openCostInBytes" -> "0")
              else Nil): _*)(trialWithSplits(seed, change, v2))

  private def trialWithSplits(seed: Int, change: String, v2: Boolean): Unit = {
    val random = new Random(seed)
    val dir = Files.createTempDirectory("sparkbloom-reexec").toFile
    val held = (0 until 4).map(i => distinct(random, 1000000L * (i + 1)))
    val files = held.indices.map { i =>
      val target = new File(dir, f"part-$i%02d.parquet")
      place(fileOf(held(i)), target)
      target
    }
    val anHourAgo = (System.currentTimeMillis() - 3600 * 1000) / 1000 * 1000
    files.foreach(f => assert(f.setLastModified(anHourAgo)))
    // the keys the change brings in: absent when the queries are first run
    val incoming = distinct(random, 9000000L)
    val present = Seq.fill(2)(held(random.nextInt(held.size))(random.nextInt(rowsPerFile)))
    val keys = random.shuffle(incoming.take(3) ++ present)
    val reader = if (v2) Seq("spark.sql.sources.useV1SourceList" -> "") else Nil
    def queries: Seq[DataFrame] = withConf(reader: _*)(lookups(keys).map(spark.read.parquet(dir.toString).where(_)))
    val withBloom = queries
    val oracle = queries
    val before = withBloom.map(rows)
    withConf(oracleConf: _*)(oracle.map(rows)).zip(before).foreach { case (o, b) => assert(o == b) }

    val victim = files(random.nextInt(files.size))
    change match {
      case "rewritten, time set back" | "rewritten" =>
        val replacement = fileOf(incoming)
        assert(replacement.length == victim.length, "the rewrite must keep the length for this case to mean anything")
        val modified = victim.lastModified
        place(replacement, victim)
        if (change == "rewritten, time set back") assert(victim.setLastModified(modified))
      case "appended" => place(fileOf(incoming), new File(dir, "part-99.parquet"))
      case "deleted" => assert(victim.delete())
    }

    val expected = withConf(oracleConf: _*)(oracle.map(rows))
    val got = withBloom.map(rows)
    expected.zip(got).zipWithIndex.foreach { case ((o, g), i) =>
      val what = s"seed $seed, $change, ${if (v2) "V2" else "V1"}, query $i (${lookups(keys)(i)}), " +
        spark.conf.get("spark.sql.files.maxPartitionBytes")
      if (o.isSuccess) assert(g == o, what)
    }
    if (change.startsWith("rewritten")) {
      assert(expected.exists(_.toOption.exists(_.exists(_.contains(incoming.head.toString)))),
        "the oracle finds the rewritten file's keys")
    }
  }

  /** The randomized trials to run (dev/test's default tier runs fewer). */
  private val reducedTrials = sys.env.get("SPARKBLOOM_REEXEC_TRIALS").map(_.toInt)

  test("a Dataset collected again after a file was rewritten in place finds the file's new keys") {
    // each seed alternates whole and small splits: 2 seeds keep both, on V1 and V2
    val seeds = if (reducedTrials.exists(_ < 16)) 2 else 4
    Seq(false, true).foreach { v2 =>
      (0 until seeds).foreach(seed => trial(seed, "rewritten, time set back", v2, smallSplits = seed % 2 == 1))
    }
  }

  test("optimized with sparkbloom on, planned with it off: a file rewritten in place since is read") {
    val random = new Random(7)
    val dir = Files.createTempDirectory("sparkbloom-reexec-toggle").toFile
    val victim = new File(dir, "part-00.parquet")
    place(fileOf(distinct(random, 1000000L)), victim)
    place(fileOf(distinct(random, 2000000L)), new File(dir, "part-01.parquet"))
    val incoming = distinct(random, 9000000L)
    val df = spark.read.parquet(dir.toString).where(col("k") === incoming.head)
    df.queryExecution.optimizedPlan // judged: no file holds the key
    withConf("spark.sparkbloom.enabled" -> "false")(df.queryExecution.executedPlan)
    assert(rows(df).get.isEmpty)
    val replacement = fileOf(incoming)
    assert(replacement.length == victim.length)
    val modified = victim.lastModified
    place(replacement, victim)
    assert(victim.setLastModified(modified))
    assert(rows(df).get.size == 1, "the rewritten file was not read")
  }

  test("re-execution differential: files appended, deleted, rewritten in place, V1 and V2") {
    val trials = reducedTrials.getOrElse(16)
    (0 until trials).foreach { seed =>
      trial(100 + seed, changes(seed % changes.size), v2 = seed % 3 == 2, smallSplits = seed % 2 == 1)
    }
  }

  test(
    "within the execution that planned the scan no file is opened or looked at again; planned earlier, once per execution") {
    val random = new Random(7)
    val dir = Files.createTempDirectory("sparkbloom-reexec-count").toFile
    (0 until 4).foreach { i =>
      val file = new File(dir, s"part-$i.parquet")
      place(fileOf(distinct(random, 1000000L * (i + 1))), file)
      assert(file.setLastModified(System.currentTimeMillis() - 3600 * 1000)) // old enough to be cached
    }
    val counted = "countfs://" + dir.getAbsolutePath
    def absent = spark.read.parquet(counted).where(col("k") === 42L)
    absent.collect() // the cache holds the footers now
    val fresh = absent
    val opened = CountingFileSystem.driverOpens.get()
    // The listing may be older than the query: one listing of the directory confirms the files
    // (RawLocalFileSystem lists a directory as 1 call plus one per child; an object store: 1 LIST).
    assert(calls(assert(fresh.collect().isEmpty)) == 1 + 4)
    assert(CountingFileSystem.driverOpens.get() == opened, "the cache answered: no footer read again")
    val planned = absent
    planned.queryExecution.executedPlan // planned outside any execution, as EXPLAIN does
    // one listing of the directory holding the ruled-out files, in the task that holds them
    assert(calls(assert(planned.collect().isEmpty)) == 1 + 4)
    assert(calls(assert(planned.collect().isEmpty)) == 1 + 4)
  }

  test("run again, ruled-out files are looked at with the scan's own settings, in one listing per directory") {
    val random = new Random(11)
    val dir = Files.createTempDirectory("sparkbloom-reexec-options").toFile
    (0 until 6).foreach { i =>
      val file = new File(dir, s"d=${i % 2}/part-$i.parquet")
      assert(file.getParentFile.isDirectory || file.getParentFile.mkdirs())
      place(fileOf(distinct(random, 1000000L * (i + 1))), file)
      assert(file.setLastModified(System.currentTimeMillis() - 3600 * 1000))
    }
    // only this scan knows the scheme: the application's settings do not name it
    val absent = spark.read.option("fs.countopts.impl", classOf[ScanOptionsCountingFileSystem].getName)
      .option("fs.countopts.impl.disable.cache", "true")
      .parquet("countopts://" + dir.getAbsolutePath).where(col("k") === 42L)
    absent.queryExecution.executedPlan // planned outside any execution: each run looks again
    // a listing of each of the two directories (1 call plus one per child), no file opened;
    // counted on this table's files alone (an earlier test's index refresh may still be listing)
    def callsOnTable(body: => Unit): Long = {
      val before = CountingFileSystem.callsUnder(dir.getAbsolutePath)
      body
      CountingFileSystem.callsUnder(dir.getAbsolutePath) - before
    }
    assert(callsOnTable(assert(absent.collect().isEmpty)) == 2 * (1 + 3))
    assert(callsOnTable(assert(absent.collect().isEmpty)) == 2 * (1 + 3))
  }
}
