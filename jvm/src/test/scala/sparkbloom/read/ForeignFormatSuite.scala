// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.functions._
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite}
import sparkbloom.catalyst.BloomPruningExec

/**
 * A Parquet format of another project (here one that hides deleted rows, as Delta's
 * deletion vectors do) subclasses Spark's `ParquetFileFormat`: sparkbloom must plan and
 * write it exactly as without sparkbloom. And where the driver judged nothing, tasks
 * keep parquet-java's own in-task Bloom filtering.
 */
class ForeignFormatSuite extends AnyFunSuite with SparkSessionSuite {

  private lazy val table: String = {
    val path = Files.createTempDirectory("sparkbloom-foreign").toString + "/t"
    spark.range(0, 2000, 1, 2).select(col("id"), col("id").cast("string").as("k"))
      .write.option("bloom_filter_columns", "id,k").option("parquet.enable.dictionary", "false").parquet(path)
    path
  }

  private def foreign: DataFrame = spark.read.format(classOf[RowHidingParquetFormat].getName).load(table)

  test("a ParquetFileFormat subclass is planned exactly as without sparkbloom") {
    val df = foreign.where(col("id") === 78L || col("k").isin("76", "77", "78"))
    val scan = df.queryExecution.executedPlan.collectFirst { case s: FileSourceScanExec => s }.get
    assert(scan.relation.fileFormat.getClass == classOf[RowHidingParquetFormat])
    assert(df.queryExecution.executedPlan.collectFirst { case p: BloomPruningExec => p }.isEmpty)
    // the format's own semantics survive: row 77 is hidden by it
    assert(df.select("id").collect().map(_.getLong(0)).sorted.toSeq == Seq(76L, 78L))
    assert(foreign.where(col("id") === 77L).count() == 0)
  }

  test("writing through a ParquetFileFormat subclass is left to it") {
    val path = Files.createTempDirectory("sparkbloom-foreign-write").toString + "/t"
    spark.range(0, 100, 1, 1).write.format(classOf[RowHidingParquetFormat].getName)
      .option("bloom_filter_columns", "id").save(path)
    val chunks = ParquetFiles.chunks(ParquetFiles.dataFiles(path).head)
    assert(chunks.nonEmpty && chunks.forall(_.filter.isEmpty), "sparkbloom wrote filters through another format")
  }

  test("files the driver does not judge keep parquet-java's in-task Bloom filtering") {
    // With field-id matching the driver judges nothing; parquet-java in the task can still
    // drop every row group for an absent key that lies inside min/max (no dictionaries
    // here, so only the Bloom filter can).
    def scannedRows(enabled: Boolean): Long = {
      spark.conf.set("spark.sparkbloom.enabled", enabled.toString)
      spark.conf.set("spark.sql.parquet.fieldId.read.enabled", "true")
      try {
        val df = spark.read.parquet(table).where(col("k") === "1234x")
        assert(df.collect().isEmpty)
        val plan = df.queryExecution.executedPlan
        // no scan at all where the driver ruled out every file
        plan.collectFirst { case s: FileSourceScanExec => s.metrics("numOutputRows").value }
          .getOrElse { assert(sparkbloom.ScanPruning.readsNoTable(df), plan); 0L }
      } finally {
        spark.conf.unset("spark.sparkbloom.enabled")
        spark.conf.unset("spark.sql.parquet.fieldId.read.enabled")
      }
    }
    val vanilla = scannedRows(enabled = false)
    assert(vanilla == 0, s"parquet-java should drop every row group in the task, read $vanilla rows")
    assert(scannedRows(enabled = true) == vanilla)
  }
}

/** A lake-format-like Parquet format: rows whose `id` is 77 are deleted, as by a deletion vector. */
class RowHidingParquetFormat extends ParquetFileFormat {
  override def supportBatch(sparkSession: SparkSession, schema: StructType): Boolean = false

  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val read = super.buildReaderWithPartitionValues(
      sparkSession, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf)
    val idOrdinal = requiredSchema.fieldNames.indexOf("id")
    (file: PartitionedFile) =>
      if (idOrdinal < 0) read(file) else read(file).filter(row => row.getLong(idOrdinal) != 77L)
  }

  override def toString: String = "RowHidingParquet"
}
