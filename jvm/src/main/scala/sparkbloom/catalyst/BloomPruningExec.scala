// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.reflect.ClassTag

import org.apache.spark.OneToOneDependency
import org.apache.spark.rdd.{PartitionPruningRDD, RDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, PlanExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.{FileSourceScanExec, SQLExecution, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.{BucketingUtils, FileScanRDD, PartitionedFile}
import org.apache.spark.sql.execution.datasources.v2.{BatchScanExec, DataSourceRDD}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

import sparkbloom.read.{BloomReadParquetFileFormat, FileJudgement, PruningStats, ReadIfChangedRDD, RowGroupSelection}
import sparkbloom.settings.SparkBloomConf
import sparkbloom.shims.SparkShims

/**
 * Sits directly on a DataSource V1 scan (or a V2 batch scan whose source sparkbloom judged)
 * and passes its rows or batches through untouched. It exists to be seen: EXPLAIN shows what
 * the scan's Bloom-filter pruning decided (files and row groups before and after), and the
 * Spark UI shows the same as driver-side SQL metrics. `FileSourceScanExec` has a fixed set of metrics, hence a node.
 *
 * It also carries the scan's join keys: dynamic pruning subqueries over a join's other side
 * ([[JoinKeysStrategy]]). Spark plans and runs them as subqueries of this node, so they are
 * done before this node executes; it then hands their keys to the file index, and the scan,
 * listing its files only now, lists what the keys leave.
 */
private[sparkbloom] final case class BloomPruningExec(child: SparkPlan, joinKeys: Seq[Expression] = Nil,
    decided: Option[PruningStats] = None)
    extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar
  override def supportsRowBased: Boolean = child.supportsRowBased
  override def vectorTypes: Option[Seq[String]] = child.vectorTypes

  override lazy val metrics: Map[String, SQLMetric] =
    PruningMetrics.all.map(m => m.name() -> SQLMetrics.createMetric(sparkContext, m.description())).toMap

  private def scan: Option[FileSourceScanExec] = child match {
    case s: FileSourceScanExec => Some(s)
    case _ => None
  }

  private def index: Option[BloomPruningFileIndex] = scan.map(_.relation.location).collect {
    case index: BloomPruningFileIndex => index
  }

  /** A V2 scan whose source judged it while the plan was optimized (a table format's). */
  private def batchScan: Option[BatchScanExec] = child match {
    case b: BatchScanExec => Some(b)
    case _ => None
  }

  /** What a V2 scan's literals decided while the plan was optimized, kept with this node ([[JudgedScan]]). */
  private def batchDecision: Option[PruningStats] = decided.filter(_ => batchScan.isDefined)

  /**
   * What the scan's last listing decided, or a V2 scan's literals. What a join's keys decide
   * for a V2 scan is its run's own: the session's last pruning and the node's metrics.
   */
  def stats: Option[PruningStats] = index.flatMap(_.pruner.lastStats).orElse(batchDecision)

  protected override def doExecute(): RDD[InternalRow] =
    executed(_.execute(), sparkContext.emptyRDD[InternalRow], unsafeSchema = Some(schema))

  protected override def doExecuteColumnar(): RDD[ColumnarBatch] =
    executed(_.executeColumnar(), sparkContext.emptyRDD[ColumnarBatch], unsafeSchema = None)

  /**
   * The scan's RDD for this plan. Its listing is made (or taken) first, as the scan itself
   * would list, so the session's last pruning is recorded. Where the verdicts left files or
   * splits unread, the RDD carries them, to be read if they change before a later execution
   * of the same plan ([[ReadIfChangedRDD]]). Where nothing at all is to be read, the scan is
   * not executed: Spark would still clone the Hadoop configuration and broadcast it to build
   * readers that read nothing. Dynamic partition filters are left out of that listing: they
   * only remove files. A bucketed scan keeps its partitions: they are the buckets the plan
   * above expects.
   */
  private def executed[T: ClassTag](run: SparkPlan => RDD[T], empty: => RDD[T],
      unsafeSchema: Option[StructType]): RDD[T] = {
    useJoinKeys()
    val listing = for (s <- scan; i <- index) yield i.listFiles(staticPartitionFilters(s), s.dataFilters)
    val ruledOut = for (s <- scan.toSeq if readsIfChanged(s); i <- index.toSeq; f <- i.pruner.lastRuledOut) yield f
    val (rdd, byKeys) =
      if (!bucketed && ruledOut.isEmpty && listing.exists(_.forall(_.files.isEmpty))) (empty, None)
      else if (batchScan.isDefined) withBatchKeys(run(child))
      else {
        val scanned = run(child)
        val read = fileScanUnder(scanned) match {
          case Some(files) if bucketed => withUnread(scanned, files, ruledOut, unsafeSchema)
          case Some(files) =>
            val keep = files.filePartitions.map(p => !p.files.forall(readsNothing)).toIndexedSeq
            val dropped = files.filePartitions.filterNot(p => keep(p.index)).flatMap(_.files)
              .map(f =>
                f.copy(otherConstantMetadataColumnValues = f.otherConstantMetadataColumnValues -
                  RowGroupSelection.MetadataKey))
            val left = if (keep.forall(identity)) scanned else PartitionPruningRDD.create(scanned, keep)
            withUnread(left, files, ruledOut ++ dropped, unsafeSchema)
          case None => scanned
        }
        (read, None)
      }
    byKeys.orElse(batchDecision).foreach(PruningStats.recordLast(session, _))
    report(byKeys.orElse(stats))
    rdd
  }

  /**
   * A V2 scan's RDD without the files that cannot hold a key of the join: a partition none of
   * whose files can is dropped, and one that keeps some reads only those
   * ([[ScanSource.narrowedByKeys]]), and what the keys decided. The scan and its tasks stay as
   * its source planned them: Spark may share the scan with plans of other keys. Where a
   * narrowed partition could not be handed down, the RDD is read as planned and the keys
   * decided nothing.
   */
  private def withBatchKeys[T: ClassTag](scanned: RDD[T]): (RDD[T], Option[PruningStats]) = {
    val keys = JoinKeys.evaluated(joinKeys, SparkBloomConf.joinMaxKeys(conf))
    // a partition of a scan grouped by partition values is one the plan above counts on
    if (keys.predicate.isEmpty || !SparkBloomConf.enabled(conf) || bucketed) return (scanned, None)
    val decided = for {
      b <- batchScan
      source <- under(scanned) { case d: DataSourceRDD => d }
      planned = source.partitions.toSeq.map(SparkShims.inputPartitionsOf)
      narrowed <- ScanSources.all.view.flatMap(_.narrowedByKeys(session, b.scan, planned, keys)).headOption
    } yield (source, planned, narrowed)
    decided match {
      case Some((source, planned, (reads, stats))) =>
        val changed = planned.indices.filter(i => reads(i).nonEmpty && reads(i) != planned(i))
        // a narrowed partition is handed down only through RDDs that hand their own down as it is
        val passedDown = source.partitions.indices.forall(i => scanned.partitions(i) eq source.partitions(i))
        if (changed.nonEmpty && !passedDown) (scanned, None)
        else {
          val narrowed =
            if (changed.isEmpty) scanned
            else new NarrowedInputsRDD(scanned, changed.map(i => i -> SparkShims.partitionReading(i, reads(i))).toMap)
          val keep = reads.map(_.nonEmpty)
          (if (keep.forall(identity)) narrowed else PartitionPruningRDD.create(narrowed, keep), Some(stats))
        }
      case None => (scanned, None)
    }
  }

  private def bucketed: Boolean = !child.outputPartitioning.isInstanceOf[UnknownPartitioning]

  /** Only sparkbloom's own Parquet reader reads what was left unread (a table format's files are never rewritten). */
  private def readsIfChanged(s: FileSourceScanExec): Boolean =
    s.relation.fileFormat.isInstanceOf[BloomReadParquetFileFormat]

  /**
   * `rdd` with `unread` added: in a bucketed scan, each in its bucket's partition; otherwise
   * all in the last partition, or one of their own where the scan has none.
   */
  private def withUnread[T: ClassTag](rdd: RDD[T], files: FileScanRDD, unread: Seq[PartitionedFile],
      unsafeSchema: Option[StructType]): RDD[T] =
    if (unread.isEmpty) rdd
    else {
      // with the last split where there is one: a task of their own costs a lookup more than they do
      val byPartition =
        if (!bucketed) Map(math.max(rdd.partitions.length - 1, 0) -> unread)
        else unread.groupBy(f => BucketingUtils.getBucketId(f.toPath.getName).getOrElse(0) % rdd.partitions.length)
      val settings = scan.fold(Map.empty[String, String]) { s =>
        FileJudgement.settingsOf(s.relation.sparkSession.sessionState.newHadoopConfWithOptions(s.relation.options))
      }
      new ReadIfChangedRDD(rdd, files, byPartition, settings, unsafeSchema)
    }

  /**
   * Spark has run this node's subqueries (`executeQuery` waits for them) by now. The scan
   * lists once per plan, and so do the subqueries (their results are kept with the plan,
   * as the broadcast they read is): a plan executed again brings the same keys.
   */
  private def useJoinKeys(): Unit = if (joinKeys.nonEmpty) {
    index.foreach(_.pruner.useJoinKeys(JoinKeys.evaluated(joinKeys, SparkBloomConf.joinMaxKeys(conf))))
  }

  /** The scan's FileScanRDD, beneath the one-to-one steps Spark adds (its partitions are theirs). */
  private def fileScanUnder(rdd: RDD[_]): Option[FileScanRDD] = under(rdd) { case files: FileScanRDD => files }

  /** The first RDD `pick` takes, beneath the one-to-one steps Spark adds above a scan's own. */
  private def under[R](rdd: RDD[_])(pick: PartialFunction[RDD[_], R]): Option[R] =
    pick.lift(rdd).orElse(rdd.dependencies match {
      case Seq(one: OneToOneDependency[_]) => under(one.rdd)(pick)
      case _ => None
    })

  /** Whether a split of a judged file reads nothing ([[RowGroupSelection.readsNothing]]). */
  private def readsNothing(file: PartitionedFile): Boolean =
    RowGroupSelection.in(file).exists(_.readsNothing(file.start, file.length))

  private def report(shown: Option[PruningStats]): Unit = shown.foreach { s =>
    PruningMetrics.all.foreach(m => metrics(m.name()).set(m.valueOf(s)))
    val executionId = sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
    SQLMetrics.postDriverMetricUpdates(sparkContext, executionId, metrics.values.toSeq)
  }

  /**
   * Decides the pruning through the index, never through the scan itself: the scan's own
   * driver metrics are set when it lists, and Spark resets metrics after plan strings are built.
   */
  private[sparkbloom] def decide(): BloomPruningExec = {
    for (s <- scan; index <- index) index.decide(staticPartitionFilters(s), s.dataFilters)
    this
  }

  private def staticPartitionFilters(s: FileSourceScanExec): Seq[Expression] =
    BloomPruningExec.staticFilters(s.partitionFilters)

  /** What was decided for the scan when it was planned (None: when it runs, by a join's keys). */
  def decidedStats: Option[PruningStats] =
    (for (s <- scan; index <- index; stats <- index.pruner.decided(staticPartitionFilters(s), s.dataFilters))
      yield stats).orElse(batchDecision)

  /** The scan this node prunes, as EXPLAIN names it. */
  def scanName: String = (child.nodeName + scan.filter(_.tableIdentifier.isEmpty)
    .map(s => s" ${s.relation.location.rootPaths.mkString(", ")}").getOrElse("")).replaceAll("\\s+", " ").trim

  private def pruning: String = PruningMetrics.describe(decidedStats)

  /** The join keys as EXPLAIN shows them: the columns they prune and their subqueries. */
  private def joinKeysString: String =
    if (joinKeys.isEmpty) "" else joinKeys.mkString(", join keys: ", ", ", "")

  override def simpleString(maxFields: Int): String = s"BloomPruning $pruning$joinKeysString"

  override def verboseStringWithOperatorId(): String =
    s"${super.verboseStringWithOperatorId()}Pruning: $pruning\n"

  override protected def withNewChildInternal(newChild: SparkPlan): BloomPruningExec = copy(child = newChild)
}

private[sparkbloom] object BloomPruningExec {

  /** Filters without dynamic pruning subqueries, which only remove files and are not known when planning. */
  def staticFilters(filters: Seq[Expression]): Seq[Expression] =
    filters.filterNot(_.exists(_.isInstanceOf[PlanExpression[_]]))
}
