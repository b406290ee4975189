// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.StructType

import sparkbloom.errors.SparkBloomException
import sparkbloom.index.IndexedTable
import sparkbloom.read.{FileOpener, ParquetFileListing}

/**
 * A Delta table, as its index covers it: the data files of its current snapshot (files a
 * later version adds are judged by their own filters until a refresh; files it removes are
 * never listed by a scan of it), with columns by the names the files give them (physical
 * names under column mapping, which stay across renames). Delta never writes a path twice,
 * so a file's path and length identify it, and time travel and versions built before or
 * after read each file's own entry or none.
 */
private[sparkbloom] final case class DeltaIndexedTable(root: Path) extends IndexedTable {

  /** Its files by path and length only (no time): Delta never writes a path twice, as Iceberg's. */
  def files(spark: SparkSession): IndexedSeq[FileStatus] = {
    val current = spark.read.format("delta").load(root.toString).inputFiles.map(new Path(_)).toSet
    // recursively: under column mapping Delta writes into random prefixes, no partition directories
    ParquetFileListing.list(spark, root.toString, Map("recursiveFileLookup" -> "true"))
      .filter(f => current(f.getPath)).map(f => new FileStatus(f.getLen, false, 1, 0, 0, f.getPath)).toIndexedSeq
  }

  // a scan of a snapshot needs no etag (one HEAD per file) to find a file's entry
  override def opener: FileOpener = FileOpener.SnapshotFiles

  def fileColumns(spark: SparkSession, wanted: Seq[String], held: Boolean): Seq[String] = {
    val state = DeltaTables.stateAt(spark, root.toString)
      .getOrElse(throw new SparkBloomException(s"$root is not a Delta table"))
    if (held) {
      val inFiles = state.leafPaths.flatMap(state.columns.filePath).map(_.mkString(".")).toSet
      wanted.find(!inFiles(_)).foreach { gone =>
        throw new SparkBloomException(
          s"cannot refresh the index of $root: its column $gone is no longer the table's; build it again naming the columns")
      }
      wanted
    } else {
      val resolver = spark.sessionState.conf.resolver
      val dataSchema = StructType(state.schema.filterNot(f => state.partitionColumns.exists(resolver(_, f.name))))
      IndexedTable.resolved(spark, root, wanted, dataSchema, state.partitionColumns)
        .map(path => state.columns.filePath(path).getOrElse(path).mkString("."))
    }
  }
}
