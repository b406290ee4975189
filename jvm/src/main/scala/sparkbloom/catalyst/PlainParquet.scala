// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

/**
 * The scans sparkbloom judges on its own: Spark's own Parquet format and scan, never a
 * subclass. Another project's format (Delta's DeltaParquetFileFormat reads column-mapped
 * names and deletion vectors; other lake formats have theirs) is planned exactly as without
 * sparkbloom, unless a source supports it on purpose ([[ScanSource]]).
 */
private[sparkbloom] object PlainParquet {

  def relation(fs: HadoopFsRelation): Boolean = fs.fileFormat.getClass == classOf[ParquetFileFormat]

  def scan(plan: LogicalPlan): Boolean = plan match {
    case r: LogicalRelation => fsOf(r).exists(relation)
    case r: DataSourceV2ScanRelation => r.scan.getClass == classOf[ParquetScan] || r.scan.isInstanceOf[BloomParquetScan]
    case _ => false
  }

  /** Names of the partition columns of a [[scan]]. */
  def partitionColumns(plan: LogicalPlan): Seq[String] = plan match {
    case r: LogicalRelation => fsOf(r).toSeq.flatMap(_.partitionSchema.fieldNames)
    case r: DataSourceV2ScanRelation => r.scan match {
        case scan: ParquetScan => scan.readPartitionSchema.fieldNames.toSeq
        case _ => Nil
      }
    case _ => Nil
  }

  private def fsOf(r: LogicalRelation): Option[HadoopFsRelation] =
    Some(r.relation).collect { case fs: HadoopFsRelation => fs }
}
