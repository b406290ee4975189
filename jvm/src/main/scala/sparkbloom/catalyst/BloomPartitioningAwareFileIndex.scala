// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.collection.mutable

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{PartitionDirectory, PartitionSpec, PartitioningAwareFileIndex}
import org.apache.spark.sql.types.StructType

/**
 * The DataSource V2 counterpart of [[BloomPruningFileIndex]]. `ParquetScan` requires a
 * `PartitioningAwareFileIndex`, so this one is one: it answers everything from the index
 * it wraps (files, partitions, sizes) and prunes only what `listFiles` returns.
 */
private[sparkbloom] final class BloomPartitioningAwareFileIndex(
    val delegate: PartitioningAwareFileIndex,
    session: SparkSession,
    options: Map[String, String],
    selectRowGroups: Boolean,
    fileColumns: FileColumns)
    extends PartitioningAwareFileIndex(session, options, None) {

  val pruner = new ListingPruner(session, options, selectRowGroups, fileColumns,
    () => ListingPruner.indexRoots(delegate.rootPaths, delegate.partitionSchema.size),
    () => delegate.partitionSchema.fieldNames.toSeq)

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] =
    pruner.prune(partitionFilters, dataFilters)(delegate.listFiles(partitionFilters, dataFilters))

  override def partitionSpec(): PartitionSpec = delegate.partitionSpec()
  override def partitionSchema: StructType = delegate.partitionSchema
  override def allFiles(): Seq[FileStatus] = delegate.allFiles()
  override def rootPaths: Seq[Path] = delegate.rootPaths
  override def inputFiles: Array[String] = delegate.inputFiles
  override def sizeInBytes: Long = pruner.plannedSize.getOrElse(delegate.sizeInBytes)
  override def refresh(): Unit = { pruner.forget(); delegate.refresh() }
  override def metadataOpsTimeNs: Option[Long] = delegate.metadataOpsTimeNs

  // Only the base class's own listing would use these, and listFiles/allFiles bypass it.
  override protected lazy val leafFiles: mutable.LinkedHashMap[Path, FileStatus] =
    mutable.LinkedHashMap(delegate.allFiles().map(f => f.getPath -> f): _*)
  override protected lazy val leafDirToChildrenFiles: Map[Path, Array[FileStatus]] =
    delegate.allFiles().toArray.groupBy(_.getPath.getParent)

  override def equals(other: Any): Boolean = other match {
    case that: BloomPartitioningAwareFileIndex => that.delegate == delegate
    case _ => false
  }

  override def hashCode(): Int = delegate.hashCode() * 31 + 11

  override def toString: String = s"BloomPartitioningAwareFileIndex($delegate)"
}
