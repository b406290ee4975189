// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.types.StructType

import sparkbloom.errors.SparkBloomException
import sparkbloom.read.{FileOpener, ParquetFileListing}
import sparkbloom.write.BloomWriteOptions

/**
 * What a table index covers at a root: the table's data files now, and its columns as those
 * files name them (the index keeps the files' names, which scans look them up by).
 */
private[sparkbloom] trait IndexedTable {
  def root: Path

  /** The data files the table reads now, in path order. */
  def files(spark: SparkSession): IndexedSeq[FileStatus]

  /**
   * The columns named `wanted` as the files name them; fails on any bad name. `held`: the
   * names an index holds (the files' own), for a refresh; else the table's names.
   */
  def fileColumns(spark: SparkSession, wanted: Seq[String], held: Boolean): Seq[String]

  /**
   * The Parquet field id each of `fileColumns`' columns is found by in every file, whatever
   * the file names it (Iceberg's, whose renames leave old names in old files); None: found
   * by name.
   */
  def fieldIds(spark: SparkSession, fileColumns: Seq[String]): Option[Seq[Int]] = None

  /**
   * How the table's files are opened to be indexed, and whether a path is never written twice
   * (a table format's data files), so that its path and length identify a file: its
   * listing's times are not compared, no change time is read.
   */
  def opener: FileOpener = FileOpener.HadoopFileSystem

  final def immutableFiles: Boolean = opener.immutableFiles
}

private[sparkbloom] object IndexedTable {

  /** A plain Parquet directory: every data file a read of it lists, columns by their names. */
  final case class ParquetDirectory(root: Path) extends IndexedTable {
    def files(spark: SparkSession): IndexedSeq[FileStatus] =
      ParquetFileListing.list(spark, root.toString).toIndexedSeq

    def fileColumns(spark: SparkSession, wanted: Seq[String], held: Boolean): Seq[String] = {
      val relation = spark.read.parquet(root.toString).queryExecution.analyzed.collectFirst {
        case l: LogicalRelation if l.relation.isInstanceOf[HadoopFsRelation] =>
          l.relation.asInstanceOf[HadoopFsRelation]
      }.getOrElse(throw new SparkBloomException(s"$root is not a Parquet table"))
      resolved(spark, root, wanted, relation.dataSchema, relation.partitionSchema.fieldNames.toSeq).map(_.mkString("."))
    }
  }

  /** `wanted`'s paths among `dataSchema`'s columns, checked as a write's `bloom_filter_columns`. */
  def resolved(spark: SparkSession, root: Path, wanted: Seq[String], dataSchema: StructType,
      partitions: Seq[String]): Seq[Seq[String]] = {
    if (wanted.isEmpty || wanted.exists(_.trim.isEmpty))
      throw new SparkBloomException("name at least one column to index")
    try {
      BloomWriteOptions.resolve(Map(BloomWriteOptions.Columns -> wanted.mkString(",")), dataSchema, partitions,
        spark.sessionState.conf, "TIMESTAMP_MICROS").get.columns.map(_.path)
    } catch {
      case e: SparkBloomException => throw new SparkBloomException(s"cannot index $root: ${e.getMessage}")
    }
  }
}
