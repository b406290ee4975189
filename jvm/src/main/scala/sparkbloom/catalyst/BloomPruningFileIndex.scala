// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, PartitionDirectory, PartitionSpec, PartitioningAwareFileIndex}
import org.apache.spark.sql.types.StructType

import sparkbloom.read.FileOpener

/**
 * A scan's file listing with Bloom-filter pruning: the files its delegate lists (after
 * partition pruning), minus those in which no row group can match. Spark asks for the
 * listing while it plans the scan's tasks, so skipped files get no task. Its size is what
 * the plan's own listing keeps, so that Spark plans joins on the pruned size.
 */
private[sparkbloom] trait PruningListing extends FileIndex {
  def delegate: FileIndex
  def pruner: ListingPruner

  /**
   * Decides the pruning for these filters now, as the plan is made or sized, so that
   * rendering the plan needs no I/O; false where the listing failed, which the query itself
   * reports when it lists.
   */
  def decide(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Boolean =
    try { pruner.describe(partitionFilters, dataFilters)(delegate.listFiles(partitionFilters, dataFilters)); true }
    catch { case NonFatal(_) => false }

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] =
    pruner.prune(partitionFilters, dataFilters)(delegate.listFiles(partitionFilters, dataFilters))
  override def rootPaths: Seq[Path] = delegate.rootPaths
  override def inputFiles: Array[String] = delegate.inputFiles
  override def refresh(): Unit = { pruner.forget(); delegate.refresh() }
  override def sizeInBytes: Long = pruner.plannedSize.getOrElse(delegate.sizeInBytes)
  override def partitionSchema: StructType = delegate.partitionSchema
  override def metadataOpsTimeNs: Option[Long] = delegate.metadataOpsTimeNs

  override def equals(other: Any): Boolean = other match {
    case that: PruningListing => that.getClass == getClass && that.delegate == delegate
    case _ => false
  }
  override def hashCode(): Int = delegate.hashCode() * 31 + getClass.hashCode()
  override def toString: String = s"${getClass.getSimpleName}($delegate)"
}

private object PruningListing {

  /**
   * The judge of `delegate`'s listings. A table format's `snapshot` has its table's root as
   * its root, whatever its partitions, and files that are never replaced.
   */
  def pruner(session: SparkSession, delegate: FileIndex, options: Map[String, String], selectRowGroups: Boolean,
      fileColumns: FileColumns, useTableIndex: Boolean, snapshot: Boolean): ListingPruner = {
    val indexDepth = if (snapshot) 0 else delegate.partitionSchema.size
    val opener = if (snapshot) FileOpener.SnapshotFiles else FileOpener.HadoopFileSystem
    val candidates = Candidates(options, fileColumns, opener,
      indexRoots = () => if (useTableIndex) ListingPruner.indexRoots(delegate.rootPaths, indexDepth) else Nil,
      partitionColumns = () => delegate.partitionSchema.fieldNames.toSeq)
    new ListingPruner(session, candidates, selectRowGroups)
  }
}

/** The pruning listing of a DataSource V1 relation, over any file index (a table format's snapshot too). */
private[sparkbloom] final class BloomPruningFileIndex(
    val delegate: FileIndex,
    session: SparkSession,
    options: Map[String, String],
    selectRowGroups: Boolean,
    fileColumns: FileColumns,
    useTableIndex: Boolean,
    snapshot: Boolean)
    extends PruningListing {
  val pruner: ListingPruner =
    PruningListing.pruner(session, delegate, options, selectRowGroups, fileColumns, useTableIndex, snapshot)
}

private[sparkbloom] object BloomPruningFileIndex {

  /**
   * The pruning index of `fs`: the one it has, where the optimizer's rule
   * ([[PruneFilesByBloomFilters]]) already judged it, so a scan is judged once; else a new one.
   */
  def of(fs: HadoopFsRelation, session: SparkSession, selectRowGroups: Boolean, fileColumns: FileColumns,
      useTableIndex: Boolean, snapshot: Boolean = false): BloomPruningFileIndex = fs.location match {
    case judged: BloomPruningFileIndex => judged
    case other =>
      new BloomPruningFileIndex(other, session, fs.options, selectRowGroups, fileColumns, useTableIndex, snapshot)
  }
}

/**
 * The pruning listing of a DataSource V2 `ParquetScan`, which requires a
 * `PartitioningAwareFileIndex`: everything but the listing comes from the index it wraps.
 */
private[sparkbloom] final class BloomPartitioningAwareFileIndex(
    val delegate: PartitioningAwareFileIndex,
    session: SparkSession,
    options: Map[String, String],
    selectRowGroups: Boolean,
    fileColumns: FileColumns)
    extends PartitioningAwareFileIndex(session, options, None) with PruningListing {
  val pruner: ListingPruner =
    PruningListing.pruner(session, delegate, options, selectRowGroups, fileColumns, useTableIndex = true,
      snapshot = false)

  override def partitionSpec(): PartitionSpec = delegate.partitionSpec()
  override def allFiles(): Seq[FileStatus] = delegate.allFiles()

  // Only the base class's own listing would use these, and listFiles/allFiles bypass it.
  override protected lazy val leafFiles: mutable.LinkedHashMap[Path, FileStatus] =
    mutable.LinkedHashMap(delegate.allFiles().map(f => f.getPath -> f): _*)
  override protected lazy val leafDirToChildrenFiles: Map[Path, Array[FileStatus]] =
    delegate.allFiles().toArray.groupBy(_.getPath.getParent)
}
