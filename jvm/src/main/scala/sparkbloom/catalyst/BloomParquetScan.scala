package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomTaskMetric}
import org.apache.spark.sql.execution.datasources.FilePartition
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import sparkbloom.read.RowGroupSelection

/**
 * Spark's DataSource V2 Parquet scan over a [[BloomPartitioningAwareFileIndex]]: skipped
 * files never become input partitions, and each kept file is handed to the reader as the
 * byte ranges of its row groups that may match (so parquet-java reads only those). Its
 * description (EXPLAIN) and custom driver metrics (Spark UI) show the pruning.
 */
final class BloomParquetScan(base: ParquetScan, index: BloomPartitioningAwareFileIndex, readerConf: Configuration)
  extends ParquetScan(
    base.sparkSession, readerConf, index, base.dataSchema, base.readDataSchema, base.readPartitionSchema,
    base.pushedFilters, base.options, base.pushedAggregate, base.partitionFilters, base.dataFilters,
    base.pushedVariantExtractions) {

  override def partitions: Seq[FilePartition] =
    super.partitions.map { partition =>
      partition.copy(files = partition.files.flatMap { file =>
        file.otherConstantMetadataColumnValues.get(RowGroupSelection.MetadataKey) match {
          case Some(selection: RowGroupSelection) =>
            val metadata = file.otherConstantMetadataColumnValues - RowGroupSelection.MetadataKey
            selection.rangesWithin(file.start, file.length).map { case (start, length) =>
              file.copy(start = start, length = length, otherConstantMetadataColumnValues = metadata)
            }
          case _ => Seq(file)
        }
      })
    }.filter(_.files.nonEmpty).zipWithIndex.map { case (partition, i) => partition.copy(index = i) }

  override def getMetaData(): Map[String, String] = {
    try index.listFiles(partitionFilters, dataFilters)
    catch { case NonFatal(_) => Nil } // the query itself will report a listing failure
    super.getMetaData() + ("BloomPruning" -> PruningMetrics.describe(index.pruner.lastStats))
  }

  override def supportedCustomMetrics(): Array[CustomMetric] =
    super.supportedCustomMetrics() ++ PruningMetrics.all

  override def reportDriverMetrics(): Array[CustomTaskMetric] =
    super.reportDriverMetrics() ++ index.pruner.lastStats.toSeq.flatMap(s => PruningMetrics.all.map(_.taskMetric(s)))
}
