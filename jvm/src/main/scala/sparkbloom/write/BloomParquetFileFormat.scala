// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import org.apache.hadoop.mapreduce.{Job, TaskAttemptContext}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import sparkbloom.hashing.FilterSupport

/**
 * Spark's Parquet format for one write that carries sparkbloom filters. Reading is
 * untouched (it is the parent's); writing differs only in the output writer.
 */
private[sparkbloom] final class BloomParquetFileFormat(val spec: BloomWriteSpec) extends ParquetFileFormat {

  override def prepareWrite(sparkSession: SparkSession, job: Job, options: Map[String, String],
      dataSchema: StructType): OutputWriterFactory = {
    val parent = super.prepareWrite(sparkSession, job, options, dataSchema)
    val conf = job.getConfiguration
    conf.set(BloomWriteSpec.ConfKey, spec.encode)
    if (BloomWriteOptions.needsMicros(spec, dataSchema)) {
      val key = SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key
      conf.set(key, FilterSupport.filterableTimestampType(conf.get(key, "INT96")))
    }
    new OutputWriterFactory {
      override def getFileExtension(context: TaskAttemptContext): String = parent.getFileExtension(context)
      override def newInstance(path: String, dataSchema: StructType, context: TaskAttemptContext): OutputWriter =
        new BloomParquetOutputWriter(path, context)
    }
  }

  override def toString: String = "Parquet with sparkbloom filters"

  override def equals(other: Any): Boolean = other match {
    case that: BloomParquetFileFormat => that.spec == spec
    case _ => false
  }

  override def hashCode(): Int = spec.hashCode()
}
