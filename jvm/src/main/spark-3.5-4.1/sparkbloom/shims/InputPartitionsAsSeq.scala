// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.Partition
import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.execution.datasources.v2.DataSourceRDDPartition

/** Before Spark 4.2 a partition of a V2 scan's RDD reads a list of input partitions. */
private[sparkbloom] trait InputPartitionsAsSeq extends SparkShim {
  override def inputPartitionsOf(partition: Partition): Seq[InputPartition] = partition match {
    case p: DataSourceRDDPartition => p.inputPartitions.toSeq
    case other => throw new IllegalArgumentException(s"not a partition of a DataSource V2 scan: $other")
  }

  override def partitionReading(index: Int, inputs: Seq[InputPartition]): Partition =
    new DataSourceRDDPartition(index, inputs.toList)
}
