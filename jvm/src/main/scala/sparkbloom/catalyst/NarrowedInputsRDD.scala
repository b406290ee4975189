// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import scala.reflect.ClassTag

import org.apache.spark.{Partition, TaskContext}
import org.apache.spark.rdd.RDD

/**
 * A DataSource V2 scan's RDD (`scanned`, whatever maps it row by row above its
 * `DataSourceRDD`) whose partition `i` reads `narrowed(i)` instead: a partition of the same
 * index that the `DataSourceRDD` below reads other input partitions from. The partition is
 * handed down the chain as Spark hands any partition down (the maps above the source do not
 * look into it), so the scan and its planned partitions stay as they were for every other
 * plan that shares them. Where a partition runs is where the one it replaces would.
 */
private[catalyst] final class NarrowedInputsRDD[T: ClassTag](scanned: RDD[T], narrowed: Map[Int, Partition])
    extends RDD[T](scanned) {

  override protected def getPartitions: Array[Partition] =
    scanned.partitions.map(p => narrowed.getOrElse(p.index, p))

  override def compute(split: Partition, context: TaskContext): Iterator[T] = scanned.iterator(split, context)

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    scanned.preferredLocations(scanned.partitions(split.index))
}
