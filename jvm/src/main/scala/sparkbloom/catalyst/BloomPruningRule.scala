package sparkbloom.catalyst

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat

import sparkbloom.read.BloomReadParquetFileFormat

/**
 * Gives every Parquet relation of a query a [[BloomPruningFileIndex]], which drops files,
 * and a [[BloomReadParquetFileFormat]], which skips row groups in the files read. It runs after
 * Spark's own partition pruning (as a pre-CBO rule), so partitions are pruned first and
 * only their files are judged; the data filters arrive when Spark lists the files.
 */
final case class BloomPruningRule(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case relation @ LogicalRelation(fs: HadoopFsRelation, _, _, _, _)
        if fs.fileFormat.isInstanceOf[ParquetFileFormat] && !fs.location.isInstanceOf[BloomPruningFileIndex] =>
      val index = new BloomPruningFileIndex(fs.location, session, fs.options)
      relation.copy(relation = fs.copy(location = index, fileFormat = new BloomReadParquetFileFormat)(fs.sparkSession))
  }
}
