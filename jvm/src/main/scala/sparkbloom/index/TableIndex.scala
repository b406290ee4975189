package sparkbloom.index

import java.util.Locale
import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FSDataInputStream, FileStatus, FileSystem, Path}
import org.apache.parquet.schema.{MessageTypeParser, PrimitiveType}
import org.apache.spark.sql.types.{DateType, TimestampNTZType, TimestampType}
import org.slf4j.LoggerFactory

import sparkbloom.catalyst.PointPredicate
import sparkbloom.catalyst.PointPredicate.{All, AnyOf, ColumnIn}
import sparkbloom.index.IndexLayout.{ColumnEntry, IndexedFile, Manifest, SegmentColumn, SegmentDirectory}
import sparkbloom.read.{FileIdentity, RowGroupJudge}
import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * What a table index says about one listed file: which row groups may hold a match.
 * `complete` when every column of the predicate was answered per row group; otherwise the
 * file's own footer and filters may rule out more, and are asked too.
 */
private[sparkbloom] final case class IndexVerdict(
    rowGroups: Int,
    mayMatch: IndexedSeq[Boolean],
    midpoints: Option[IndexedSeq[Long]],
    complete: Boolean) {
  def rulesOutFile: Boolean = rowGroups > 0 && !mayMatch.contains(true)
}

