// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.execution.datasources.{FilePartition, FileScanRDD, PartitionedFile}
import org.apache.spark.sql.types.StructType

/**
 * A pruned scan's RDD, with what its verdicts left unread (files ruled out, splits without a
 * row group that may match). The RDD outlives the judging execution when a Dataset is executed
 * again, so each is read in a task, with the scan's own reader, if it is no longer the file that
 * was judged ([[FileJudgement.changed]]: one LIST per directory, with the scan's own Hadoop
 * settings); unchanged, it costs only the task that holds it.
 *
 * @param unread       by partition of `scan`, or one past its last for a partition of their own
 * @param hadoopSettings the scan's Hadoop settings ([[FileJudgement.settingsOf]])
 * @param unsafeSchema where `scan` gives rows, their schema (the scan's output): rows read
 *                     here are made unsafe rows as Spark's scan makes them; batches pass as read
 */
private[sparkbloom] final class ReadIfChangedRDD[T: ClassTag](
    scan: RDD[T],
    files: FileScanRDD,
    unread: Map[Int, Seq[PartitionedFile]],
    hadoopSettings: Map[String, String],
    unsafeSchema: Option[StructType])
    extends RDD[T](scan.sparkContext,
      Seq(new NarrowDependency(scan) {
        override def getParents(partition: Int): Seq[Int] =
          if (partition < scan.partitions.length) Seq(partition) else Nil
      })) {

  override protected def getPartitions: Array[Partition] = {
    val scanned = scan.partitions.length
    scan.partitions.map(p => ReadIfChangedPart(p.index, Some(p)): Partition) ++
      (scanned until (unread.keys.toSeq :+ (scanned - 1)).max + 1).map(ReadIfChangedPart(_, None))
  }

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[ReadIfChangedPart].scanned.fold(Seq.empty[String])(scan.preferredLocations)

  override def compute(split: Partition, context: TaskContext): Iterator[T] = {
    val own = split.asInstanceOf[ReadIfChangedPart].scanned.fold[Iterator[T]](Iterator.empty)(scan.iterator(_, context))
    // the judgement is looked at here first so that nothing is opened when all still hold
    val changed = FileJudgement.changed(unread.getOrElse(split.index, Nil), FileJudgement.configuration(hadoopSettings))
    if (changed.isEmpty) own
    else {
      val read = files.compute(FilePartition(split.index, changed.toArray), context)
      own ++ unsafeSchema.fold(read) { schema =>
        val toUnsafe = UnsafeProjection.create(schema)
        toUnsafe.initialize(split.index)
        read.map(toUnsafe)
      }.asInstanceOf[Iterator[T]]
    }
  }
}

/** One of the scan's partitions, or (`scanned` empty) one that holds only what was left unread. */
private final case class ReadIfChangedPart(index: Int, scanned: Option[Partition]) extends Partition
