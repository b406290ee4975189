// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.FileSourceOptions
import org.apache.spark.sql.connector.expressions.{Expressions, Literal, NamedReference}
import org.apache.spark.sql.connector.expressions.filter.Predicate
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory, SupportsRuntimeV2Filtering}
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetOptions
import org.apache.spark.sql.execution.datasources.v2.FilePartitionReaderFactory
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan
import org.apache.spark.sql.vectorized.ColumnarBatch

import sparkbloom.read.{BloomReadParquetFileFormat, FileJudgement, PruningStats, RowGroupSelection, TaskReaders}
import sparkbloom.settings.SparkBloomConf
import sparkbloom.shims.ParquetScanBase
import sparkbloom.predicate.PointPredicate
import sparkbloom.rows.MatchingRowsReader

/**
 * Spark's DataSource V2 Parquet scan over a [[BloomPartitioningAwareFileIndex]]: skipped
 * files never become input partitions, and each kept file the driver judged is handed to
 * the reader as the byte ranges of its row groups that may match (so parquet-java reads
 * only those, without reading filters again); files it could not judge are read as Spark
 * reads them. Its description (EXPLAIN) and custom driver metrics (Spark UI) show the pruning.
 *
 * A join's keys ([[JoinKeysStrategy]]) arrive as Spark's runtime filters: `IN` lists on data
 * columns, once the dynamic pruning subqueries have run, before Spark asks for partitions again.
 */
private[sparkbloom] final class BloomParquetScan(base: ParquetScan, index: BloomPartitioningAwareFileIndex)
    extends ParquetScanBase(base, index) with SupportsRuntimeV2Filtering {

  override def filterAttributes(): Array[NamedReference] =
    base.readDataSchema.fieldNames.map(name => Expressions.column(name))

  /** Anything but an `IN` list of literals of one type on a column is ignored: it only keeps more data. */
  override def filter(predicates: Array[Predicate]): Unit = {
    val columns = predicates.toSeq.flatMap { p =>
      p.children().toSeq match {
        case (column: NamedReference) +: (values @ (first: Literal[_]) +: _)
            if p.name() == "IN" &&
              values.forall { case v: Literal[_] => v.dataType() == first.dataType(); case _ => false } =>
          val keys = values.map(_.asInstanceOf[Literal[_]].value()).filter(_ != null)
          Some(PointPredicate.ColumnIn(column.fieldNames().toSeq, first.dataType(), keys))
        case _ => None
      }
    }
    index.pruner.useJoinKeys(JoinKeys.of(columns, SparkBloomConf.joinMaxKeys(base.sparkSession.sessionState.conf)))
  }

  /**
   * Spark's splits of the kept files, each judged one cut into the ranges of its row groups
   * that may match (V2 keeps parquet-java's midpoint rule: its splits share no row group);
   * and, with the last of them, what the verdicts left unread, read only if it changes
   * before the scan is executed again ([[FileJudgement]]). Of a split cut into ranges, the
   * first reads the whole split if the file changed, the others nothing.
   */
  override def partitions: Seq[FilePartition] = {
    val unread = Seq.newBuilder[PartitionedFile]
    val kept = super.partitions.map { partition =>
      partition.copy(files = partition.files.flatMap { file =>
        RowGroupSelection.in(file) match {
          case Some(selection) =>
            val ranges = selection.rangesWithin(file.start, file.length)
            if (ranges.isEmpty) unread += file.copy(otherConstantMetadataColumnValues =
              file.otherConstantMetadataColumnValues - RowGroupSelection.MetadataKey)
            ranges.zipWithIndex.map { case ((start, length), i) =>
              val ifChanged =
                if (i == 0) FileJudgement.ReadSplit(file.start, file.length) else FileJudgement.ReadNothing
              val judged =
                file.otherConstantMetadataColumnValues + (RowGroupSelection.MetadataKey -> selection.applied) ++
                  FileJudgement.in(file).map(j => FileJudgement.MetadataKey -> j.copy(ifChanged = ifChanged))
              file.copy(start = start, length = length, otherConstantMetadataColumnValues = judged)
            }
          case None => Seq(file)
        }
      })
    }.filter(_.files.nonEmpty)
    val left = index.pruner.lastRuledOut ++ unread.result()
    // with the last split where there is one: a task of their own costs a lookup more than they do
    val all =
      if (left.isEmpty) kept
      else if (kept.isEmpty) Seq(FilePartition(0, left.toArray))
      else kept.init :+ kept.last.copy(files = kept.last.files ++ left)
    all.zipWithIndex.map { case (partition, i) => partition.copy(index = i) }
  }

  override def createReaderFactory(): PartitionReaderFactory = {
    val readers = index.pruner.lastReaders
    def built(needed: Boolean, factory: => PartitionReaderFactory) =
      if (needed) Some(factory.asInstanceOf[FilePartitionReaderFactory]) else None
    new BloomParquetScan.ReaderFactory(
      new ParquetOptions(base.options.asCaseSensitiveMap.asScala.toMap, base.sparkSession.sessionState.conf),
      readers,
      unjudged = built(readers.unjudged, super.createReaderFactory()),
      judged = built(readers.judged,
        base.copy(hadoopConf = BloomReadParquetFileFormat.withoutTaskFilters(base.hadoopConf)).createReaderFactory()))
  }

  private[sparkbloom] def decide(): BloomParquetScan = { index.decide(partitionFilters, dataFilters); this }

  override def getMetaData(): Map[String, String] =
    super.getMetaData() + ("BloomPruning" -> PruningMetrics.describe(decidedStats))

  /** What was decided for the scan when it was planned. */
  def decidedStats: Option[PruningStats] = index.pruner.decided(partitionFilters, dataFilters)

  /** What the scan's last listing decided. */
  def stats: Option[PruningStats] = index.pruner.lastStats

  override def supportedCustomMetrics(): Array[CustomMetric] =
    super.supportedCustomMetrics() ++ PruningMetrics.all

  override def reportDriverMetrics(): Array[CustomTaskMetric] =
    super.reportDriverMetrics() ++ index.pruner.lastStats.toSeq.flatMap(s => PruningMetrics.all.map(_.taskMetric(s)))
}

