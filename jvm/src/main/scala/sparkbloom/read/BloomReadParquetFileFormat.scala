package sparkbloom.read

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/**
 * Spark's Parquet reader, told by the driver which row groups to skip: a split reads only
 * the row groups the driver found may match (see [[RowGroupSelection]]); a split left with
 * none opens nothing. Because the driver already probed the filters, tasks do not read
 * them a second time.
 *
 * @param rowGroupsJudged the driver selects row groups for this scan
 *                        (`spark.sparkbloom.pruning.rowGroups` when it was planned)
 */
final class BloomReadParquetFileFormat(rowGroupsJudged: Boolean) extends ParquetFileFormat {

  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] =
    if (!rowGroupsJudged) {
      super.buildReaderWithPartitionValues(
        sparkSession, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf)
    } else {
      val read = super.buildReaderWithPartitionValues(sparkSession, dataSchema, partitionSchema, requiredSchema,
        filters, options, BloomReadParquetFileFormat.withoutTaskFilters(hadoopConf))
      (file: PartitionedFile) =>
        file.otherConstantMetadataColumnValues.get(RowGroupSelection.MetadataKey) match {
          case Some(selection: RowGroupSelection) =>
            selection.rangesWithin(file.start, file.length).iterator.flatMap { case (start, length) =>
              read(file.copy(start = start, length = length))
            }
          case _ => read(file)
        }
    }

  override def toString: String = "Parquet"
}

object BloomReadParquetFileFormat {
  /** A reader configuration in which parquet-java does not read Bloom filters in tasks. */
  def withoutTaskFilters(hadoopConf: Configuration): Configuration = {
    val copy = new Configuration(hadoopConf)
    copy.setBoolean("parquet.filter.bloom.enabled", false)
    copy
  }
}
