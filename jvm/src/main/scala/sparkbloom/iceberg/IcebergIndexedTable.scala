// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.types.StructType

import sparkbloom.errors.SparkBloomException
import sparkbloom.index.IndexedTable
import sparkbloom.read.FileOpener

/**
 * An Apache Iceberg table, as its index covers it: the Parquet data files of its current
 * snapshot, as Iceberg plans them, each column found in every file by its field id (a renamed
 * column keeps its old name in old files). Iceberg never writes a path twice, so a path and
 * length identify a file: an entry serves every snapshot, branch and tag that reads the file,
 * files added later are judged by their own filters until a refresh, and a scan of any
 * snapshot finds in the index only files it reads.
 *
 * @param table  Iceberg's `SparkTable`, reached through [[IcebergScans]] and [[IcebergTasks]]
 * @param schema the table's columns as Spark reads them now
 */
private[sparkbloom] final case class IcebergIndexedTable(root: Path, table: Table, schema: StructType)
    extends IndexedTable {

  def files(spark: SparkSession): IndexedSeq[FileStatus] = {
    val defaultFs = FileSystem.get(spark.sessionState.newHadoopConf())
    IcebergScans.readTable(table)(IcebergTasks.currentParquetFiles(table)).map { case (location, length) =>
      IcebergTasks.statusOf(location, length, defaultFs)
    }
  }

  private lazy val idsByPath: Map[String, Int] = IcebergScans.readTable(table)(IcebergTasks.currentFieldIds(table))

  def fileColumns(spark: SparkSession, wanted: Seq[String], held: Boolean): Seq[String] =
    if (held) {
      wanted.find(!idsByPath.contains(_)).foreach { gone =>
        throw new SparkBloomException(s"cannot refresh the index of ${table.name}: its column $gone is no longer " +
          "the table's (renamed or dropped); build it again naming the columns")
      }
      wanted
    } else IndexedTable.resolved(spark, root, wanted, schema, Nil).map(_.mkString("."))

  override def fieldIds(spark: SparkSession, fileColumns: Seq[String]): Option[Seq[Int]] =
    Some(fileColumns.map(c =>
        idsByPath.getOrElse(c,
          throw new SparkBloomException(s"cannot index ${table.name}: column $c has no field id"))))

  // the table's own IO, with its catalog's credentials
  override lazy val opener: FileOpener = IcebergScans.readTable(table)(IcebergTasks.openerOf(table))
}

private[sparkbloom] object IcebergIndexedTable {

  /** The Iceberg table `name` names in a catalog, if it names one. */
  def named(spark: SparkSession, name: String): Option[IcebergIndexedTable] =
    IcebergScans.tableNamed(spark, name).map { relation =>
      val table = relation.table
      val root = new Path(IcebergScans.readTable(table)(IcebergTasks.location(table)))
      val fs = root.getFileSystem(spark.sessionState.newHadoopConf())
      IcebergIndexedTable(fs.makeQualified(root), table, relation.schema)
    }
}
