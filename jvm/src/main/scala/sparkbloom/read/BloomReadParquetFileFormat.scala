// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

import sparkbloom.rows.MatchingRowsReader

/**
 * Spark's Parquet reader, told by the driver which row groups to skip ([[RowGroupSelection]]):
 * a split left with none opens nothing, and filters are not read a second time. A file the
 * driver could not judge is read exactly as Spark reads it, with parquet-java's own filtering.
 *
 * @param readers the readers the scan's files need ([[TaskReaders]]), asked when the scan is
 *                executed (only on the driver: Spark ships this format to the tasks without it)
 */
private[sparkbloom] final class BloomReadParquetFileFormat(
    @transient private val readers: () => TaskReaders = () => TaskReaders.Both)
    extends ParquetFileFormat {

  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    def reader(conf: Configuration) = super.buildReaderWithPartitionValues(
      sparkSession, dataSchema, partitionSchema, requiredSchema, filters, options, conf)
    val needed = readers()
    val unjudged = if (needed.unjudged) Some(reader(hadoopConf)) else None
    val judged = if (needed.judged) Some(reader(BloomReadParquetFileFormat.withoutTaskFilters(hadoopConf))) else None
    (listed: PartitionedFile) =>
      FileJudgement.readAs(listed).fold[Iterator[InternalRow]](Iterator.empty) { file =>
        RowGroupSelection.in(file) match {
          case Some(selection) =>
            val read = needed.pick(fileJudged = true, judged.get, unjudged.get)
            selection.rangesWithin(file.start, file.length).iterator.flatMap { case (start, length) =>
              val rows = read(file.copy(start = start, length = length))
              selection.rowKeys.foreach(MatchingRowsReader.narrow(rows, _, file.toPath.toString))
              rows
            }
          case None => needed.pick(fileJudged = false, judged.get, unjudged.get)(file)
        }
      }
  }

  override def toString: String = "Parquet"
}

private[sparkbloom] object BloomReadParquetFileFormat {

  def withoutTaskFilters(hadoopConf: Configuration): Configuration = {
    val copy = new Configuration(hadoopConf)
    copy.setBoolean("parquet.filter.bloom.enabled", false)
    copy
  }
}
