// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import java.io.InputStream

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.format.{FileMetaData, Util}
import org.apache.spark.Partition
import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.execution.datasources.v2.DataSourceRDDPartition

/**
 * Spark 4.2 and 4.3: parquet-java 1.17, whose footer parsing has a configurable Thrift limit;
 * a V2 scan's RDD partition reads at most one input partition.
 */
private[sparkbloom] object SparkShims
    extends Spark4Shim with RebaseModeAsEnum with ReaderSkipsShim with SumEvalModeShim {
  override def readThriftFooter(in: InputStream, conf: Configuration): FileMetaData =
    Util.readFileMetaData(in, conf.getInt("parquet.thrift.string.size.limit", 100 * 1024 * 1024))

  override def inputPartitionsOf(partition: Partition): Seq[InputPartition] = partition match {
    case p: DataSourceRDDPartition => p.inputPartition.toSeq
    case other => throw new IllegalArgumentException(s"not a partition of a DataSource V2 scan: $other")
  }

  override def partitionReading(index: Int, inputs: Seq[InputPartition]): Partition = {
    require(inputs.size <= 1, s"a partition of a DataSource V2 scan reads at most one input, not ${inputs.size}")
    new DataSourceRDDPartition(index, inputs.headOption)
  }
}
