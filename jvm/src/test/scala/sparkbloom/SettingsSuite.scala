// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.scalatest.funsuite.AnyFunSuite

class SettingsSuite extends AnyFunSuite with SparkSessionSuite {

  private val keys = Seq("spark.sparkbloom.enabled", "spark.sparkbloom.pruning.files",
    "spark.sparkbloom.pruning.rowGroups", "spark.sparkbloom.pruning.rows",
    "spark.sparkbloom.pruning.parallelism", "spark.sparkbloom.pruning.executorProbingAbove",
    "spark.sparkbloom.cache.maxBytes", "spark.sparkbloom.join.enabled", "spark.sparkbloom.join.maxKeys",
    "spark.sparkbloom.index.enabled", "spark.sparkbloom.write.fpp", "spark.sparkbloom.write.maxBytes",
    "spark.sparkbloom.write.exactSize")

  test("SET -v lists every setting with its default and doc") {
    val listed = spark.sql("SET -v").collect().map(r => r.getString(0) -> (r.getString(1), r.getString(2))).toMap
    keys.foreach { key =>
      val (default, doc) = listed.getOrElse(key, fail(s"$key is not listed by SET -v"))
      assert(default != null && default.nonEmpty && doc.nonEmpty, key)
    }
    assert(listed("spark.sparkbloom.write.fpp")._1 == "1.0E-4")
  }

  test("a bad value is refused at SET, and queries keep working with the value before") {
    val bad = Seq("spark.sparkbloom.enabled" -> "yes", "spark.sparkbloom.pruning.parallelism" -> "0",
      "spark.sparkbloom.write.fpp" -> "2", "spark.sparkbloom.write.maxBytes" -> "1",
      "spark.sparkbloom.join.maxKeys" -> "x")
    bad.foreach { case (key, value) =>
      val error = intercept[IllegalArgumentException](spark.sql(s"SET $key=$value"))
      assert(error.getMessage.contains(key), error.getMessage)
      assert(!spark.conf.getOption(key).contains(value))
    }
    val path = java.nio.file.Files.createTempDirectory("sparkbloom-settings").resolve("t").toString
    spark.range(10).write.option("bloom_filter_columns", "id").parquet(path)
    assert(spark.read.parquet(path).where("id = 3").count() == 1)
  }
}
