// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{RecordWriter, TaskAttemptContext}
import org.apache.parquet.hadoop.ParquetOutputFormat
import org.apache.parquet.hadoop.api.WriteSupport
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.OutputWriter

/** Spark's Parquet output writer, with [[BloomWriteSupport]] adding the filters. */
private[sparkbloom] final class BloomParquetOutputWriter(override val path: String, context: TaskAttemptContext)
    extends OutputWriter {
  private val writeSupport = new BloomWriteSupport

  private val recordWriter: RecordWriter[Void, InternalRow] = {
    val format = new ParquetOutputFormat[InternalRow]() {
      override def getDefaultWorkFile(context: TaskAttemptContext, extension: String): Path = new Path(path)
      override def getWriteSupport(configuration: Configuration): WriteSupport[InternalRow] = writeSupport
    }
    format.getRecordWriter(context)
  }
  writeSupport.attach(ParquetWriterInternals.rowGroupFilters(recordWriter))

  override def write(row: InternalRow): Unit = recordWriter.write(null, row)

  override def close(): Unit = recordWriter.close(context)
}
