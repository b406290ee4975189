// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.util.Locale
import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataInputStream, FileStatus, FileSystem, Path}
import org.apache.parquet.schema.{MessageTypeParser, PrimitiveType}
import org.slf4j.LoggerFactory

import sparkbloom.predicate.PointPredicate
import sparkbloom.predicate.PointPredicate.{All, AnyOf, ColumnIn}
import sparkbloom.index.IndexLayout.{ColumnEntry, IndexedFile, Manifest, SegmentColumn, SegmentDirectory}
import sparkbloom.read.{FileIdentity, FilePruner, RowGroupJudge}
import sparkbloom.sbbf.SplitBlockBloomFilter
import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}
import sparkbloom.warnings.WarnOnce

/**
 * What a table index says about one listed file: which row groups may hold a match.
 * `complete` when every column of the predicate was answered per row group; otherwise the
 * file's own footer and filters may rule out more, and are asked too.
 */
private[sparkbloom] final case class IndexVerdict(rowGroups: Int, mayMatch: IndexedSeq[Boolean],
    midpoints: Option[IndexedSeq[Long]], complete: Boolean) {
  def rulesOutFile: Boolean = rowGroups > 0 && !mayMatch.contains(true)
}

private[sparkbloom] final class LoadedSegment(val status: FileStatus, val directory: SegmentDirectory) {
  def path: Path = status.getPath
  private val byPath: Map[String, Int] = directory.files.iterator.map(_.relativePath).zipWithIndex.toMap
  def fileOrdinal(relativePath: String): Option[Int] = byPath.get(relativePath)
  def file(ordinal: Int): IndexedFile = directory.files(ordinal)
}

/**
 * A table's index as of one manifest. Files are looked up by path relative to the table
 * root, newest segment first; an entry is used only while the file's identity is unchanged
 * ([[FileIdentity]]), so a file added, replaced or rewritten after the build is judged the
 * normal way. A segment that cannot be read, or whose bits fail a checksum, answers
 * nothing: its files are judged the normal way too.
 */
