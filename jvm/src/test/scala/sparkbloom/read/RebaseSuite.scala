// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Row
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{DateType, StructField, StructType, TimestampType}
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, ParquetFooters, SparkSessionSuite}

/**
 * Dates and timestamps before the Gregorian switch under Spark's LEGACY rebase mode: the
 * file stores them rebased to the hybrid Julian calendar, so filters must hold the stored
 * (rebased) values, and the read side must know the calendar a file is read in as Spark
 * decides it (typed setting in any case, or the `datetimeRebaseMode` read option).
 */
class RebaseSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] = Map("spark.sql.session.timeZone" -> "UTC")

  private val dates = (0 until 100).map(i => java.time.LocalDate.of(1000, 1, 1).plusDays(i * 7L))

  /** 100 old dates and timestamps, one per row, written in LEGACY mode with sparkbloom filters. */
  private lazy val legacyTable: String = withConf("spark.sql.parquet.datetimeRebaseModeInWrite" -> "LEGACY") {
    val path = Files.createTempDirectory("sparkbloom-rebase").toString + "/t"
    val rows = dates.map(d => Row(java.sql.Date.valueOf(d), java.sql.Timestamp.valueOf(d.atTime(12, 30))))
    spark.createDataFrame(rows.asJava, StructType(Seq(StructField("d", DateType), StructField("ts", TimestampType))))
      .repartitionByRange(20, col("d"))
      .write.option("bloom_filter_columns", "d,ts").option("parquet.enable.dictionary", "false").parquet(path)
    path
  }

  /**
   * How many of the dates, and of the timestamps, a lookup of all of them finds. 20 files
   * of 5 rows: a file whose filter holds other values than the stored ones is skipped.
   * IN lists up to 200 values go to parquet-java as IN, so its Bloom filtering sees them.
   */
  private def found(path: String, options: Map[String, String] = Map.empty): (Long, Long) =
    withConf("spark.sql.parquet.pushdown.inFilterThreshold" -> "200") {
      val df = spark.read.options(options).parquet(path)
      (df.where(col("d").isin(dates.map(java.sql.Date.valueOf): _*)).count(),
        df.where(col("ts").isin(dates.map(d => java.sql.Timestamp.valueOf(d.atTime(12, 30))): _*)).count())
    }

  private val all = (dates.size.toLong, dates.size.toLong)

  test("filters of a LEGACY write hold the rebased values: vanilla Spark's pushdown finds every old date") {
    withConf("spark.sparkbloom.enabled" -> "false") {
      assert(found(legacyTable) == all)
    }
    assert(found(legacyTable) == all)
  }

  /**
   * Julian-calendar files as an older writer leaves them: written in LEGACY mode with
   * parquet-java's own filters (which hold the stored values), then stripped of the Spark
   * metadata that tells readers their calendar. Spark then reads them in the calendar the
   * session or the read option names.
   */
  private lazy val unlabelled: String = {
    val written = Files.createTempDirectory("sparkbloom-rebase-pj").toString + "/t"
    withConf("spark.sql.parquet.datetimeRebaseModeInWrite" -> "LEGACY",
      "spark.sql.parquet.outputTimestampType" ->
        "TIMESTAMP_MICROS") {
      spark.read.parquet(legacyTable).repartitionByRange(20, col("d"))
        .write.option("parquet.bloom.filter.enabled#d", "true").option("parquet.bloom.filter.enabled#ts", "true")
        .option("parquet.enable.dictionary", "false").parquet(written)
    }
    val path = Files.createTempDirectory("sparkbloom-rebase-unlabelled").toString + "/t"
    Files.createDirectories(java.nio.file.Paths.get(path))
    ParquetFiles.dataFiles(written).foreach { source =>
      val target = new java.io.File(path, source.getName)
      Files.copy(source.toPath, target.toPath)
      ParquetFooters.rewrite(target) { meta =>
        val kept = meta.getKey_value_metadata.asScala.filterNot(_.getKey.startsWith("org.apache.spark."))
        meta.setKey_value_metadata(kept.asJava)
      }
    }
    path
  }

  test("a lower-case 'legacy' session setting counts") {
    withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.datetimeRebaseModeInRead" -> "LEGACY") {
      assert(found(unlabelled) == all, "vanilla Spark reads these files' old dates in the LEGACY calendar")
    }
    withConf("spark.sql.parquet.datetimeRebaseModeInRead" -> "legacy") {
      assert(found(unlabelled) == all)
    }
  }

  test("the datetimeRebaseMode read option counts") {
    withConf("spark.sql.parquet.datetimeRebaseModeInRead" -> "CORRECTED") {
      assert(found(unlabelled, Map("datetimeRebaseMode" -> "LEGACY")) == all)
    }
  }
}
