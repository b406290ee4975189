// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.util.Locale
import java.util.concurrent.TimeUnit

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{And, Expression, ExpressionSet}
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.datasources.{PartitionDirectory, PartitionedFile}
import org.apache.spark.sql.internal.SQLConf

import sparkbloom.index.{IndexLayout, IndexVerdict, TableIndex}
import sparkbloom.read.{Decision, ExecutorProbing, FileIdentity, FilterLookup, FilterQuality, FileJudgement, FileOpener, FilePruner, FileVerdict, ProbeCache, PruningStats, RowGroupSelection, TaskReaders}
import sparkbloom.predicate.PointPredicate
import sparkbloom.runtime.BloomRuntime
import sparkbloom.settings.SparkBloomConf

/**
 * Turns one scan's file listing (after partition pruning) into the listing Spark should
 * schedule: files in which no row group can match the data filters are left out, and each
 * kept file carries the row groups that may match. Shared by the DataSource V1 and V2 file
 * indexes, which remember the last result so that EXPLAIN and execution share one probe.
 */
private[sparkbloom] object ListingPruner {
  private val log = org.slf4j.LoggerFactory.getLogger(classOf[ListingPruner])

  /** Spark's per-read Parquet option for the calendar of dates and timestamps. */
  val RebaseModeOption = "datetimeRebaseMode"

  /** One listing and the inputs it was decided for. */
  private final case class Listed(
      partitionFilters: Seq[Expression],
      dataFilters: Seq[Expression],
      joinKeys: JoinKeys.Runtime,
      listing: Seq[PartitionDirectory],
      stats: PruningStats,
      ruledOut: Seq[PartitionedFile],
      keptBytes: Long) {

    /**
     * Whether this listing is the one for these inputs. Filters are compared as sets of
     * canonical expressions: the scan lists with its filters in the order and form Spark
     * gives them at each call. Canonical forms leave names out, and a file index matches
     * partition columns by name, so the names must be the same too.
     */
    def answers(partitionFilters: Seq[Expression], dataFilters: Seq[Expression], keys: JoinKeys.Runtime): Boolean =
      joinKeys == keys && (this.partitionFilters == partitionFilters && this.dataFilters == dataFilters ||
        sameMeaning(this.partitionFilters, partitionFilters) && sameMeaning(this.dataFilters, dataFilters))

    /** Sets of canonical forms ignore non-deterministic members: those must be the same expressions. */
    private def sameMeaning(a: Seq[Expression], b: Seq[Expression]): Boolean =
      (a ++ b).forall(_.deterministic) && ExpressionSet(a) == ExpressionSet(b) && names(a) == names(b)

    private def names(filters: Seq[Expression]): Set[String] = filters.flatMap(_.references.map(_.name)).toSet

    lazy val readers: TaskReaders =
      TaskReaders.forFiles(listing.iterator.flatMap(_.files).map(_.metadata.contains(RowGroupSelection.MetadataKey)))
  }

  /**
   * The conjuncts of `dataFilters` that name no partition column. Spark's V2 scans keep a
   * conjunct mixing partition and data columns (`p = 1 OR id = 5`) among their data filters,
   * but a partition column's values come from the directory, never from a column of that name
   * a file may hold, so no such conjunct is judged. Names are compared ignoring case: leaving
   * out more than needed only reads more.
   */
  def onDataColumns(dataFilters: Seq[Expression], partitionColumns: Seq[String]): Seq[Expression] = {
    val partitions = partitionColumns.map(_.toLowerCase(Locale.ROOT)).toSet
    def conjuncts(e: Expression): Seq[Expression] = e match {
      case And(left, right) => conjuncts(left) ++ conjuncts(right)
      case other => Seq(other)
    }
    dataFilters.flatMap(conjuncts).filterNot(_.references.exists(a => partitions(a.name.toLowerCase(Locale.ROOT))))
  }

  /** Where a scan's table index may be: at or above each root of its listing. */
  def indexRoots(rootPaths: Seq[Path], partitionDepth: Int): Seq[Path] =
    rootPaths.flatMap(IndexLayout.candidateRoots(_, partitionDepth)).distinct
}