private[sparkbloom] final class TableIndex(val root: Path, val manifest: Manifest,
    val segments: IndexedSeq[LoadedSegment]) {
  import TableIndex._

  private val rootPath = root.toUri.getPath.stripSuffix("/") + "/"
  private val rootScheme = root.toUri.getScheme
  private val rootAuthority = root.toUri.getAuthority

  /** `status`'s path relative to the table root, if it is under it (same file system). */
  def relativePath(status: FileStatus): Option[String] = {
    val uri = status.getPath.toUri
    if (uri.getScheme != rootScheme || uri.getAuthority != rootAuthority || !uri.getPath.startsWith(rootPath)) None
    else Some(uri.getPath.substring(rootPath.length))
  }

  /**
   * The entry of a listed file whose listing matches it: (segment, file ordinal). An entry
   * built from a table format's own file list (Iceberg's: no time, no etag; the format never
   * writes a path twice) is the file's while its path and length are, for a scan of such a
   * table (`immutable`); any other entry only while its whole listing is.
   */
  def entryOf(status: FileStatus, immutable: Boolean = false): Option[(Int, Int)] =
    relativePath(status).flatMap { rel =>
      val newestFirst = segments.indices.reverseIterator.map(s => segments(s).fileOrdinal(rel).map(s -> _))
      newestFirst.collectFirst { case Some(entry) => entry }
    }.filter { case (s, f) =>
      val identity = segments(s).file(f).identity
      if (byPathAndLength(identity, immutable)) identity.length == status.getLen else identity.sameListing(status)
    }

  /** [[entryOf]], with the change time checked too (one `stat` on local file systems) but for a table format's entry. */
  def freshEntryOf(status: FileStatus, immutable: Boolean = false): Option[(Int, Int)] =
    entryOf(status, immutable).filter { case (s, f) =>
      val file = segments(s).file(f)
      byPathAndLength(file.identity, immutable) || unchanged(status, file)
    }

  /** Whether an entry built from a table format's own file list serves a scan of such a table. */
  private def byPathAndLength(identity: FileIdentity, immutable: Boolean): Boolean =
    immutable && identity.modificationTime == 0 && identity.etag.isEmpty

  private def unchanged(status: FileStatus, file: IndexedFile): Boolean =
    file.identity.changeTime < 0 || FileIdentity.changeTimeOf(status.getPath) == file.identity.changeTime

  /**
   * The index's verdicts for the files of a listing, by position in `files`: null for a
   * file it does not cover. Every file it answers for has its change time checked first
   * (one `stat` each on local file systems): even a partial answer narrows the file's own.
   *
   * First, per segment, column and file column type, the units that may hold one of the
   * predicate's values (one block row read per distinct hash); then every file in
   * parallel on `threads` threads, from those alone.
   */
  def judge(
      files: IndexedSeq[FileStatus],
      predicate: PointPredicate,
      caseSensitive: Boolean,
      legacyCalendarSession: Boolean,
      conf: Configuration,
      threads: Int,
      immutable: Boolean): Array[IndexVerdict] = {
    // Anything unexpected answers nothing: the files are then judged the normal way.
    val answers =
      try new Answers(conf, caseSensitive, legacyCalendarSession, predicate)
      catch {
        case NonFatal(e) =>
          warnOnce(s"$root:$e", s"sparkbloom does not use the index of $root for this scan: $e")
          return new Array[IndexVerdict](files.size)
      }
    try {
      FilePruner.inParallel(files.size, threads) { i =>
        try {
          entryOf(files(i), immutable).flatMap { case (s, f) =>
            val file = segments(s).file(f)
            answers.verdict(s, f, file).filter(_ =>
              byPathAndLength(file.identity, immutable) || unchanged(files(i), file))
          }.orNull
        } catch {
          case NonFatal(e) =>
            warnOnce(s"${files(i).getPath}:index", s"sparkbloom does not use the index for ${files(i).getPath}: $e")
            null
        }
      }
    } finally answers.close()
  }

  private sealed trait Answer
  private case object Maybe extends Answer
  private final case class WholeFile(mayMatch: Boolean) extends Answer
  private final case class PerRowGroup(units: java.util.BitSet, first: Int) extends Answer

  /**
   * What the index answers for each leaf of a predicate, worked out up front for every
   * segment, column and shape (a file column's name and type), so that judging a file is
   * array lookups and can run on many threads.
   */
  private final class Answers(conf: Configuration, caseSensitive: Boolean, legacyCalendarSession: Boolean,
      predicate: PointPredicate) {
    private val streams = mutable.Map.empty[Int, FSDataInputStream]
    private val unitsByHashes = mutable.Map.empty[(Int, Int, Seq[Long]), java.util.BitSet]
    private val brokenSegments = mutable.Set.empty[Int]

    private val leafNumbers = new java.util.IdentityHashMap[ColumnIn, Integer]()
    private val leaves: IndexedSeq[ColumnIn] = {
      val found = mutable.ArrayBuffer.empty[ColumnIn]
      def walk(p: PointPredicate): Unit = p match {
        case All(children) => children.foreach(walk)
        case AnyOf(children) => children.foreach(walk)
        case in: ColumnIn => if (!leafNumbers.containsKey(in)) { leafNumbers.put(in, found.size); found += in }
      }
      walk(predicate)
      found.toIndexedSeq
    }

    /** Per leaf, segment, column and shape: None if the shape is not the leaf's column; else its units (None: undecidable). */
    private val byShape: IndexedSeq[IndexedSeq[IndexedSeq[IndexedSeq[Option[Option[java.util.BitSet]]]]]] =
      leaves.map { in =>
        val dotted = in.path.mkString(".")
        segments.indices.map { s =>
          segments(s).directory.columns.indices.map { c =>
            val column = segments(s).directory.columns(c)
            column.shapes.map { shape =>
              lazy val primitive = primitiveTypeOf(shape.primitiveType)
              // located by id (Iceberg's files): the column carrying the id, whatever the file calls it
              val named = shape.fileColumn.nonEmpty &&
                (if (in.locatedById) in.fieldId.exists(id => Option(primitive.getId).exists(_.intValue == id))
                 else if (caseSensitive) shape.fileColumn == dotted
                 else !shape.ambiguousCase &&
                 shape.fileColumn.toLowerCase(Locale.ROOT) == dotted.toLowerCase(Locale.ROOT))
              if (!named) None else Some(unitsOf(s, c, column, primitive, in))
            }
          }
        }
      }

    private val calendar: IndexedSeq[Boolean] = leaves.map(in => RowGroupJudge.calendarType(in.dataType))

    def verdict(s: Int, f: Int, file: IndexedFile): Option[IndexVerdict] =
      if (brokenSegments.contains(s) || file.rowGroups <= 0) None
      else {
        val answers = leaves.indices.map(l => answer(l, s, f, file))
        def eval(p: PointPredicate, rowGroup: Int): Boolean = p match {
          case All(children) => children.forall(eval(_, rowGroup))
          case AnyOf(children) => children.exists(eval(_, rowGroup))
          case in: ColumnIn => answers(leafNumbers.get(in)) match {
              case Maybe => true
              case WholeFile(may) => may
              case PerRowGroup(units, first) => units.get(first + rowGroup)
            }
        }
        val complete = answers.forall(a => a.isInstanceOf[PerRowGroup] || a == WholeFile(false))
        Some(IndexVerdict(file.rowGroups, Array.tabulate(file.rowGroups)(eval(predicate, _)).toIndexedSeq,
            file.midpoints, complete))
      }

    private def answer(l: Int, s: Int, f: Int, file: IndexedFile): Answer =
      if (calendar(l) && (file.legacyCalendar || legacyCalendarSession)) Maybe
      else {
        val columns = segments(s).directory.columns
        val shapes = byShape(l)(s)
        // the first column whose entry for the file is the leaf's column
        columns.indices.iterator.map(c => (columns(c).entries(f), shapes(c))).collectFirst {
          case (entry, columnShapes) if entry.units > 0 && entry.shape >= 0 && columnShapes(entry.shape).isDefined =>
            (entry, columnShapes(entry.shape).get)
        } match {
          case Some((entry, Some(bits))) =>
            if (entry.fileLevel) WholeFile(bits.get(entry.firstUnit))
            // a unit per row group, or nothing is said: never a unit of another row group
            else if (entry.units == file.rowGroups) PerRowGroup(bits, entry.firstUnit)
            else Maybe
          case _ => Maybe
        }
      }

    /** The units of a column that may hold a value of `in` stored as `primitive`; None if undecidable. */
    private def unitsOf(
        s: Int, c: Int, column: SegmentColumn, primitive: PrimitiveType, in: ColumnIn): Option[java.util.BitSet] =
      if (in.fieldId.exists(id => !Option(primitive.getId).exists(_.intValue == id))) None
      else {
        val probes = in.values.map(v => RowGroupJudge.probe(primitive, in.dataType, v))
        if (probes.exists(_.isEmpty)) None
        else Some(unitsMayContain(s, c, column, probes.flatMap(_.get.hashes)))
      }

    /**
     * The units of a column whose filter may hold any of `hashes`: one read of each block
     * row they fall in (a long IN list reads each row once, never more than the column),
     * each row dropped once checked. Cached per set of hashes: the shapes of a column
     * mostly ask the same.
     */
    private def unitsMayContain(s: Int, c: Int, column: SegmentColumn, hashes: Seq[Long]): java.util.BitSet =
      unitsByHashes.getOrElseUpdate((s, c, hashes), {
          val units = new java.util.BitSet(column.numUnits)
          try {
            val byBlock = hashes.distinct.groupBy(SplitBlockBloomFilter.blockIndex(_, column.numBlocks)).toSeq
            matchingUnits(s, column, byBlock).foreach(units.or)
          } catch {
            case NonFatal(e) =>
              warnOnce(segments(s).path.toString,
                s"sparkbloom ignores index segment ${segments(s).path}: $e; " +
                  "its files are judged without it")
              brokenSegments += s
              units.set(0, column.numUnits)
          }
          units
        })

    // Block rows are read where the hashes fall: random reads, with no HEAD before them.
    private def stream(s: Int): FSDataInputStream =
      streams.getOrElseUpdate(s, IndexLayout.open(segments(s).path.getFileSystem(conf), segments(s).status))

    /**
     * Per block and the hashes that fall in it, the units whose row may hold one of them.
     * Several rows (an IN list's) are read at once on the probing threads, a stream each: on
     * an object store one round trip for the list, not one per row. At most
     * [[TableIndex.RowBytesInFlight]] of rows are held at a time, each dropped once checked.
     */
    private def matchingUnits(
        s: Int, column: SegmentColumn, byBlock: Seq[(Int, Seq[Long])]): Seq[java.util.BitSet] = {
      val segment = segments(s)
      def check(row: Array[Byte], inBlock: Seq[Long]): java.util.BitSet = {
        val units = new java.util.BitSet(column.numUnits)
        (0 until column.numUnits).foreach { u =>
          val at = u * SplitBlockBloomFilter.BytesPerBlock
          if (inBlock.exists(SplitBlockBloomFilter.blockMightContain(row, at, _))) units.set(u)
        }
        units
      }
      if (byBlock.size <= 1) {
        byBlock.map { case (block, inBlock) =>
          check(IndexLayout.readRow(stream(s), segment.path, column, block), inBlock)
        }
      } else {
        val fs = segment.path.getFileSystem(conf)
        val atOnce = math.max(1L, TableIndex.RowBytesInFlight / math.max(1, column.rowBytes)).toInt
        byBlock.grouped(atOnce).flatMap { batch =>
          val reads = batch.map { case (block, inBlock) =>
            new java.util.concurrent.Callable[java.util.BitSet] {
              def call(): java.util.BitSet = {
                val in = IndexLayout.open(fs, segment.status)
                try check(IndexLayout.readRow(in, segment.path, column, block), inBlock)
                finally in.close()
              }
            }
          }
          BloomRuntime.get.probePool.invokeAll(reads.asJava).asScala.map(_.get())
        }.toSeq
      }
    }

    def close(): Unit = streams.values.foreach(in =>
      try in.close()
      catch { case NonFatal(_) => })
  }
}

