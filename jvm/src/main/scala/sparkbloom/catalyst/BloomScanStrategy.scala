package sparkbloom.catalyst

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.planning.ScanOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.datasources.{FileSourceStrategy, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2ScanRelation, DataSourceV2Strategy}
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import sparkbloom.SparkBloomConf
import sparkbloom.read.BloomReadParquetFileFormat

/**
 * Plans Parquet scans with Bloom-filter pruning, for DataSource V1 relations (Spark's
 * default) and V2 `ParquetScan`s. It is a planner strategy, not an optimizer rule, because
 * only at planning has Spark pruned catalog partitions and built V2 scans: what is judged
 * is exactly what partition pruning left. The scan itself is still planned by Spark's own
 * strategy; this one only swaps in the pruning file index (and, for V1, the reader that
 * skips row groups and a [[BloomPruningExec]] to show what was skipped).
 */
final case class BloomScanStrategy(session: SparkSession) extends SparkStrategy {

  override def apply(plan: LogicalPlan): Seq[SparkPlan] =
    if (!SparkBloomConf.enabled(session.sessionState.conf)) Nil
    else plan match {
      case ScanOperation(_, _, _, relation: LogicalRelation) => planV1(plan, relation)
      case ScanOperation(_, _, _, relation: DataSourceV2ScanRelation) => planV2(plan, relation)
      case _ => Nil
    }

  private def planV1(plan: LogicalPlan, relation: LogicalRelation): Seq[SparkPlan] = relation.relation match {
    case fs: HadoopFsRelation if fs.fileFormat.isInstanceOf[ParquetFileFormat] &&
        !fs.location.isInstanceOf[BloomPruningFileIndex] =>
      val index = new BloomPruningFileIndex(fs.location, session, fs.options)
      val pruned = relation.copy(relation =
        fs.copy(location = index, fileFormat = new BloomReadParquetFileFormat)(fs.sparkSession))
      FileSourceStrategy(replace(plan, relation, pruned)).map(_.transformUp {
        case scan: FileSourceScanExec if scan.relation.location eq index => BloomPruningExec(scan)
      })
    case _ => Nil
  }

  private def planV2(plan: LogicalPlan, relation: DataSourceV2ScanRelation): Seq[SparkPlan] = relation.scan match {
    case scan: ParquetScan if !scan.isInstanceOf[BloomParquetScan] =>
      val options = scan.options.asCaseSensitiveMap().entrySet().toArray(Array.empty[java.util.Map.Entry[String, String]])
        .map(e => e.getKey -> e.getValue).toMap
      val index = new BloomPartitioningAwareFileIndex(scan.fileIndex, session, options)
      val readerConf = new Configuration(scan.hadoopConf)
      if (SparkBloomConf.pruneRowGroups(session.sessionState.conf)) {
        // the driver read the filters already: tasks must not read them a second time
        readerConf.setBoolean("parquet.filter.bloom.enabled", false)
      }
      val pruned = relation.copy(scan = new BloomParquetScan(scan, index, readerConf))
      classicSession.map(s => new DataSourceV2Strategy(s)(replace(plan, relation, pruned))).getOrElse(Nil)
    case _ => Nil
  }

  private def classicSession: Option[org.apache.spark.sql.classic.SparkSession] = session match {
    case s: org.apache.spark.sql.classic.SparkSession => Some(s)
    case _ => None
  }

  private def replace(plan: LogicalPlan, from: LogicalPlan, to: LogicalPlan): LogicalPlan =
    plan.transformDown { case node if node eq from => to }
}