private[sparkbloom] final class ListingPruner(session: SparkSession, candidates: Candidates, selectRowGroups: Boolean) {
  import ListingPruner.{Listed, RebaseModeOption}
  import candidates.{fileColumns, immutableFiles, indexRoots, opener, options, partitionColumns}

  @volatile private var last: Option[Listed] = None
  @volatile private var joinKeys: JoinKeys.Runtime = JoinKeys.NoKeys
  @volatile private var plannedBytes: Option[Long] = None

  /**
   * The bytes the first listing without join keys kept: the scan's size as the plan is made
   * and sized. Fixed once known, so that keys a join brings at run time never shrink the
   * size of a plan Spark may execute again, or plan again adaptively, with other keys.
   */
  def plannedSize: Option[Long] = plannedBytes

  def lastStats: Option[PruningStats] = last.map(_.stats)

  /** The task readers the files of the last listing need: asked when a scan is executed, no I/O. */
  def lastReaders: TaskReaders = last.fold(TaskReaders.Both)(_.readers)

  /** What was decided for these filters and the join keys in use, if it was: no I/O (plans render it). */
  def decided(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Option[PruningStats] =
    last.collect { case l if l.answers(partitionFilters, dataFilters, joinKeys) => l.stats }

  def forget(): Unit = last = None

  /**
   * The files the last listing left out, as whole-file splits that carry their
   * [[FileJudgement]]: read only if changed since ([[sparkbloom.read.ReadIfChangedRDD]]).
   */
  def lastRuledOut: Seq[PartitionedFile] = last.fold(Seq.empty[PartitionedFile])(_.ruledOut)

  /** Keys of a join's other side, known at run time; later listings probe them too. */
  def useJoinKeys(keys: JoinKeys.Runtime): Unit = joinKeys = keys

  /** The pruned listing for these filters; `listAll` lists the files partition pruning kept. */
  def prune(partitionFilters: Seq[Expression], dataFilters: Seq[Expression])(
      listAll: => Seq[PartitionDirectory]): Seq[PartitionDirectory] = {
    val listed = decide(partitionFilters, dataFilters)(listAll)
    PruningStats.recordLast(session, listed.stats)
    listed.listing
  }

  /** The decision without making it the session's last pruning: a plan rendered or sized is not a scan run. */
  def describe(partitionFilters: Seq[Expression], dataFilters: Seq[Expression])(
      listAll: => Seq[PartitionDirectory]): PruningStats = decide(partitionFilters, dataFilters)(listAll).stats

  /** The pruned listing, as [[describe]] decides it: for a scan that takes its files at planning (a table format's task list). */
  def keptListing(partitionFilters: Seq[Expression], dataFilters: Seq[Expression])(
      listAll: => Seq[PartitionDirectory]): Seq[PartitionDirectory] =
    decide(partitionFilters, dataFilters)(listAll).listing

  private def decide(partitionFilters: Seq[Expression], dataFilters: Seq[Expression])(
      listAll: => Seq[PartitionDirectory]): Listed = synchronized {
    val keys = joinKeys
    last match {
      case Some(l) if l.answers(partitionFilters, dataFilters, keys) => l
      case _ =>
        val (listing, stats, ruledOut) = judge(listAll, dataFilters, keys)
        val listed = Listed(partitionFilters, dataFilters, keys, listing, stats, ruledOut, keptBytes(listing))
        last = Some(listed)
        if (keys == JoinKeys.NoKeys && plannedBytes.isEmpty) plannedBytes = Some(listed.keptBytes)
        listed
    }
  }

  private def judge(
      listed: Seq[PartitionDirectory],
      dataFilters: Seq[Expression],
      keys: JoinKeys.Runtime): (Seq[PartitionDirectory], PruningStats, Seq[PartitionedFile]) = {
    val conf = session.sessionState.conf
    val predicate = (PointPredicate.fromFilters(ListingPruner.onDataColumns(dataFilters, partitionColumns()))
      .toSeq ++ keys.predicate).reduceOption((literals, joined) => PointPredicate.All(Seq(literals, joined)))
    val listedFiles = listed.flatMap(_.files.map(_.fileStatus)).toIndexedSeq
    val inFiles = predicate.flatMap(fileColumns.resolve)
    if (!SparkBloomConf.enabled(conf) || inFiles.isEmpty) {
      val reason =
        if (!SparkBloomConf.enabled(conf)) Decision.SwitchedOff
        else if (predicate.isDefined) Decision.ColumnNotInFile
        else if (keys.overLimit) Decision.JoinKeysOverLimit
        else Decision.NoPointPredicate
      return (listed, PruningStats.unjudged(listedFiles.size, reason), Nil)
    }
    val started = System.nanoTime()
    // taken before any footer is read: a file rewritten while it is judged must not match
    val judgedIn = Option(session.sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY))
    val runtime = BloomRuntime.of(session.sparkContext)
    val parallelism = runtime.settings.parallelism
    val hadoopConf = session.sessionState.newHadoopConfWithOptions(options)
    // a table's own IO reads by path: the etags of Hadoop's file system are no identity of its
    // files; and a format that never writes a path twice needs none (one HEAD per file saved)
    val files =
      if (opener == FileOpener.HadoopFileSystem && !immutableFiles) FileIdentity.withEtags(listedFiles, hadoopConf)
      else listedFiles
    val judgements = FilePruner.inParallel(files.size, parallelism)(i =>
      FileJudgement(FileIdentity.of(files(i)), judgedIn))
    val cache = Some(runtime(ProbeCache)).filter(_ => SparkBloomConf.usesCache(conf))
    val pruner = new FilePruner(
      hadoopConf,
      cache.map(c => ProbeCache.Scoped(c, c.scopeOf(session, hadoopConf))),
      conf.caseSensitiveAnalysis,
      legacyCalendarSession = legacyCalendarInRead(conf),
      parallelism = parallelism,
      opener = opener,
      checkFilters = SparkBloomConf.checkFilters(conf))
    val byIndex =
      if (SparkBloomConf.indexEnabled(conf)) judgeByIndexes(files, inFiles.get, hadoopConf, conf, parallelism)
      else new Array[IndexVerdict](files.size)
    def decided(i: Int): Boolean = byIndex(i) != null && (byIndex(i).rulesOutFile || byIndex(i).complete)
    val toOpen = files.indices.filterNot(decided)
    val (ownVerdicts, bytesOnExecutors) =
      if (ExecutorProbing.wanted(toOpen.size, SparkBloomConf.executorProbingAbove(conf), hadoopConf)) {
        try {
          ExecutorProbing.judge(session, hadoopConf, toOpen.map(files), inFiles.get, conf.caseSensitiveAnalysis,
            legacyCalendarInRead(conf), parallelism, cache.isDefined, opener, SparkBloomConf.checkFilters(conf))
        } catch {
          // a failed or cancelled probing job costs the pruning, not the query
          case scala.util.control.NonFatal(e) =>
            ListingPruner.log.warn(s"sparkbloom's probing job failed; the driver probes instead: $e")
            (pruner.judge(toOpen.map(files), inFiles.get), 0L)
        }
      } else (pruner.judge(toOpen.map(files), inFiles.get), 0L)
    val opened = toOpen.zip(ownVerdicts).toMap
    val judged = files.indices.map { i =>
      val v = byIndex(i)
      if (decided(i)) FileVerdict(files(i), v.rowGroups, v.mayMatch.map(m => if (m) Decision.Maybe else Decision.Index),
        v.midpoints)
      else if (v != null) narrowed(opened(i), v)
      else opened(i)
    }
    // a verdict decides only for the version the store holds now
    val stale = new Array[Boolean](files.size)
    val confirmable = asListedToConfirm(listedFiles, files, judged, judgements(_))
    if (confirmable.nonEmpty) {
      val current = FileIdentity.stillAsListed(confirmable.map(files), hadoopConf)
      confirmable.indices.foreach(j => stale(confirmable(j)) = !current(j))
    }
    val verdicts =
      judged.indices.map(i => if (stale(i)) FileVerdict.unjudged(files(i), Decision.FileChanged) else judged(i))
    val keepAllFiles = !SparkBloomConf.pruneFiles(conf)
    val pruneRowsAbove = SparkBloomConf.pruneRowsAbove(conf)
    val kept = verdicts.indices.filter(i => keepAllFiles || verdicts(i).keep).map(i => files(i).getPath -> i).toMap
    def selection(i: Int): Option[RowGroupSelection] =
      RowGroupSelection.of(verdicts(i)).filter(_ => selectRowGroups).map { s =>
        s.copy(rowKeys = for (k <- s.rowKeys; min <- pruneRowsAbove) yield k.copy(minRowGroupBytes = min))
      }
    val pruned = listed.map { dir =>
      dir.copy(files = dir.files.flatMap { f =>
        kept.get(f.fileStatus.getPath).map { i =>
          selection(i).fold(f) { s =>
            f.copy(metadata =
              f.metadata + (RowGroupSelection.MetadataKey -> s) + (FileJudgement.MetadataKey -> judgements(i)))
          }
        }
      })
    }.filter(_.files.nonEmpty)
    val position = files.indices.map(i => files(i).getPath -> i).toMap
    val ruledOut =
      for {
        dir <- listed
        f <- dir.files if !kept.contains(f.fileStatus.getPath)
        status = f.fileStatus
        judgement = judgements(position(status.getPath))
      } yield PartitionedFile(dir.values, SparkPath.fromFileStatus(status), 0, status.getLen, Array.empty[String],
        status.getModificationTime, status.getLen, f.metadata + (FileJudgement.MetadataKey -> judgement))
    val withRowGroups = verdicts.filter(_.rowGroups >= 0)
    val fileDecisions = verdicts.map(v => if (v.keep || !keepAllFiles) v.decision else Decision.FilePruningOff)
    def counted(decisions: Iterable[Decision]) = decisions.groupBy(identity).map { case (d, n) => d -> n.size.toLong }
    val filterQuality = FilterQuality.of(verdicts.flatMap(v =>
        v.filterFpps.map { case (column, fpp) =>
          (column, v.status.getPath.toString, fpp, fpp >= FilterLookup.SaturatedFpp)
        }))
    val stats = PruningStats(
      filesTotal = files.size,
      filesSkipped = files.size - kept.size,
      rowGroupsTotal = withRowGroups.map(_.rowGroups.toLong).sum,
      rowGroupsSkipped = withRowGroups.map(_.ruledOut.toLong).sum,
      filterBytesRead = pruner.filterBytesRead + bytesOnExecutors,
      joinKeys = keys.keys,
      probeTimeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
      filesCoveredByIndex = byIndex.count(_ != null),
      filesSkippedByIndex = files.indices.count(i => byIndex(i) != null && byIndex(i).rulesOutFile && !stale(i)),
      files = counted(fileDecisions),
      rowGroups = counted(withRowGroups.flatMap(_.decisions)),
      filters = filterQuality)
    (pruned, stats, ruledOut)
  }

  /**
   * The files whose listed status must be confirmed before their verdicts may decide
   * ([[FileIdentity.stillAsListed]]): those that rule a row group out, but not where the
   * listing is current by construction: a table format's snapshot (whose files are never
   * replaced), the statuses the store was just asked for (`withEtags`), and local files, whose
   * change time is read afresh at each judgement.
   */
  private def asListedToConfirm(listed: IndexedSeq[FileStatus], files: IndexedSeq[FileStatus],
      verdicts: IndexedSeq[FileVerdict], judgements: Int => FileJudgement): IndexedSeq[Int] =
    if (immutableFiles) IndexedSeq.empty
    else files.indices.filter { i =>
      verdicts(i).ruledOut > 0 && (files(i) eq listed(i)) && judgements(i).identity.changeTime < 0
    }

  /**
   * What tasks will read of `listing`: each file's length, times the share of its row groups
   * that may match where the driver selected them (a size estimate: the row groups of one
   * file are taken as equally large).
   */
  private def keptBytes(listing: Seq[PartitionDirectory]): Long =
    listing.iterator.flatMap(_.files).map { f =>
      val length = f.fileStatus.getLen
      f.metadata.get(RowGroupSelection.MetadataKey).collect {
        case s: RowGroupSelection if s.keep.nonEmpty => length * s.keep.count(identity) / s.keep.length
      }.getOrElse(length)
    }.sum

  /** What the table indexes of the scan's roots say, by file position; null where none covers a file. */
  private def judgeByIndexes(files: IndexedSeq[FileStatus], predicate: PointPredicate,
      hadoopConf: org.apache.hadoop.conf.Configuration, conf: SQLConf, parallelism: Int): Array[IndexVerdict] = {
    val verdicts = new Array[IndexVerdict](files.size)
    def judgeOpen(index: TableIndex): Unit = {
      val open = files.indices.filter(verdicts(_) == null)
      val judged = index.judge(open.map(files), predicate, conf.caseSensitiveAnalysis, legacyCalendarInRead(conf),
        hadoopConf, parallelism, immutableFiles)
      open.indices.foreach(j => verdicts(open(j)) = judged(j))
    }
    indexRoots().foreach { root =>
      // The index held answers every file whose entry matches its listing: the store is
      // asked for a newer version only when a file is left that one could answer.
      val held = TableIndex.held(root, hadoopConf)
      held.foreach(judgeOpen)
      if (verdicts.contains(null)) {
        TableIndex.at(root, hadoopConf).filterNot(latest => held.exists(_ eq latest)).foreach(judgeOpen)
      }
    }
    verdicts
  }

  /** A file's own verdict, narrowed by the index's: each is sound, so both must allow a row group. */
  private def narrowed(own: FileVerdict, index: IndexVerdict): FileVerdict =
    if (own.rowGroups != index.rowGroups) own
    else own.copy(decisions = own.decisions.zip(index.mayMatch).map { case (d, m) =>
      if (m || d.skips) d else Decision.Index
    })

  /**
   * Whether dates and timestamps of files that do not say how they were written are read
   * in the hybrid Julian calendar, decided as Spark's Parquet reader decides it: the read
   * option `datetimeRebaseMode`, else the session's typed setting (which accepts any case).
   * Anything but CORRECTED is treated as LEGACY: such values are then never judged.
   */
  private def legacyCalendarInRead(conf: SQLConf): Boolean = {
    val mode = options.collectFirst { case (k, v) if k.equalsIgnoreCase(RebaseModeOption) => v }
      .getOrElse(conf.getConf(SQLConf.PARQUET_REBASE_MODE_IN_READ).toString)
    !mode.trim.equalsIgnoreCase("CORRECTED")
  }
}