/** One segment as loaded: its directory, and its files by path relative to the table. */
private[sparkbloom] final class LoadedSegment(val path: Path, val directory: SegmentDirectory) {
  private val byPath: Map[String, Int] = directory.files.iterator.zipWithIndex.map { case (f, i) => f.relativePath -> i }.toMap
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
private[sparkbloom] final class TableIndex(val root: Path, val manifest: Manifest, val segments: IndexedSeq[LoadedSegment]) {
  import TableIndex._

  private val rootPath = root.toUri.getPath.stripSuffix("/") + "/"
  private val rootScheme = root.toUri.getScheme

  /** `status`'s path relative to the table root, if it is under it. */
  def relativePath(status: FileStatus): Option[String] = {
    val uri = status.getPath.toUri
    if (uri.getScheme != rootScheme || !uri.getPath.startsWith(rootPath)) None
    else Some(uri.getPath.substring(rootPath.length))
  }

  /** The entry of a listed file whose listing matches it: (segment, file ordinal). */
  def entryOf(status: FileStatus): Option[(Int, Int)] = relativePath(status).flatMap { rel =>
    segments.indices.reverseIterator.flatMap(s => segments(s).fileOrdinal(rel).map(s -> _)).toSeq.headOption
      .filter { case (s, f) => segments(s).file(f).identity.sameListing(status) }
  }

  /** [[entryOf]], with the change time checked too (one `stat` on local file systems). */
  def freshEntryOf(status: FileStatus): Option[(Int, Int)] = entryOf(status).filter { case (s, f) =>
    val changeTime = segments(s).file(f).identity.changeTime
    changeTime < 0 || FileIdentity.changeTimeOf(status.getPath) == changeTime
  }

  /**
   * The index's verdicts for the files of a listing it covers (by position in `files`).
   * Files it rules out entirely, or answers completely, have their change time checked
   * before the answer is given (one `stat` each on local file systems).
   */
  def judge(
      files: IndexedSeq[FileStatus],
      predicate: PointPredicate,
      caseSensitive: Boolean,
      legacyCalendarSession: Boolean,
      conf: Configuration): Map[Int, IndexVerdict] = {
    val probe = new Probe(conf, caseSensitive, legacyCalendarSession)
    try {
      val verdicts = files.indices.flatMap { i =>
        entryOf(files(i)).flatMap { case (s, f) =>
          val file = segments(s).file(f)
          val verdict = probe.verdict(s, f, file, predicate)
          val decisive = verdict.exists(v => v.rulesOutFile || v.complete)
          val trusted = !decisive || file.identity.changeTime < 0 ||
            FileIdentity.changeTimeOf(files(i).getPath) == file.identity.changeTime
          verdict.filter(_ => trusted).map(v => i -> (s, v))
        }
      }
      verdicts.collect { case (i, (s, v)) if !probe.broken(s) => i -> v }.toMap
    } finally probe.close()
  }

  private sealed trait Answer
  private case object Maybe extends Answer
  private final case class WholeFile(mayMatch: Boolean) extends Answer
  private final case class PerRowGroup(units: java.util.BitSet, first: Int) extends Answer

  /** One judgement's reads: block rows, read once each, and the segments found broken. */
  private final class Probe(conf: Configuration, caseSensitive: Boolean, legacyCalendarSession: Boolean) {
    private val streams = mutable.Map.empty[Int, FSDataInputStream]
    private val unitsByHash = mutable.Map.empty[(Int, Int, Long), java.util.BitSet]
    private val probesByType = mutable.Map.empty[(String, ColumnIn), Option[Seq[Long]]]
    private val brokenSegments = mutable.Set.empty[Int]

    def broken(segment: Int): Boolean = brokenSegments.contains(segment)

    def verdict(s: Int, f: Int, file: IndexedFile, predicate: PointPredicate): Option[IndexVerdict] =
      if (broken(s) || file.rowGroups <= 0) None
      else {
        var complete = true
        val answers = mutable.Map.empty[ColumnIn, Answer]
        def answer(in: ColumnIn): Answer = answers.getOrElseUpdate(in, {
          val a = leaf(s, f, file, in)
          if (!a.isInstanceOf[PerRowGroup] && a != WholeFile(false)) complete = false
          a
        })
        def eval(p: PointPredicate, rowGroup: Int): Boolean = p match {
          case All(children) => children.forall(eval(_, rowGroup))
          case AnyOf(children) => children.exists(eval(_, rowGroup))
          case in: ColumnIn => answer(in) match {
            case Maybe => true
            case WholeFile(may) => may
            case PerRowGroup(units, first) => units.get(first + rowGroup)
          }
        }
        val mayMatch = (0 until file.rowGroups).map(eval(predicate, _))
        if (broken(s)) None else Some(IndexVerdict(file.rowGroups, mayMatch, file.midpoints, complete))
      }

    private def leaf(s: Int, f: Int, file: IndexedFile, in: ColumnIn): Answer = {
      val segment = segments(s)
      val dotted = in.path.mkString(".")
      val found = segment.directory.columns.indices.find { c =>
        val e = segment.directory.columns(c).entries(f)
        e.units > 0 && (if (caseSensitive) e.fileColumn == dotted
          else e.fileColumn.toLowerCase(Locale.ROOT) == dotted.toLowerCase(Locale.ROOT) && !e.ambiguousCase)
      }
      found match {
        case None => Maybe
        case Some(c) =>
          val column = segment.directory.columns(c)
          val entry = column.entries(f)
          val primitive = primitiveTypeOf(entry.primitiveType)
          val calendar = in.dataType == DateType || in.dataType == TimestampType || in.dataType == TimestampNTZType
          if (calendar && (file.legacyCalendar || legacyCalendarSession)) Maybe
          else if (in.fieldId.exists(id => !Option(primitive.getId).exists(_.intValue == id))) Maybe
          else probesByType.getOrElseUpdate((entry.primitiveType, in), hashesOf(primitive, in)) match {
            case None => Maybe
            case Some(hashes) =>
              val units = new java.util.BitSet(column.numUnits)
              hashes.foreach(h => units.or(unitsMayContain(s, c, column, h)))
              if (entry.fileLevel) WholeFile(units.get(entry.firstUnit)) else PerRowGroup(units, entry.firstUnit)
          }
      }
    }

    private def hashesOf(primitive: PrimitiveType, in: ColumnIn): Option[Seq[Long]] = {
      val probes = in.values.map(v => RowGroupJudge.probe(primitive, in.dataType, v))
      if (probes.exists(_.isEmpty)) None else Some(probes.flatMap(_.get.hashes))
    }

    /** The units of a column whose filter may hold `hash`: one read of one block row. */
    private def unitsMayContain(s: Int, c: Int, column: SegmentColumn, hash: Long): java.util.BitSet =
      unitsByHash.getOrElseUpdate((s, c, hash), {
        val units = new java.util.BitSet(column.numUnits)
        try {
          val block = SplitBlockBloomFilter.blockIndex(hash, column.numBlocks)
          val row = IndexLayout.readRow(stream(s), segments(s).path, column, block)
          var u = 0
          while (u < column.numUnits) {
            if (SplitBlockBloomFilter.blockMightContain(row, u * SplitBlockBloomFilter.BytesPerBlock, hash)) units.set(u)
            u += 1
          }
        } catch {
          case NonFatal(e) =>
            warnOnce(segments(s).path.toString, s"sparkbloom ignores index segment ${segments(s).path}: $e; " +
              "its files are judged without it")
            brokenSegments += s
            units.set(0, column.numUnits)
        }
        units
      })

    private def stream(s: Int): FSDataInputStream =
      streams.getOrElseUpdate(s, segments(s).path.getFileSystem(conf).open(segments(s).path))

    def close(): Unit = streams.values.foreach(in => try in.close() catch { case NonFatal(_) => })
  }
}

private[sparkbloom] object TableIndex {
  private val log = LoggerFactory.getLogger(classOf[TableIndex])
  private val warned = ConcurrentHashMap.newKeySet[String]()
  private val loaded = new ConcurrentHashMap[String, TableIndex]()
  private val parsedTypes = new ConcurrentHashMap[String, PrimitiveType]()

  private[sparkbloom] def warnOnce(key: String, message: String): Unit = if (warned.add(key)) log.warn(message)

  private def primitiveTypeOf(text: String): PrimitiveType =
    parsedTypes.computeIfAbsent(text, t => MessageTypeParser.parseMessageType(s"message m { $t; }").getType(0).asPrimitiveType())

  /**
   * The index of the table at `root`, if it has one that can be read; loaded once per
   * manifest version and kept while that version is the latest. Anything wrong with it is
   * logged once and answers "no index": the data is then judged the normal way.
   */
  def at(root: Path, conf: Configuration): Option[TableIndex] = {
    val dir = IndexLayout.dirOf(root)
    try {
      val fs = dir.getFileSystem(conf)
      if (!fs.exists(dir)) return None
      IndexLayout.latestManifest(fs, dir).flatMap { case (manifestPath, version) =>
        val key = fs.makeQualified(dir).toString
        val cached = loaded.get(key)
        if (cached != null && cached.manifest.version == version) Some(cached)
        else {
          val index = load(fs, fs.makeQualified(root), dir, manifestPath, version)
          loaded.put(key, index)
          Some(index)
        }
      }
    } catch {
      case NonFatal(e) =>
        warnOnce(dir.toString, s"sparkbloom ignores the index at $dir: $e; the table is judged without it")
        None
    }
  }

  def load(fs: FileSystem, root: Path, dir: Path, manifestPath: Path, version: Long): TableIndex = {
    val manifest = IndexLayout.readManifest(fs, manifestPath, version)
    val segments = manifest.segments.map { name =>
      val path = new Path(dir, name)
      new LoadedSegment(fs.makeQualified(path), IndexLayout.readDirectory(fs, path))
    }
    new TableIndex(root, manifest, segments.toIndexedSeq)
  }

  /** Forgets loaded indexes under `pathPrefix` (a qualified path), as REFRESH does for footers. */
  def invalidate(pathPrefix: String): Unit = loaded.keySet().removeIf(_.startsWith(pathPrefix))
}
