// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.nio.file.Files

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.FileSourceStrategy
import org.apache.spark.sql.functions._
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.commands.TableFunctions
import sparkbloom.errors.SparkBloomException
import sparkbloom.read.{ProbeCache, PruningStats}

/**
 * `spark.sql.extensions=sparkbloom.SparkBloomExtensions` does what [[SparkBloomExtensions]]
 * injects, each injection seen by what it does: filters written (read back with parquet-java),
 * lookups pruned while planning (V1 and V2 scans, scans another strategy planned, join keys),
 * Spark's cache commands reaching sparkbloom's cache, the settings typed, the table functions
 * answering. A session without the extension, started first on the same data, does none of it.
 * Not here: DeltaWriteRule (Delta is not on this build's test class path), and the settings'
 * absence without the extension (their registration is the JVM's, kept by any earlier suite).
 *
 * The suite starts its own sessions (one Spark context at a time): the bare one, stopped,
 * then the one with the extension.
 */
class ExtensionLoadsSuite extends AnyFunSuite with BeforeAndAfterAll {

  private val FileCount = 10
  private val Rows = 20000L

  private def newSession(extension: Boolean): SparkSession = {
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
    val builder = SparkSession.builder()
      .master("local[2]")
      .appName(getClass.getSimpleName + (if (extension) "" else "-bare"))
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.sql.warehouse.dir", Files.createTempDirectory("sparkbloom-warehouse").toString)
    if (extension) builder.config("spark.sql.extensions", SparkBloom.ExtensionClass)
    builder.getOrCreate()
  }

  @transient private var sessionOrNull: SparkSession = _

  /** The session with the extension, started after the bare one has stopped. */
  private def spark: SparkSession = {
    if (sessionOrNull == null) sessionOrNull = newSession(extension = true)
    sessionOrNull
  }

  override protected def afterAll(): Unit = {
    try if (sessionOrNull != null) sessionOrNull.stop()
    finally super.afterAll()
  }

  private def tempPath(): String = {
    val dir = Files.createTempDirectory("sparkbloom-extension").toFile
    dir.delete()
    dir.getPath
  }

  /** 20,000 events in 10 files; user_id a permutation of 0..19999, so every file spans the range. */
  private def writeEvents(session: SparkSession, path: String): Unit =
    session.range(0, Rows, 1, FileCount)
      .select((col("id") * 7919 % Rows).as("user_id"))
      .select(col("user_id"), concat(lit("user"), col("user_id"), lit("@example.com")).as("email"))
      .write.option("bloom_filter_columns", "user_id,email").parquet(path)

  private def lookup(session: SparkSession, path: String, email: String): DataFrame =
    session.read.parquet(path).where(col("email") === email)

  /** The files holding rows of `df`, counted with sparkbloom off: what a lookup must keep. */
  private def filesHolding(df: DataFrame): Long = withConf("spark.sparkbloom.enabled" -> "false") {
    df.select(input_file_name()).distinct().count()
  }

  private def withConf[T](settings: (String, String)*)(body: => T): T = {
    settings.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally settings.foreach { case (k, _) => spark.conf.unset(k) }
  }

  private def prunedTo(df: DataFrame, rows: Long, kept: Long): PruningStats = {
    assert(df.collect().length == rows)
    val stats = ScanPruning.of(df)
    assert(stats.size == 1, stats)
    val s = stats.head
    assert(s.filesTotal == FileCount, s)
    assert(s.filesTotal - s.filesSkipped == kept, s)
    s
  }

  /**
   * Whether `name()` is a table function of the session: it runs, or refuses its missing
   * arguments as sparkbloom does (an unknown function fails in Spark's analyzer instead).
   */
  private def answers(session: SparkSession, name: String): Boolean =
    try {
      session.sql(s"SELECT * FROM $name()").collect()
      true
    } catch {
      case e: Exception => Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
          .exists(_.isInstanceOf[SparkBloomException])
    }

  private def filterChunks(path: String): Seq[ParquetFiles.Chunk] =
    ParquetFiles.dataFiles(path).flatMap(ParquetFiles.chunks).filter(c => Set("user_id", "email")(c.path))