private[sparkbloom] object BloomParquetScan {

  /**
   * The pruning scan over `scan`: itself where the optimizer's rule
   * ([[PruneFilesByBloomFilters]]) already made it, so a scan is judged once; else a new one.
   */
  def of(scan: ParquetScan, session: SparkSession): BloomParquetScan = scan match {
    case judged: BloomParquetScan => judged
    case plain =>
      val conf = session.sessionState.conf
      val index = new BloomPartitioningAwareFileIndex(plain.fileIndex, session,
        plain.options.asCaseSensitiveMap().asScala.toMap, SparkBloomConf.pruneRowGroups(conf),
        FileColumns.ofParquetScan(conf, plain.dataSchema))
      new BloomParquetScan(plain, index)
  }

  /**
   * Spark's Parquet reader factory, chosen per file: ranges of files the driver judged are
   * read without parquet-java reading filters again; other files keep its in-task filtering
   * (of the two, only those the scan's files need are built: [[TaskReaders]]).
   */
  final class ReaderFactory(
      override val options: FileSourceOptions,
      readers: TaskReaders,
      unjudged: Option[FilePartitionReaderFactory],
      judged: Option[FilePartitionReaderFactory])
      extends FilePartitionReaderFactory {

    private def forFile(file: PartitionedFile): FilePartitionReaderFactory = readers.pick(
      file.otherConstantMetadataColumnValues.contains(RowGroupSelection.MetadataKey), judged.get, unjudged.get)

    override def supportColumnarReads(partition: InputPartition): Boolean =
      unjudged.orElse(judged).get.supportColumnarReads(partition)
    override def buildReader(file: PartitionedFile): PartitionReader[InternalRow] =
      FileJudgement.readAs(file).fold(nothing[InternalRow])(f => narrowed(f, forFile(f).buildReader(f)))
    override def buildColumnarReader(file: PartitionedFile): PartitionReader[ColumnarBatch] =
      FileJudgement.readAs(file).fold(nothing[ColumnarBatch])(f => narrowed(f, forFile(f).buildColumnarReader(f)))

    private def nothing[T]: PartitionReader[T] = new PartitionReader[T] {
      override def next(): Boolean = false
      override def get(): T = throw new NoSuchElementException("an empty split")
      override def close(): Unit = ()
    }

    private def narrowed[R <: AnyRef](file: PartitionedFile, reader: R): R = {
      RowGroupSelection.in(file).flatMap(_.rowKeys).foreach(MatchingRowsReader.narrow(reader, _, file.toPath.toString))
      reader
    }
  }
}