private[sparkbloom] object TableIndex {

  /** Bytes of block rows one lookup holds at a time (a row is 32 bytes per unit: 6.4 MB at 200,000 units). */
  private val RowBytesInFlight: Long = 64L << 20
  private val log = LoggerFactory.getLogger(classOf[TableIndex])

  /**
   * The indexes a runtime keeps loaded, by qualified index directory, at most
   * `maxLoadedIndexes` of them (least recently used dropped first), and the column types
   * their entries name, parsed once.
   */
  private[sparkbloom] final class Loaded(maxIndexes: Int) extends RuntimePart {
    private val byDir = new java.util.LinkedHashMap[String, TableIndex](16, 0.75f, true) {
      override def removeEldestEntry(eldest: java.util.Map.Entry[String, TableIndex]): Boolean =
        this.size() > maxIndexes
    }
    val parsedTypes = new ConcurrentHashMap[String, PrimitiveType]()

    def get(dir: String): Option[TableIndex] = byDir.synchronized(Option(byDir.get(dir)))
    def put(dir: String, index: TableIndex): Unit = byDir.synchronized(byDir.put(dir, index))
    def size: Int = byDir.synchronized(byDir.size())

    override def clear(): Unit = { byDir.synchronized(byDir.clear()); parsedTypes.clear() }
    override def invalidate(pathPrefix: String): Unit =
      byDir.synchronized(byDir.keySet().removeIf(_.startsWith(pathPrefix)))
  }

  private[sparkbloom] object Loaded extends PartKind[Loaded] {
    def make(runtime: BloomRuntime): Loaded = new Loaded(runtime.settings.maxLoadedIndexes)
  }

  private def loaded: Loaded = BloomRuntime.get(Loaded)

  private[sparkbloom] def warnOnce(key: String, message: String): Unit = WarnOnce(log, s"index|$key", message)

  private def primitiveTypeOf(text: String): PrimitiveType =
    loaded.parsedTypes.computeIfAbsent(text,
      t => MessageTypeParser.parseMessageType(s"message m { $t; }").getType(0).asPrimitiveType())

  /**
   * The index of the table at `root` that this runtime loaded last, asking the store
   * nothing: its entries vouch for a file while its listing matches the entry, whatever
   * versions were written since, so a scan whose every file it answers needs no newer one.
   */
  def held(root: Path, conf: Configuration): Option[TableIndex] =
    try {
      val dir = IndexLayout.dirOf(root)
      val fs = dir.getFileSystem(conf)
      loaded.get(fs.makeQualified(dir).toString)
    } catch { case NonFatal(_) => None }

  /**
   * The index of the table at `root`, if it has one that can be read; loaded once per
   * manifest version and kept while that version is the latest. Anything wrong with it is
   * logged once and answers "no index": the data is then judged the normal way.
   */
  def at(root: Path, conf: Configuration): Option[TableIndex] = {
    val dir = IndexLayout.dirOf(root)
    try {
      val fs = dir.getFileSystem(conf)
      IndexLayout.latestManifest(fs, dir).map { listed =>
        val key = fs.makeQualified(dir).toString
        loaded.get(key).filter(_.manifest.version == listed.version).getOrElse {
          val index = load(fs, fs.makeQualified(root), listed)
          loaded.put(key, index)
          index
        }
      }
    } catch {
      case NonFatal(e) =>
        warnOnce(dir.toString, s"sparkbloom ignores the index at $dir: $e; the table is judged without it")
        None
    }
  }

  def load(fs: FileSystem, root: Path, listed: IndexLayout.Listed): TableIndex = {
    val manifest = IndexLayout.readManifest(fs, listed.manifest, listed.version)
    val segments = manifest.segments.map { name =>
      val status = listed.files.getOrElse(name,
        throw new java.io.FileNotFoundException(s"index segment $name of ${listed.manifest.getPath} is missing"))
      new LoadedSegment(status, IndexLayout.readDirectory(fs, status))
    }
    new TableIndex(root, manifest, segments.toIndexedSeq)
  }

  /** Forgets loaded indexes under `pathPrefix` (a qualified path), as REFRESH does for footers. */
  def invalidate(pathPrefix: String): Unit = loaded.invalidate(pathPrefix)
}
