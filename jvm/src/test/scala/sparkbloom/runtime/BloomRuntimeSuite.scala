// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.runtime

import java.nio.file.Files
import java.util.concurrent.ThreadPoolExecutor

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{SparkBloom, SparkSessionSuite}
import sparkbloom.index.TableIndex
import sparkbloom.read.{ProbeCache, PruningStats}

/**
 * One runtime per application holds every cache and pool, sized once from the
 * application's settings: sessions with other settings share it without resizing it, each
 * part stays within its bound, and Spark's cache commands reach all of it.
 */
class BloomRuntimeSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sparkbloom.cache.maxBytes" -> (1L << 20).toString,
    "spark.sparkbloom.pruning.parallelism" -> "3",
    "spark.sparkbloom.index.maxLoaded" -> "2")

  /** A table of 6 files with filters on `k`, whose min/max span every file. */
  private def table(name: String): String = {
    val path = Files.createTempDirectory("sparkbloom-runtime").toString + "/" + name
    spark.range(0, 6000, 1, 6).select((col("id") * 7919 % 6000).as("k"), col("id").as("v"))
      .write.option("bloom_filter_columns", "k").parquet(path)
    agedForTheCache(path)
  }

  /** Files modified under a minute ago are read, never cached: these are made older. */
  private def agedForTheCache(path: String): String = {
    sparkbloom.ParquetFiles.dataFiles(path).foreach(f =>
      assert(f.setLastModified(System.currentTimeMillis() - 3600000)))
    path
  }

  private lazy val tables: Seq[String] = Seq("a", "b", "c").map(table)

  private def lookup(session: SparkSession, path: String): DataFrame =
    session.read.parquet(path).where(col("k") === 4242L)

  private def runtime: BloomRuntime = BloomRuntime.of(spark.sparkContext)

  private def probeThreads: Int =
    Thread.getAllStackTraces.keySet.asScala.count(_.getName.startsWith("sparkbloom-probe"))

  test("the runtime is sized from the application's settings; a session's settings do not resize it") {
    assert(runtime.settings == RuntimeSettings(cacheMaxBytes = 1L << 20, parallelism = 3, maxLoadedIndexes = 2))
    val cache = runtime(ProbeCache)
    val pool = runtime.probePool
    assert(lookup(spark, tables.head).count() == 1)
    val other = spark.newSession()
    other.conf.set("spark.sparkbloom.cache.maxBytes", "5000")
    other.conf.set("spark.sparkbloom.pruning.parallelism", "7")
    tables.foreach(t => assert(lookup(other, t).count() == 1))
    assert(PruningStats.last(other).exists(_.filesSkipped == 5), PruningStats.last(other))
    assert(runtime(ProbeCache) eq cache)
    assert(cache.capacity == (1L << 20) && cache.sizeInBytes > 5000, "the other session's budget did not shrink it")
    assert(runtime.probePool eq pool)
    assert(pool.asInstanceOf[ThreadPoolExecutor].getMaximumPoolSize == 3)
    assert(probeThreads <= 3, s"$probeThreads probe threads")
  }

  test("a session that sets the cache to 0 neither reads nor fills it, and still prunes") {
    runtime.clear()
    val uncached = spark.newSession()
    uncached.conf.set("spark.sparkbloom.cache.maxBytes", "0")
    tables.foreach(t => assert(lookup(uncached, t).collect().map(_.getLong(1)).toSeq == Seq(idOf(4242))))
    assert(PruningStats.last(uncached).exists(s => s.filesSkipped == 5 && s.filterBytesRead > 0))
    assert(runtime(ProbeCache).sizeInBytes == 0)
    assert(lookup(spark, tables.head).count() == 1)
    assert(runtime(ProbeCache).sizeInBytes > 0, "the other sessions still fill it")
  }

  /** The `id` whose `k` is `k`: k = id * 7919 mod 6000, and 7919 is prime to 6000. */
  private def idOf(k: Long): Long = (0L until 6000L).find(id => id * 7919 % 6000 == k).get

  test("loaded table indexes are bounded; CLEAR CACHE and REFRESH drop them with the footers and filters") {
    withConf("spark.sparkbloom.enabled" -> "true") {
      tables.foreach(t => spark.sql(s"SELECT * FROM sparkbloom_build_index('$t', 'k')").collect())
      tables.foreach(t => assert(lookup(spark, t).count() == 1))
      assert(PruningStats.last(spark).exists(_.filesCoveredByIndex == 6), PruningStats.last(spark))
      val loaded = runtime(TableIndex.Loaded)
      assert(loaded.size == 2, "at most spark.sparkbloom.index.maxLoaded indexes stay loaded")
      spark.sql("CLEAR CACHE")
      assert(loaded.size == 0 && runtime(ProbeCache).sizeInBytes == 0)
      assert(lookup(spark, tables.head).count() == 1)
      assert(loaded.size == 1)
      spark.sql(s"REFRESH '${tables(1)}'")
      assert(loaded.size == 1, "REFRESH of another path keeps it")
      spark.sql(s"REFRESH '${tables.head}'")
      assert(loaded.size == 0)
    }
  }

  test("tasks use the runtime of the JVM they run in: in local mode, the driver's") {
    val driver = System.identityHashCode(runtime)
    val seen = spark.sparkContext.parallelize(1 to 4, 4).map(_ => System.identityHashCode(BloomRuntime.get)).collect()
    assert(seen.toSet == Set(driver))
  }
}

/** The end of an application closes its runtime; the next SparkContext in the JVM gets a new one. */
class RuntimeLifecycleSuite extends AnyFunSuite {

  private def session(): SparkSession = SparkSession.builder().master("local[2]").appName("RuntimeLifecycleSuite")
    .config("spark.ui.enabled", "false").config("spark.sql.extensions", SparkBloom.ExtensionClass).getOrCreate()

  test("stopping the SparkContext shuts the runtime's threads down and lets go of its caches") {
    val first = session()
    val path = Files.createTempDirectory("sparkbloom-lifecycle").toString + "/t"
    val (used, cache) =
      try {
        first.range(0, 4000, 1, 4).write.option("bloom_filter_columns", "id").parquet(path)
        sparkbloom.ParquetFiles.dataFiles(path).foreach(_.setLastModified(System.currentTimeMillis() - 3600000))
        assert(first.read.parquet(path).where(col("id") === 77L).count() == 1)
        val runtime = BloomRuntime.of(first.sparkContext)
        assert(runtime(ProbeCache).sizeInBytes > 0)
        (runtime, runtime(ProbeCache))
      } finally first.stop()
    assert(used.isClosed && used.probePool.isShutdown && used.background.isShutdown)
    assert(cache.sizeInBytes == 0, "a closed runtime's parts let go of what they held")
    val second = session()
    try {
      val fresh = BloomRuntime.of(second.sparkContext)
      assert(!(fresh eq used) && !fresh.isClosed)
      assert(second.read.parquet(path).where(col("id") === 77L).count() == 1)
      assert(fresh(ProbeCache).sizeInBytes > 0)
    } finally second.stop()
  }
}