  test("without the extension: no filters written, no pruning, no table functions, no cache hooks") {
    val bare = newSession(extension = false)
    try {
      assert(!bare.conf.getOption("spark.sql.extensions").contains(SparkBloom.ExtensionClass))
      val path = tempPath()
      writeEvents(bare, path)
      val chunks = filterChunks(path)
      assert(chunks.nonEmpty && chunks.forall(_.filter.isEmpty), "bloom_filter_columns is no option of Spark's")

      val found = lookup(bare, path, "user4242@example.com")
      assert(found.count() == 1)
      assert(ScanPruning.of(found).isEmpty)
      assert(!found.queryExecution.executedPlan.toString.contains("BloomPruning"))

      val e = intercept[Exception](bare.sql("SELECT * FROM sparkbloom_version()").collect())
      assert(e.getMessage.contains("sparkbloom_version"), e.getMessage)
      TableFunctions.all.foreach { case (name, _, _) => assert(!answers(bare, name.funcName), name) }
      // A column that is not in the table is nothing to a session that does not read the option.
      bare.sql("CREATE TABLE bad (k BIGINT) USING parquet TBLPROPERTIES (bloom_filter_columns 'nope')")

      val invalidations = ProbeCache.shared.invalidations
      bare.sql(s"REFRESH '$path'")
      assert(ProbeCache.shared.invalidations == invalidations)
    } finally bare.stop()
  }

  test("the extension is the session's") {
    assert(spark.conf.get("spark.sql.extensions") == SparkBloom.ExtensionClass)
  }

  test("BloomWriteRule: bloom_filter_* options write filters parquet-java reads, holding every value") {
    val path = tempPath()
    writeEvents(spark, path)
    assert(ParquetFiles.dataFiles(path).size == FileCount)
    for (file <- ParquetFiles.dataFiles(path)) {
      val chunks = ParquetFiles.chunks(file).filter(_.path == "user_id")
      assert(chunks.nonEmpty && chunks.forall(_.filter.isDefined), file)
      val ids = spark.read.parquet(file.getPath).collect().map(_.getLong(0))
      // parquet-java's own hash: the filters are the format's, not only sparkbloom's
      ids.foreach(id => assert(chunks.exists(_.filter.get.findHash(chunks.head.filter.get.hash(id))), s"$file $id"))
    }
    // and through the catalog: TBLPROPERTIES, INSERT
    spark.sql("CREATE TABLE events (user_id BIGINT, email STRING) USING parquet " +
      "TBLPROPERTIES (bloom_filter_columns 'email')")
    spark.sql(s"INSERT INTO events SELECT * FROM parquet.`$path`")
    val location = spark.sessionState.catalog.getTableMetadata(
      spark.sessionState.sqlParser.parseTableIdentifier("events")).location.getPath
    val emails = ParquetFiles.dataFiles(location).flatMap(ParquetFiles.chunks).filter(_.path == "email")
    assert(emails.nonEmpty && emails.forall(_.filter.isDefined))
    // a bad option fails the CREATE, not the first INSERT after it
    val e = intercept[Exception](
      spark.sql("CREATE TABLE bad (k BIGINT) USING parquet TBLPROPERTIES (bloom_filter_columns 'nope')"))
    assert(e.getMessage.contains("nope"), e.getMessage)
    assert(!spark.catalog.tableExists("bad"))
  }

  private lazy val events: String = {
    val path = tempPath()
    writeEvents(spark, path)
    path
  }

  test(
    "PruneFilesByBloomFilters, ScanPruningRule: point lookups are pruned to the files that hold their rows, V1 and V2 scans") {
    for (v1 <- Seq("parquet", "")) withConf("spark.sql.sources.useV1SourceList" -> v1) {
      val present = lookup(spark, events, "user4242@example.com")
      if (v1.nonEmpty) assert(present.queryExecution.executedPlan.toString.contains("BloomPruning"))
      prunedTo(present, rows = 1, kept = 1)
      prunedTo(spark.read.parquet(events).where(col("user_id") === -1), rows = 0, kept = 0)
      val five = spark.read.parquet(events).where(col("user_id").isin(1, 22, 333, 4444, 15555))
      prunedTo(five, rows = 5, kept = filesHolding(five))
      // the master switch: off, the scan is Spark's
      withConf("spark.sparkbloom.enabled" -> "false") {
        assert(ScanPruning.of(lookup(spark, events, "user4242@example.com")).isEmpty)
      }
    }
  }

  test("ScanPruningRule: a scan another strategy planned first is pruned too, adaptive or not") {
    val experimental = spark.sessionState.experimentalMethods
    experimental.extraStrategies = Seq(FileSourceStrategy)
    try {
      for (adaptive <- Seq("true", "false")) withConf("spark.sql.adaptive.enabled" -> adaptive) {
        val present = lookup(spark, events, "user4242@example.com")
        assert(present.queryExecution.executedPlan.toString.contains("BloomPruning"), adaptive)
        prunedTo(present, rows = 1, kept = 1)
      }
    } finally experimental.extraStrategies = Nil
  }

