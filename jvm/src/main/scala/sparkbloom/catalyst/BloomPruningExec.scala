// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.OneToOneDependency
import org.apache.spark.rdd.{PartitionPruningRDD, RDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, PlanExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.{FileSourceScanExec, SQLExecution, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.datasources.{FileScanRDD, PartitionedFile}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

import sparkbloom.SparkBloomConf
import sparkbloom.read.{PruningStats, RowGroupSelection}

/**
 * Sits directly on a DataSource V1 Parquet scan and passes its rows or batches through
 * untouched. It exists to be seen: EXPLAIN shows what the scan's Bloom-filter pruning
 * decided (files and row groups before and after), and the Spark UI shows the same as
 * driver-side SQL metrics. `FileSourceScanExec` has a fixed set of metrics, hence a node.
 *
 * It also carries the scan's join keys: dynamic pruning subqueries over a join's other side
 * ([[JoinKeysStrategy]]). Spark plans and runs them as subqueries of this node, so they are
 * done before this node executes; it then hands their keys to the file index, and the scan,
 * listing its files only now, lists what the keys leave.
 */
private[sparkbloom] final case class BloomPruningExec(child: SparkPlan, joinKeys: Seq[Expression] = Nil)
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

  /** What the scan's last listing decided. */
  def stats: Option[PruningStats] = index.flatMap(_.pruner.lastStats)

  protected override def doExecute(): RDD[InternalRow] = {
    useJoinKeys()
    val rows = if (listsNoFile) sparkContext.emptyRDD[InternalRow] else withoutEmptySplits(child.execute())
    report()
    rows
  }

  protected override def doExecuteColumnar(): RDD[ColumnarBatch] = {
    useJoinKeys()
    val batches = if (listsNoFile) sparkContext.emptyRDD[ColumnarBatch] else withoutEmptySplits(child.executeColumnar())
    report()
    batches
  }

  /**
   * Whether the scan's listing for this execution (as the scan itself would list, so the
   * session's last pruning is recorded) leaves no file. The scan is then not executed: Spark
   * would still clone the Hadoop configuration and broadcast it to build readers that read
   * nothing, which costs a lookup of an absent key more than all its probing. Dynamic
   * partition filters are left out: they only remove files. A bucketed scan runs as planned
   * (its partitions are the buckets the plan above expects).
   */
  private def listsNoFile: Boolean = child.outputPartitioning match {
    case _: UnknownPartitioning =>
      (for (s <- scan; index <- index)
        yield index.listFiles(staticPartitionFilters(s), s.dataFilters).forall(_.files.isEmpty)).getOrElse(false)
    case _ => false
  }

  /**
   * Spark has run this node's subqueries (`executeQuery` waits for them) by now. The scan
   * lists once per plan, and so do the subqueries (their results are kept with the plan,
   * as the broadcast they read is): a plan executed again brings the same keys.
   */
  private def useJoinKeys(): Unit = if (joinKeys.nonEmpty) {
    index.foreach(_.pruner.useJoinKeys(JoinKeys.evaluated(joinKeys, SparkBloomConf.joinMaxKeys(conf))))
  }

  /**
   * Drops the partitions that read nothing: splits of judged files holding no split
   * midpoint of a row group that may match ([[RowGroupSelection]]).
   * A lookup that keeps one small row group of a file Spark splits in several ran a task per
   * split, all but one opening nothing. Bucketed scans keep every partition: there a
   * partition is a bucket.
   */
  private def withoutEmptySplits[T](rdd: RDD[T]): RDD[T] = child.outputPartitioning match {
    case _: UnknownPartitioning =>
      fileScanUnder(rdd) match {
        case Some(files) =>
          val keep = files.filePartitions.map(p => !p.files.forall(readsNothing)).toIndexedSeq
          if (keep.forall(identity)) rdd else PartitionPruningRDD.create(rdd, keep)
        case None => rdd
      }
    case _ => rdd
  }

  /** The scan's FileScanRDD, beneath the one-to-one steps Spark adds (its partitions are theirs). */
  private def fileScanUnder(rdd: RDD[_]): Option[FileScanRDD] = rdd match {
    case files: FileScanRDD => Some(files)
    case other =>
      other.dependencies match {
        case Seq(one: OneToOneDependency[_]) => fileScanUnder(one.rdd)
        case _ => None
      }
  }

  /** Whether a split of a judged file reads nothing ([[RowGroupSelection.readsNothing]]). */
  private def readsNothing(file: PartitionedFile): Boolean =
    RowGroupSelection.in(file).exists(_.readsNothing(file.start, file.length))

  private def report(): Unit = stats.foreach { s =>
    PruningMetrics.all.foreach(m => metrics(m.name()).set(m.valueOf(s)))
    val executionId = sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)
    SQLMetrics.postDriverMetricUpdates(sparkContext, executionId, metrics.values.toSeq)
  }

  /**
   * Decides the pruning now (lists and probes), as the plan is made: rendering the plan
   * (EXPLAIN, the SQL tab) then shows it without any I/O. It lists through the index with
   * the filters the scan will use, never through the scan itself: the scan's own driver
   * metrics are set when it lists, and Spark resets metrics after plan strings are built.
   * The scan's listing then reuses this one.
   */
  private[sparkbloom] def decide(): BloomPruningExec = {
    for (s <- scan; index <- index) {
      try index.pruner.describe(staticPartitionFilters(s), s.dataFilters)(
          index.delegate.listFiles(staticPartitionFilters(s), s.dataFilters))
      catch { case NonFatal(_) => } // the query itself will report a listing failure
    }
    this
  }

  private def staticPartitionFilters(s: FileSourceScanExec): Seq[Expression] =
    BloomPruningExec.staticFilters(s.partitionFilters)

  private def pruning: String =
    PruningMetrics.describe(for (s <- scan; index <- index;
        stats <- index.pruner.decided(
          staticPartitionFilters(s), s.dataFilters)) yield stats)

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
