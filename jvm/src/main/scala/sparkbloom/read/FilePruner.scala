// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.util.concurrent.{Callable, ConcurrentHashMap}
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.schema.PrimitiveType
import org.slf4j.LoggerFactory

import sparkbloom.predicate.PointPredicate
import sparkbloom.runtime.BloomRuntime
import sparkbloom.predicate.PointPredicate.ColumnIn
import sparkbloom.rows.RowKeys
import sparkbloom.warnings.WarnOnce

/**
 * The driver's verdict on one file: what was decided for each of its row groups, and why
 * ([[Decision]]; `rowGroups` is -1 for a file it could not judge, and `unjudged` says why),
 * each row group's split midpoint, for reading only those that may match, and what a row
 * must hold to match ([[RowKeys]]), for reading only such rows. `filterFpps`: per column
 * judged by filters, the highest false-positive probability of the file's filters used.
 */
private[sparkbloom] final case class FileVerdict(status: FileStatus, rowGroups: Int, decisions: IndexedSeq[Decision],
    midpoints: Option[IndexedSeq[Long]] = None, rowKeys: Option[RowKeys] = None,
    unjudged: Decision = Decision.FooterUnreadable, filterFpps: Seq[(String, Double)] = Nil) {

  lazy val mayMatch: IndexedSeq[Boolean] = decisions.map(!_.skips)

  /** A file is read unless it was judged, has row groups, and every one is ruled out. */
  def keep: Boolean = rowGroups <= 0 || decisions.exists(!_.skips)
  def ruledOut: Int = decisions.count(_.skips)

  /** What was decided for the file as a whole. */
  def decision: Decision = if (rowGroups < 0) unjudged else Decision.ofFile(decisions)
}

private[sparkbloom] object FileVerdict {
  def unjudged(status: FileStatus, reason: Decision): FileVerdict = FileVerdict(status, -1, IndexedSeq.empty,
    unjudged = reason)

  /** A verdict whose row groups a filter kept (`mayMatch`) or ruled out. */
  def byFilter(status: FileStatus, mayMatch: IndexedSeq[Boolean],
      midpoints: Option[IndexedSeq[Long]] = None): FileVerdict =
    FileVerdict(status, mayMatch.size, mayMatch.map(m => if (m) Decision.Maybe else Decision.Filter), midpoints)
}

/**
 * Judges files on the driver, in parallel, by their footers and the filters the predicate
 * needs (through the cache); any failure to read a footer or filter keeps the file and is
 * logged once per file and column.
 */