  test("JoinKeysStrategy: a broadcast join's keys prune the Parquet side's files at run time") {
    val keys = spark.createDataFrame(Seq((4242L, "a"), (77L, "b"), (15555L, "c"))).toDF("user_id", "tag")
    val joined = spark.read.parquet(events).join(broadcast(keys), "user_id")
    val expected = withConf("spark.sparkbloom.enabled" -> "false")(joined.collect().map(_.toString).sorted.toSeq)
    assert(expected.size == 3)
    val df = spark.read.parquet(events).join(broadcast(keys), "user_id")
    assert(df.collect().map(_.toString).sorted.toSeq == expected)
    val scans = ScanPruning.of(df).filter(_.joinKeys > 0)
    assert(scans.size == 1, ScanPruning.of(df))
    assert(scans.head.joinKeys == 3, scans.head)
    val holding = filesHolding(spark.read.parquet(events).where(col("user_id").isin(4242L, 77L, 15555L)))
    assert(scans.head.filesTotal - scans.head.filesSkipped == holding, scans.head)
  }

  test("BloomCacheInvalidation: REFRESH of a path and REFRESH TABLE reach sparkbloom's cache") {
    lookup(spark, events, "user4242@example.com").collect()
    val before = ProbeCache.shared.invalidations
    spark.sql(s"REFRESH '$events'")
    assert(ProbeCache.shared.invalidations == before + 1)
    spark.sql(s"CREATE TABLE refreshed USING parquet LOCATION '$events'")
    spark.sql("REFRESH TABLE refreshed")
    assert(ProbeCache.shared.invalidations == before + 2)
  }

  // Spark's plan for CLEAR CACHE is one object that is analyzed once per JVM: every run must
  // still reach the cache, not only the first (another suite may have run it already).
  test("ClearCacheStrategy: every CLEAR CACHE empties sparkbloom's cache, not only the JVM's first") {
    for (_ <- 1 to 3) {
      lookup(spark, events, "user4242@example.com").collect()
      val before = ProbeCache.shared.invalidations
      spark.sql("CLEAR CACHE")
      assert(ProbeCache.shared.invalidations == before + 1)
      assert(ProbeCache.shared.sizeInBytes == 0)
    }
  }

  test("SparkBloomConf: spark.sparkbloom.* settings are typed Spark settings") {
    val e = intercept[Exception](spark.conf.set("spark.sparkbloom.enabled", "banana"))
    assert(e.getMessage.contains("spark.sparkbloom.enabled"), e.getMessage)
    val listed = spark.sql("SET -v").collect().map(_.getString(0)).toSet
    assert(listed.contains("spark.sparkbloom.enabled") && listed.contains("spark.sparkbloom.write.fpp"))
  }

  test("table functions: every one registered, and each answers") {
    TableFunctions.all.foreach { case (name, _, _) => assert(answers(spark, name.funcName), name) }
    val version = spark.sql("SELECT * FROM sparkbloom_version()").head()
    assert(version.getString(0) == SparkBloom.version && version.getString(1) == SparkBloom.sparkLine)

    val inspected = spark.sql(s"SELECT * FROM sparkbloom_inspect('$events', 'user_id')")
    assert(inspected.count() == filterChunks(events).count(_.path == "user_id"))
    assert(inspected.where("has_filter").count() == inspected.count())

    val probed = spark.sql(s"SELECT * FROM sparkbloom_probe('$events', 'user_id', 4242, -1)")
    assert(probed.where("value = '4242' AND might_contain").count() == 1)
    assert(probed.where("value = '-1' AND might_contain").count() == 0)

    prunedTo(lookup(spark, events, "user4242@example.com"), rows = 1, kept = 1)
    val last = spark.sql("SELECT * FROM sparkbloom_last_pruning()").head()
    assert(last.getAs[Long]("files_total") == FileCount && last.getAs[Long]("files_skipped") == FileCount - 1)

    val built = spark.sql(s"SELECT * FROM sparkbloom_build_index('$events', 'user_id')").head()
    assert(built.getAs[Int]("files_indexed") == FileCount)
    val described = spark.sql(s"SELECT * FROM sparkbloom_describe_index('$events')").head()
    assert(described.getAs[scala.collection.Seq[String]]("columns").toList == List("user_id"))
    prunedTo(spark.read.parquet(events).where(col("user_id") === 4242), rows = 1, kept = 1)
    assert(
      spark.sql("SELECT * FROM sparkbloom_last_pruning()").head().getAs[Long]("files_covered_by_index") == FileCount)
    assert(spark.sql(s"SELECT * FROM sparkbloom_drop_index('$events')").head().getAs[Boolean]("dropped"))
  }
}
