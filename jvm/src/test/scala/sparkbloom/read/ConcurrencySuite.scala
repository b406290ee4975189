// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files
import java.util.concurrent.{Callable, Executors}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.SparkSessionSuite

/** Many queries at once in one session share the driver's cache safely. */
class ConcurrencySuite extends AnyFunSuite with SparkSessionSuite {

  test("concurrent point queries all return their rows") {
    val path = Files.createTempDirectory("sparkbloom-concurrent").toString + "/t"
    spark.range(0, 20000, 1, 10).select(col("id").as("k"), concat(lit("s"), col("id")).as("s"))
      .repartition(10, rand(9)).write.option("bloom_filter_columns", "k,s").parquet(path)
    // old enough to be cached (files modified in the last seconds are read, not cached),
    // so the concurrent queries really share cache entries
    sparkbloom.ParquetFiles.dataFiles(path).foreach(_.setLastModified(System.currentTimeMillis() - 60000))
    ProbeCache.shared.clear()
    val pool = Executors.newFixedThreadPool(8)
    try {
      val tasks = (0 until 48).map { i =>
        new Callable[(Int, Long, Long)] {
          def call(): (Int, Long, Long) = {
            val key = (i * 397L) % 40000 // half present, half absent
            val byKey = spark.read.parquet(path).where(col("k") === key).count()
            val byString = spark.read.parquet(path).where(col("s") === s"s$key").count()
            (i, byKey, byString)
          }
        }
      }
      for (f <- pool.invokeAll(tasks.asJava).asScala) {
        val (i, byKey, byString) = f.get()
        val expected = if ((i * 397L) % 40000 < 20000) 1L else 0L
        assert(byKey == expected && byString == expected, s"query $i")
      }
    } finally pool.shutdown()
    assert(ProbeCache.shared.sizeInBytes > 0)
  }

  test("the cache stays within its byte budget") {
    val cache = new ProbeCache(10000)
    (0 until 1000).foreach { i =>
      cache.filter(FileKey(s"f$i", 1, 1), 0, "c")(FilterLookup.Broken("x" * 50))
    }
    assert(cache.sizeInBytes <= 10000 && cache.sizeInBytes > 5000)
  }

  test("an executor's cache drops everything once the driver's was invalidated") {
    val driver = new ProbeCache(1 << 20)
    val executor = new ProbeCache(1 << 20)
    var loads = 0
    def lookUp(): Unit = executor.filter(FileKey("f", 1, 1), 0, "c") { loads += 1; FilterLookup.Missing }
    def followAndLookUp(): Unit = { executor.followDriver(driver.invalidations); lookUp() }
    followAndLookUp()
    followAndLookUp()
    assert(loads == 1, "no invalidation: the executor keeps its entries")
    driver.invalidate("/some/table")
    followAndLookUp()
    followAndLookUp()
    assert(loads == 2, "one invalidation on the driver: the executor reads once more, then keeps it")
    driver.clear()
    followAndLookUp()
    assert(loads == 3)
  }
}