private[sparkbloom] final class FilePruner(hadoopConf: Configuration, cache: Option[ProbeCache.Scoped],
    caseSensitive: Boolean, legacyCalendarSession: Boolean, parallelism: Int,
    opener: FileOpener = FileOpener.HadoopFileSystem, checkFilters: Boolean = true) {
  import FilePruner._

  private val filterBytes = new AtomicLong()

  // The files of a scan were mostly written alike: the tails of the first size the reads of the rest.
  private val tailSizing = new ProbeReadPlan.TailSizing

  // The files of a scan share column types: convert, hash and sort each IN list's values once
  // per type, not once per file (for `IN (100)` over 200 files that was a third of the judging).
  private val candidates = new ConcurrentHashMap[ListInColumn, Option[ProbeCandidates]]()

  private def candidatesOf(in: ColumnIn, column: PrimitiveType): Option[ProbeCandidates] =
    candidates.computeIfAbsent(new ListInColumn(in, column), _ => ProbeCandidates.of(in, column))

  def filterBytesRead: Long = filterBytes.get

  /** Verdicts for `files`, in order; stops probing (keeping the rest) once it stops paying. */
  def judge(files: Seq[FileStatus], predicate: PointPredicate): IndexedSeq[FileVerdict] = {
    def judgeAll(batch: Seq[FileStatus]) = runAll(batch.map(f => () => judgeFile(f, predicate)))
    // A small first wave decides whether probing pays; the rest go in large waves.
    val (first, rest) = files.toIndexedSeq.splitAt(math.max(8, parallelism))
    val firstVerdicts = judgeAll(first)
    // A first wave in which no row group at all was ruled out says the filters cannot
    // help this predicate (no filters, or the values are everywhere): keep the rest.
    val others =
      if (firstVerdicts.exists(_.ruledOut > 0)) rest.grouped(math.max(512, parallelism * 32)).flatMap(judgeAll)
      else rest.iterator.map(FileVerdict.unjudged(_, Decision.ProbingStopped))
    (firstVerdicts ++ others).toIndexedSeq
  }

  private def runAll(tasks: Seq[() => FileVerdict]): Seq[FileVerdict] =
    if (tasks.size <= 1 || parallelism <= 1) tasks.map(_())
    else BloomRuntime.get.probePool
      .invokeAll(tasks.map(t => new Callable[FileVerdict] { def call(): FileVerdict = t() }).asJava)
      .asScala.toSeq.map(_.get())

  /** Any failure while judging a file keeps the file: doubt reads the data. */
  private def judgeFile(status: FileStatus, predicate: PointPredicate): FileVerdict = {
    val path = status.getPath.toString
    def unjudged(message: String) = {
      warnOnce(path, "", message)
      FileVerdict.unjudged(status, Decision.FooterUnreadable)
    }
    try OpenedFile.using(status, hadoopConf, cache, opener, tailSizing) { file =>
        scala.util.Try(file.footer) match {
          case scala.util.Success(footer) => judgeRowGroups(path, status, file, footer, predicate)
          case scala.util.Failure(e) => unjudged(s"sparkbloom cannot read the footer of $path; the file is read: $e")
        }
      }
    catch { case NonFatal(e) => unjudged(s"sparkbloom could not judge $path; the file is read: $e") }
  }

  /** `lookup`, or why its filter is not to be trusted ([[FilterChecks]]). */
  private def checked(path: String, file: OpenedFile, footer: FooterSummary, rowGroup: Int, column: String,
      lookup: FilterLookup): FilterLookup = lookup match {
    case present: FilterLookup.Present if checkFilters =>
      val chunk = footer.rowGroups(rowGroup).columns(column)
      val writer = footer.createdBy
      val columnType = chunk.primitiveType
      def typeName = s"${columnType.getPrimitiveTypeName}" +
        Option(columnType.getLogicalTypeAnnotation).fold("")(a => s" ($a)")
      lazy val verdicts = BloomRuntime.get(FilterChecks.DictionaryVerdicts)
      def dictionaryRejects: Boolean =
        chunk.dictionaryBytes > 0 && chunk.dictionaryBytes <= FilterChecks.DictionaryMaxBytes && !chunk.encrypted &&
          verdicts.wantsCheck(writer, columnType) &&
          // a dictionary that cannot be read says nothing of the filter: it is used
          scala.util.Try(file.dictionary(rowGroup, column)).toOption.flatten.flatMap { case (descriptor, page) =>
            FilterChecks.admitsDictionary(present, descriptor, page)
          }.contains(false)
      FilterChecks.knownBad(writer, columnType) match {
        case Some(bad) =>
          WarnOnce(log, s"writer|$writer|${bad.source}",
            s"sparkbloom does not use the Bloom filters that '$writer' wrote: ${bad.defect} (${bad.source}); " +
              "its files are read")
          FilterLookup.Distrusted(Decision.WriterKnownBad, bad.defect)
        case None if FilterChecks.emptyButHoldsValues(present, chunk) =>
          FilterLookup.Distrusted(Decision.FilterUnusable, "no bit of the filter is set, but the chunk holds values")
        case None if verdicts.distrusts(writer, columnType) =>
          FilterLookup.Distrusted(Decision.FilterFailsDictionary, s"'$writer' wrote a wrong filter for $typeName")
        case None if dictionaryRejects =>
          verdicts.foundWrong(writer, columnType)
          WarnOnce(log, s"dictionary|$writer|$typeName",
            s"sparkbloom does not use the Bloom filters that '$writer' wrote for $typeName columns: the filter of " +
              s"column '$column' in $path, row group $rowGroup, rejects a value of its own dictionary; " +
              "their files are read")
          FilterLookup.Distrusted(Decision.FilterFailsDictionary, s"'$writer' wrote a wrong filter for $typeName")
        case None => present
      }
    case other => other
  }

  private def judgeRowGroups(path: String, status: FileStatus, file: OpenedFile, footer: FooterSummary,
      predicate: PointPredicate): FileVerdict = {
    val legacyCalendar = legacyCalendarSession || footer.writtenWithLegacyCalendar
    val worstFpp = scala.collection.mutable.LinkedHashMap.empty[String, Double]
    val judge = new RowGroupJudge(footer, caseSensitive, legacyCalendar,
      (rowGroup, column) =>
        checked(path, file, footer, rowGroup, column, file.filter(rowGroup, column)) match {
          case distrusted @ FilterLookup.Distrusted(Decision.FilterUnusable, reason) =>
            warnOnce(path, column,
              s"sparkbloom ignores the Bloom filter of column '$column' in $path, " +
                s"row group $rowGroup: $reason; the data is read instead")
            distrusted
          case broken @ FilterLookup.Broken(reason) =>
            warnOnce(path, column,
              s"sparkbloom ignores the Bloom filter of column '$column' in $path, " +
                s"row group $rowGroup: $reason; the data is read instead")
            broken
          case present: FilterLookup.Present =>
            worstFpp(column) = math.max(worstFpp.getOrElse(column, 0.0), present.fpp)
            present
          case lookup => lookup
        }, candidatesOf)
    try {
      val decisions = footer.rowGroups.map(judge.decide(_, predicate))
      // Row groups of a file share its schema: the first kept one stands for all.
      val rowKeys = footer.rowGroups.indices.find(!decisions(_).skips)
        .flatMap(i => judge.rowKeys(footer.rowGroups(i), predicate, RowKeys.MaxHashes))
      FileVerdict(status, footer.rowGroups.size, decisions, footer.splitMidpoints, rowKeys,
        filterFpps = worstFpp.toSeq)
    } finally filterBytes.addAndGet(file.filterBytesRead)
  }
}

