// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import scala.collection.mutable
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

  /**
   * @param commitAttempts the versions it tried to commit: 1 unless concurrent writers took
   *                       them first
   */
  final case class Built(root: Path, filesIndexed: Int, filesSkipped: Int, segments: Int, rebuilt: Boolean,
      commitAttempts: Int)

  /**
   * A segment this build wrote and has not seen committed, with the settings it was written
   * for and when. Never deleted by the build: a version whose commit answer was lost may name
   * it; unnamed, it expires as any superseded segment does ([[IndexRetention]]).
   */
  private final case class Written(segment: LoadedSegment, settings: Settings, writtenAt: Long)

  /** What an index version is built for: its columns as the files name them, fpp and filter ceiling. */
  private final case class Settings(columns: Seq[String], fpp: Double, maxBytes: Int) {
    def same(other: Settings): Boolean =
      other.columns.map(_.toLowerCase) == columns.map(_.toLowerCase) && other.fpp == fpp &&
        other.maxBytes == maxBytes
    def of(manifest: Manifest): Boolean = same(Settings(manifest.columns, manifest.fpp, manifest.maxBytes))
  }

  /**
   * Builds or refreshes the index of `table` and commits it as the next version. Concurrent
   * writers (other refreshes, a write's background refresh, other processes) are expected:
   * a version another writer took first is not an error. The build then re-reads the newest
   * version, indexes only the files that version and its own unpublished segments lack,
   * and tries the next one, after a jittered back-off, up to `spark.sparkbloom.index.commitAttempts`
   * times. Bad input fails before anything is written.
   */
  def build(spark: SparkSession, table: IndexedTable, columns: Option[Seq[String]], fpp: Option[Double]): Built = {
    val sessionConf = spark.sessionState.conf
    val fs = table.root.getFileSystem(spark.sessionState.newHadoopConf())
    val root = fs.makeQualified(table.root)
    val dir = IndexLayout.dirOf(root)
    val attempts = SparkBloomConf.indexCommitAttempts(sessionConf)
    val retentionMs = SparkBloomConf.indexRetentionMs(sessionConf)
    val maxBytes = FilterSizing.largestPowerOfTwoAtMost(
      math.max(SparkBloomConf.writeMaxBytes(sessionConf).getOrElse(FilterSizing.MinDefaultCeiling).toLong,
        SplitBlockBloomFilter.BytesPerBlock)).toInt
    val resolvedColumns = mutable.Map.empty[(Seq[String], Boolean), Seq[String]]
    lazy val files = currentFiles(spark, table)
    var written = Vector.empty[Written]
    // the segments named before the table was listed: their files were there to be listed
    var namedBeforeListing: Option[Set[String]] = None
    var attempt = 1
    while (true) {
      val listedAt = System.currentTimeMillis()
      val latest = IndexLayout.latestManifest(fs, dir)
      val existing = latest.flatMap { listed =>
        try Some(TableIndex.load(fs, root, listed))
        catch { case NonFatal(e) => log.warn(s"sparkbloom rebuilds the index at $dir, which cannot be read: $e"); None }
      }
      // an index whose segments cannot be read is rebuilt with its own columns and fpp
      val held = existing.map(_.manifest).orElse(latest.flatMap(l =>
          scala.util.Try(IndexLayout.readManifest(fs, l.manifest, l.version)).toOption))
      val wanted = columns.orElse(held.map(_.columns)).getOrElse(
        throw new SparkBloomException(s"there is no index at $root to refresh: name the columns to index"))
      val targetFpp = fpp.orElse(held.map(_.fpp)).getOrElse(SparkBloomConf.writeFpp(sessionConf))
      if (!(targetFpp > 0 && targetFpp < 1))
        throw new SparkBloomException(s"the index fpp must be in (0, 1), got $targetFpp")
      val settings = Settings(resolvedColumns.getOrElseUpdate((wanted, columns.isEmpty),
          table.fileColumns(spark, wanted, held = columns.isEmpty)), targetFpp, maxBytes)
      val published = existing.map(_.manifest.segments.toSet).getOrElse(Set.empty[String])
      val listedNames = latest.map(_.files.keySet).getOrElse(Set.empty[String])
      written = written.filter { w =>
        val name = w.segment.path.getName
        // not one the newest version names (committed, its answer lost on the way back), still
        // there, young enough that no commit's clean-up may remove it before this one names it,
        // and written for these settings
        !published.contains(name) && listedNames.contains(name) && listedAt - w.writtenAt < retentionMs / 2 &&
        w.settings.same(settings)
      }
      val base = existing.filter(e => settings.of(e.manifest) && e.segments.size + written.size < MaxSegments)
      if (namedBeforeListing.isEmpty) namedBeforeListing = Some(published)
      val outcome = attemptCommit(spark, table, fs, root, latest, listedAt, base, namedBeforeListing.get, settings,
        files, written, attempt)
      written = outcome.written
      outcome.built match {
        case Some(built) => return built
        case None if attempt >= attempts =>
          throw new SparkBloomException(s"the index at $dir was changed by other writers $attempts times while " +
            "this build tried to commit (each time it read the newest version and indexed only what that lacked); " +
            s"run it again, or raise ${SparkBloomConf.IndexCommitAttempts.key}")
        case None =>
          log.info(s"sparkbloom: another writer committed version ${nextVersion(latest)} of the index at $dir " +
            s"first; trying again on the newest version (attempt ${attempt + 1} of $attempts)")
          Thread.sleep(backoffMs(attempt))
          attempt += 1
      }
    }
    throw new IllegalStateException("unreachable")
  }

  private def nextVersion(latest: Option[IndexLayout.Listed]): Long = latest.fold(1L)(_.version + 1)

  /** What one attempt did: the build if it committed (or had nothing to add), and the segments it holds unpublished. */
  private final case class Attempt(built: Option[Built], written: Vector[Written])

  /** Which of `files` the entries of `segments` answer for, as a scan would find them. */
  private final class Coverage(root: Path, segments: IndexedSeq[LoadedSegment], immutable: Boolean) {
    private val index = new TableIndex(root, Manifest(0, Nil, 0, 0, Nil), segments)
    def covers(file: FileStatus): Boolean = index.freshEntryOf(file, immutable).isDefined
    def relativePath(file: FileStatus): Option[String] = index.relativePath(file)
  }

  /**
   * Indexes what `candidate` (the newest version, if this one may add to it; None: a rebuild)
   * and `alreadyWritten` lack, and commits the version after `latest`. Entries of files
   * removed from the table since (a table format's rewrite, a deleted file) are dropped
   * with their segment once it holds no other: a segment named before `files` were listed
   * (`namedBeforeListing`) answers for files that were there to be listed; one named later
   * may cover files written after the listing. An index that holds more entries of removed
   * files than of listed ones is rebuilt.
   */
  private def attemptCommit(spark: SparkSession, table: IndexedTable, fs: FileSystem, root: Path,
      latest: Option[IndexLayout.Listed], listedAt: Long, candidate: Option[TableIndex],
      namedBeforeListing: Set[String], settings: Settings, files: IndexedSeq[FileStatus],
      alreadyWritten: Vector[Written], attempt: Int): Attempt = {
    val dir = IndexLayout.dirOf(root)
    val listedPaths = candidate.map(b => files.flatMap(b.relativePath).toSet).getOrElse(Set.empty[String])
    def entriesOfRemoved(segment: LoadedSegment): Int =
      if (!namedBeforeListing(segment.path.getName)) 0
      else segment.directory.files.count(f => !listedPaths(f.relativePath))
    val base: Option[TableIndex] = candidate.filter { b =>
      val dead = b.segments.map(entriesOfRemoved).sum
      dead <= b.segments.map(_.directory.files.size).sum - dead
    }
    val (baseSegments, removedOnly) = base.map(_.segments).getOrElse(IndexedSeq.empty).partition { segment =>
      val entries = segment.directory.files.size
      !namedBeforeListing(segment.path.getName) || entries == 0 || entriesOfRemoved(segment) < entries
    }
    val inBase = new Coverage(root, baseSegments, table.immutableFiles)
    val now = System.currentTimeMillis()
    // a table format's files may lie outside its root: they stay unindexed
    val (lacking, outside) =
      files.filterNot(inBase.covers).map(f => f -> inBase.relativePath(f)).partition(_._2.isDefined)
    val (settled, unsettled) = lacking.partition { case (f, _) =>
      table.immutableFiles || !FileIdentity.of(f).unsettled(now)
    }
    val notIndexed = unsettled.size + outside.size
    if (base.isDefined && settled.isEmpty && removedOnly.isEmpty) {
      // the newest version covers everything: what this build wrote before is not needed
      return Attempt(Some(Built(root, 0, notIndexed, baseSegments.size, rebuilt = false, attempt)), Vector.empty)
    }
    // a segment of its own is named only while it answers for a file the newest version does
    // not: named after the base, its older entries would hide the base's fresher ones
    val lackingFiles = settled.map(_._1)
    var written = alreadyWritten.filter(w =>
      lackingFiles.exists(new Coverage(root, IndexedSeq(w.segment), table.immutableFiles).covers))
    val inWritten = new Coverage(root, written.map(_.segment), table.immutableFiles)
    val toIndex = settled.filterNot { case (f, _) => inWritten.covers(f) }
    // a refresh that only drops segments writes none (an index left with none gets an empty one)
    if (toIndex.nonEmpty || (written.isEmpty && baseSegments.isEmpty)) {
      if (!fs.exists(dir)) fs.mkdirs(dir)
      val results = indexFiles(spark, root, toIndex.map { case (f, rel) => f -> rel.get }, settings.columns,
        table.fieldIds(spark, settings.columns), table.opener, settings.fpp, settings.maxBytes)
      val path = new Path(dir, s"${IndexLayout.SegmentPrefix}${java.util.UUID.randomUUID()}.sbi")
      val writtenAt = System.currentTimeMillis()
      val (directory, length) = writeSegment(fs, path, results, settings.columns)
      // never opened: it answers which files it covers until a version names it
      val status = new FileStatus(length, false, 1, 0, writtenAt, path)
      written :+= Written(new LoadedSegment(status, directory), settings, writtenAt)
    }
    val manifest = Manifest(nextVersion(latest), settings.columns, settings.fpp, settings.maxBytes,
      (baseSegments.map(_.path.getName) ++ written.map(_.segment.path.getName)).toList)
    val retentionMs = SparkBloomConf.indexRetentionMs(spark.sessionState.conf)
    // A listing older than half the retention may be missing versions that other writers made
    // and that have expired since: the version after it could then be created again, below the
    // newest. Such a build (a long indexing job) looks again first.
    val stale = System.currentTimeMillis() - listedAt > retentionMs / 2 &&
      IndexLayout.latestManifest(fs, dir).map(_.version) != latest.map(_.version)
    if (stale || !IndexLayout.commitManifest(fs, dir, manifest)) return Attempt(None, written)
    TableIndex.invalidate(dir.toString)
    val removed = IndexRetention.removeExpired(fs, dir, latest.fold(Map.empty[String, FileStatus])(_.files), manifest,
      retentionMs, System.currentTimeMillis())
    if (removed.nonEmpty) log.info(s"sparkbloom removed ${removed.size} expired files of the index at $dir")
    val indexed = written.map(_.segment.directory.files.size).sum
    Attempt(Some(Built(root, indexed, notIndexed + (settled.size - indexed).max(0), manifest.segments.size,
          base.isEmpty, attempt)), Vector.empty)
  }

  /** Jittered exponential back-off: 50 ms doubling to 2 s, each between half and one and a half of it. */
  private def backoffMs(attempt: Int): Long = {
    val ceiling = math.min(2000L, 50L << math.min(attempt - 1, 10))
    (ceiling / 2) + java.util.concurrent.ThreadLocalRandom.current().nextLong(ceiling)
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
      fs: FileSystem, path: Path, results: IndexedSeq[FileIndexer.Result], columns: Seq[String])
      : (IndexLayout.SegmentDirectory, Long) = {
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
    val listed = IndexLayout.latestManifest(fs, dir).getOrElse(return None)
    val index = TableIndex.load(fs, qualifiedRoot, listed)
    val files = currentFiles(spark, table)
    // the index as it stands: superseded files kept for their retention are not part of it
    val bytes = listed.manifest.getLen + index.segments.map(_.status.getLen).sum
    val columns = index.segments.flatMap(_.directory.columns)
    def perColumn[T](f: Seq[IndexLayout.SegmentColumn] => T): Map[String, T] =
      columns.groupBy(_.name).map { case (name, cs) => name -> f(cs) }
    Some(Description(qualifiedRoot, index.manifest.columns, index.manifest.fpp, index.segments.size, bytes, files.size,
        files.count(f => index.freshEntryOf(f, table.immutableFiles).isDefined),
        index.segments.map(_.directory.files.size).sum,
        perColumn(_.map(_.maxUnitFpp).max), perColumn(_.map(_.numBlocks).max), perColumn(_.map(_.numUnits).sum)))
  }
}
