// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, PartitionDirectory}
import org.apache.spark.sql.types.StructType

/**
 * A DataSource V1 scan's file listing with Bloom-filter pruning: the files its delegate
 * lists (after partition pruning), minus those in which no row group can match the scan's
 * data filters. Spark asks for the listing while it plans the scan's tasks, so skipped
 * files get no task and are never opened by an executor. Its size is what the plan's own
 * listing keeps, so that Spark plans joins on the pruned size.
 */
private[sparkbloom] final class BloomPruningFileIndex(
    val delegate: FileIndex,
    session: SparkSession,
    options: Map[String, String],
    selectRowGroups: Boolean,
    fileColumns: FileColumns,
    useTableIndex: Boolean)
    extends FileIndex {

  val pruner = new ListingPruner(session, options, selectRowGroups, fileColumns,
    () => if (useTableIndex) ListingPruner.indexRoots(delegate.rootPaths, delegate.partitionSchema.size) else Nil,
    () => delegate.partitionSchema.fieldNames.toSeq)

  override def rootPaths: Seq[Path] = delegate.rootPaths
  override def inputFiles: Array[String] = delegate.inputFiles
  override def refresh(): Unit = { pruner.forget(); delegate.refresh() }
  override def sizeInBytes: Long = pruner.plannedSize.getOrElse(delegate.sizeInBytes)
  override def partitionSchema: StructType = delegate.partitionSchema
  override def metadataOpsTimeNs: Option[Long] = delegate.metadataOpsTimeNs

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] =
    pruner.prune(partitionFilters, dataFilters)(delegate.listFiles(partitionFilters, dataFilters))

  override def equals(other: Any): Boolean = other match {
    case that: BloomPruningFileIndex => that.delegate == delegate
    case _ => false
  }

  override def hashCode(): Int = delegate.hashCode() * 31 + 7

  override def toString: String = s"BloomPruningFileIndex($delegate)"
}

private[sparkbloom] object BloomPruningFileIndex {

  /**
   * The pruning index of `fs`: the one it has, where the optimizer's rule
   * ([[PruneFilesByBloomFilters]]) already judged it, so a scan is judged once; else a new one.
   */
  def of(fs: HadoopFsRelation, session: SparkSession, selectRowGroups: Boolean, fileColumns: FileColumns,
      useTableIndex: Boolean): BloomPruningFileIndex = fs.location match {
    case judged: BloomPruningFileIndex => judged
    case other => new BloomPruningFileIndex(other, session, fs.options, selectRowGroups, fileColumns, useTableIndex)
  }
}