/**
 * An IN list of the scan's predicate in one file column type. The files of a scan share the
 * predicate's nodes, so the node is compared by identity: hashing a long list's values for
 * every file cost more than the lookup saved, and a list holding NaN never equals itself.
 */
private final class ListInColumn(val in: ColumnIn, val column: PrimitiveType) {
  override def equals(other: Any): Boolean = other match {
    case o: ListInColumn => (o.in eq in) && o.column == column
    case _ => false
  }
  override def hashCode: Int = System.identityHashCode(in) * 31 + column.hashCode
}

private[sparkbloom] object FilePruner {
  private val log = LoggerFactory.getLogger(classOf[FilePruner])

  private[read] def warnOnce(path: String, column: String, message: String): Unit =
    WarnOnce(log, s"file|$path|$column", message)

  /**
   * `work(i)` for every i below `n`, on the runtime's probing threads in slices: for
   * per-file checks too small to be a task each (a `stat` per file).
   */
  private[sparkbloom] def inParallel[T: scala.reflect.ClassTag](n: Int, threads: Int)(work: Int => T): Array[T] = {
    val out = new Array[T](n)
    if (n < 1024 || threads <= 1) (0 until n).foreach(i => out(i) = work(i))
    else {
      val chunk = math.max(256, n / (threads * 4))
      val tasks = (0 until n by chunk).map { from =>
        new Callable[Unit] { def call(): Unit = (from until math.min(n, from + chunk)).foreach(i => out(i) = work(i)) }
      }
      BloomRuntime.get.probePool.invokeAll(tasks.asJava).asScala.foreach(_.get())
    }
    out
  }
}
