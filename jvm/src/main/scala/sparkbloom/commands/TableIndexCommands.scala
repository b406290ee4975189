// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.commands

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._

import sparkbloom.catalyst.ScanSources
import sparkbloom.errors.SparkBloomException
import sparkbloom.index.{IndexBuilder, IndexedTable}

/**
 * The table index behind `sparkbloom.build_index`, `describe_index`, `drop_index`, the SQL
 * table functions `sparkbloom_build_index`, `sparkbloom_describe_index`,
 * `sparkbloom_drop_index`, and `sparkbloom index` on the command line. Each takes a
 * Parquet directory or a catalog table and returns a one-row DataFrame.
 */
object TableIndexCommands {

  val BuildSchema: StructType = StructType(Seq(
      StructField("table", StringType, nullable = false),
      StructField("files_indexed", IntegerType, nullable = false),
      StructField("files_not_indexed", IntegerType, nullable = false),
      StructField("segments", IntegerType, nullable = false),
      StructField("rebuilt", BooleanType, nullable = false),
      StructField("commit_attempts", IntegerType, nullable = false)))

  val DescribeSchema: StructType = StructType(Seq(
      StructField("table", StringType, nullable = false),
      StructField("columns", ArrayType(StringType, containsNull = false), nullable = false),
      StructField("fpp", DoubleType, nullable = false),
      StructField("segments", IntegerType, nullable = false),
      StructField("index_bytes", LongType, nullable = false),
      StructField("files_total", IntegerType, nullable = false),
      StructField("files_covered", IntegerType, nullable = false),
      StructField("entries", IntegerType, nullable = false),
      StructField("units", MapType(StringType, IntegerType, valueContainsNull = false), nullable = false),
      StructField("blocks_per_unit", MapType(StringType, IntegerType, valueContainsNull = false), nullable = false),
      StructField("max_estimated_fpp", MapType(StringType, DoubleType, valueContainsNull = false), nullable = false)))

  val DropSchema: StructType = StructType(Seq(
      StructField("table", StringType, nullable = false),
      StructField("dropped", BooleanType, nullable = false)))

  /**
   * Indexes `columns` of the table's current files (null: refresh an existing index with
   * its own columns; only new or changed files are read). `fpp` null: the index's own, or
   * `spark.sparkbloom.write.fpp`.
   */
  def build(
      spark: SparkSession, pathOrTable: String, columns: java.util.List[String], fpp: java.lang.Double): DataFrame = {
    val table = tableAt(spark, pathOrTable)
    val built = IndexBuilder.build(spark, table, Option(columns).map(_.asScala.toSeq.map(_.trim)),
      Option(fpp).map(_.doubleValue))
    one(spark, BuildSchema,
      Row(built.root.toString, built.filesIndexed, built.filesSkipped, built.segments, built.rebuilt,
        built.commitAttempts))
  }

  def describe(spark: SparkSession, pathOrTable: String): DataFrame = {
    val table = tableAt(spark, pathOrTable)
    val d = IndexBuilder.describe(spark, table)
      .getOrElse(throw new SparkBloomException(s"there is no index at ${table.root}"))
    one(spark, DescribeSchema,
      Row(d.root.toString, d.columns, d.fpp, d.segments, d.indexBytes, d.filesTotal,
        d.filesCovered, d.entries, d.units, d.blocksPerUnit, d.maxEstimatedFpp))
  }

  def drop(spark: SparkSession, pathOrTable: String): DataFrame = {
    val root = tableAt(spark, pathOrTable).root
    one(spark, DropSchema, Row(root.toString, IndexBuilder.drop(spark, root)))
  }

  private def one(spark: SparkSession, schema: StructType, row: Row): DataFrame =
    spark.createDataFrame(java.util.Collections.singletonList(row), schema)

  /**
   * The table a name or path says: a table a source finds by its catalog name; at a directory
   * or a catalog table's location, the table a source finds there, or a Parquet directory.
   */
  private def tableAt(spark: SparkSession, pathOrTable: String): IndexedTable = {
    if (pathOrTable == null || pathOrTable.trim.isEmpty)
      throw new SparkBloomException("name a Parquet directory or table")
    ScanSources.indexedTableNamed(spark, pathOrTable.trim).getOrElse {
      val location = Inspection.locationOf(spark, pathOrTable)
      val root = new Path(location)
      val fs = root.getFileSystem(spark.sessionState.newHadoopConf())
      if (!fs.exists(root)) throw new SparkBloomException(s"path does not exist: $location")
      if (!fs.getFileStatus(root).isDirectory)
        throw new SparkBloomException(s"an index belongs to a table directory, not a file: $location")
      val qualified = fs.makeQualified(root)
      ScanSources.indexedTableAt(spark, qualified).getOrElse(IndexedTable.ParquetDirectory(qualified))
    }
  }
}
