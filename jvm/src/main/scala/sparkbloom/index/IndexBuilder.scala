// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.spark.sql.SparkSession
import org.slf4j.LoggerFactory

import org.apache.spark.util.SerializableConfiguration

import sparkbloom.errors.SparkBloomException
import sparkbloom.index.IndexLayout.{ColumnData, ColumnEntry, Manifest}
import sparkbloom.read.{FileIdentity, FileOpener}
import sparkbloom.sbbf.{FilterEstimates, FilterSizing, SplitBlockBloomFilter}
import sparkbloom.settings.SparkBloomConf

/**
 * Builds, refreshes and drops the index of a Parquet table, and describes it.
 *
 * A build reads only the indexed columns of the files that need it, as one Spark job
 * (one task per few files, on the executors), and adds one segment. A refresh (a build
 * with the index's own columns and fpp) indexes only files that are new or changed since;
 * past [[IndexBuilder.MaxSegments]] segments, or with other columns or fpp, it rebuilds
 * the whole index into one segment.
 */
private[sparkbloom] object IndexBuilder {
  private val log = LoggerFactory.getLogger(getClass)

  /** Segments a refresh may add before the next one rebuilds: each costs a read per key. */
  val MaxSegments = 8

  final case class Built(root: Path, filesIndexed: Int, filesSkipped: Int, segments: Int, rebuilt: Boolean)

  def build(spark: SparkSession, table: IndexedTable, columns: Option[Seq[String]], fpp: Option[Double]): Built = {
    val root = table.root
    val fs = root.getFileSystem(spark.sessionState.newHadoopConf())
    val qualifiedRoot = fs.makeQualified(root)
    val dir = IndexLayout.dirOf(qualifiedRoot)
    val latest = IndexLayout.latestManifest(fs, dir)
    val existing = latest.flatMap { listed =>
      try Some(TableIndex.load(fs, qualifiedRoot, listed))
      catch { case NonFatal(e) => log.warn(s"sparkbloom rebuilds the index at $dir, which cannot be read: $e"); None }
    }
    val wanted = columns.orElse(existing.map(_.manifest.columns)).getOrElse(
      throw new SparkBloomException(s"there is no index at $qualifiedRoot to refresh: name the columns to index"))
    val targetFpp = fpp.orElse(existing.map(_.manifest.fpp)).getOrElse(SparkBloomConf.writeFpp(spark.sessionState.conf))
    if (!(targetFpp > 0 && targetFpp < 1))
      throw new SparkBloomException(s"the index fpp must be in (0, 1), got $targetFpp")
    val resolved = table.fileColumns(spark, wanted, held = columns.isEmpty)
    val maxBytes = FilterSizing.largestPowerOfTwoAtMost(
      math.max(SparkBloomConf.writeMaxBytes(spark.sessionState.conf).getOrElse(FilterSizing.MinDefaultCeiling).toLong,
        SplitBlockBloomFilter.BytesPerBlock)).toInt
    val incremental = existing.filter { e =>
      e.manifest.columns.map(_.toLowerCase) == resolved.map(_.toLowerCase) && e.manifest.fpp == targetFpp &&
      e.manifest.maxBytes == maxBytes && e.segments.size < MaxSegments
    }
    val files = currentFiles(spark, table)
    val now = System.currentTimeMillis()
    val candidates = files.filter(f => incremental.forall(_.freshEntryOf(f, table.immutableFiles).isEmpty))
    val (settled, unsettled) =
      candidates.partition(f => table.immutableFiles || !FileIdentity.of(f).unsettled(now))
    val nextVersion = latest.map(_.version + 1).getOrElse(1L)
    if (incremental.isDefined && settled.isEmpty) {
      return Built(qualifiedRoot, 0, unsettled.size, incremental.get.segments.size, rebuilt = false)
    }
    if (!fs.exists(dir)) fs.mkdirs(dir)
    val relative = new TableIndex(qualifiedRoot, Manifest(0, Nil, 0, 0, Nil), IndexedSeq.empty)
    // a table format's files may lie outside its root: they stay unindexed
    val results = indexFiles(spark, qualifiedRoot, settled.flatMap(f => relative.relativePath(f).map(f -> _)), resolved,
      table.fieldIds(spark, resolved), table.opener, targetFpp, maxBytes)
    val segmentName = s"segment-${java.util.UUID.randomUUID()}.sbi"
    writeSegment(fs, new Path(dir, segmentName), results, resolved)
    val kept = incremental.map(_.manifest.segments).getOrElse(Nil)
    IndexLayout.writeManifest(fs, dir, Manifest(nextVersion, resolved, targetFpp, maxBytes, kept :+ segmentName))
    if (incremental.isEmpty) removeUnreferenced(fs, dir, (kept :+ segmentName).toSet, nextVersion)
    TableIndex.invalidate(dir.toString)
    Built(qualifiedRoot, results.size, unsettled.size + (settled.size - results.size), kept.size + 1,
      incremental.isEmpty)
  }

  /** The table's files now, with etags where an object store gives them (never needed for immutable files). */
  private def currentFiles(spark: SparkSession, table: IndexedTable): IndexedSeq[FileStatus] =
    if (table.immutableFiles) table.files(spark)
    else FileIdentity.withEtags(table.files(spark), spark.sessionState.newHadoopConf())

  private def indexFiles(spark: SparkSession, root: Path, files: IndexedSeq[(FileStatus, String)], columns: Seq[String],
      fieldIds: Option[Seq[Int]], opener: FileOpener, fpp: Double, maxBytes: Int): IndexedSeq[FileIndexer.Result] = {
    if (files.isEmpty) return IndexedSeq.empty
    val sc = spark.sparkContext
    val shipped = new SerializableConfiguration(spark.sessionState.newHadoopConf())
    val caseSensitive = spark.sessionState.conf.caseSensitiveAnalysis
    val tasks = math.max(1, math.min(files.size, math.max(sc.defaultParallelism * 4, files.size / 64)))
    val previous = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(s"sparkbloom: indexing ${columns.mkString(", ")} of ${files.size} files of $root")
    try {
      sc.parallelize(files, tasks).flatMap { case (status, relativePath) =>
        try
          Some(FileIndexer.index(status, relativePath, columns, fieldIds, caseSensitive, fpp, maxBytes, shipped.value,
              opener))
        catch {
          case NonFatal(e) =>
            LoggerFactory.getLogger(getClass).warn(
              s"sparkbloom could not index ${status.getPath}; it stays unindexed: $e")
            None
        }
      }.collect().toIndexedSeq
    } finally sc.setJobDescription(previous)
  }

  /** Lines every unit of a column up to the largest unit's block count (within the ceiling). */
  private def writeSegment(
      fs: FileSystem, path: Path, results: IndexedSeq[FileIndexer.Result], columns: Seq[String]): Unit = {
    val data = columns.indices.map { c =>
      val perFile = results.map(_.columns(c))
      val blocks = math.max(1,
        perFile.flatMap(_.bitsets).map(_.length / SplitBlockBloomFilter.BytesPerBlock).foldLeft(1)(math.max))
      var next = 0
      val entries = perFile.map { column =>
        val entry = if (column.entry.units == 0) ColumnEntry.NotCovered else column.entry.copy(firstUnit = next)
        next += column.entry.units
        entry
      }
      val units = perFile.flatMap(_.bitsets).map(b => SplitBlockBloomFilter.fromBitset(b).resizedTo(blocks))
      ColumnData(columns(c), blocks, units, units.map(FilterEstimates.fpp).foldLeft(0.0)(math.max), entries)
    }
    IndexLayout.writeSegment(fs, path, results.map(_.file), data)
  }

  /** After a rebuild: older manifests and segments no manifest names any more. */
  private def removeUnreferenced(fs: FileSystem, dir: Path, live: Set[String], version: Long): Unit =
    fs.listStatus(dir).map(_.getPath).foreach { p =>
      val name = p.getName
      val stale = (name.startsWith("segment-") && !live.contains(name)) ||
        (name.endsWith(".manifest") && name != s"v$version.manifest") || name.startsWith(".pending-")
      if (stale)
        try fs.delete(p, false)
        catch { case NonFatal(_) => }
    }

  def drop(spark: SparkSession, root: Path): Boolean = {
    val fs = root.getFileSystem(spark.sessionState.newHadoopConf())
    val dir = IndexLayout.dirOf(fs.makeQualified(root))
    TableIndex.invalidate(dir.toString)
    fs.exists(dir) && fs.delete(dir, true)
  }

  /** What `describe` reports: the index's size and what it covers of the current files. */
  final case class Description(root: Path, columns: Seq[String], fpp: Double, segments: Int, indexBytes: Long,
      filesTotal: Int, filesCovered: Int, entries: Int, maxEstimatedFpp: Map[String, Double],
      blocksPerUnit: Map[String, Int], units: Map[String, Int])

  /** [[describeOnce]], again if a concurrent refresh replaced the index while it was read. */
  def describe(spark: SparkSession, table: IndexedTable): Option[Description] =
    try describeOnce(spark, table)
    catch { case NonFatal(_) => describeOnce(spark, table) }

  private def describeOnce(spark: SparkSession, table: IndexedTable): Option[Description] = {
    val root = table.root
    val fs = root.getFileSystem(spark.sessionState.newHadoopConf())
    val qualifiedRoot = fs.makeQualified(root)
    val dir = IndexLayout.dirOf(qualifiedRoot)
    if (!fs.exists(dir)) return None
    val index = IndexLayout.latestManifest(fs, dir).map(TableIndex.load(fs, qualifiedRoot, _))
      .getOrElse(return None)
    val files = currentFiles(spark, table)
    val bytes = fs.listStatus(dir).map(_.getLen).sum
    val columns = index.segments.flatMap(_.directory.columns)
    def perColumn[T](f: Seq[IndexLayout.SegmentColumn] => T): Map[String, T] =
      columns.groupBy(_.name).map { case (name, cs) => name -> f(cs) }
    Some(Description(qualifiedRoot, index.manifest.columns, index.manifest.fpp, index.segments.size, bytes, files.size,
        files.count(f => index.freshEntryOf(f, table.immutableFiles).isDefined),
        index.segments.map(_.directory.files.size).sum,
        perColumn(_.map(_.maxUnitFpp).max), perColumn(_.map(_.numBlocks).max), perColumn(_.map(_.numUnits).sum)))
  }
}
