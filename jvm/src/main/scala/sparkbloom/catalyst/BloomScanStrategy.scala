package sparkbloom.catalyst

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.planning.ScanOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.datasources.{FileSourceStrategy, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

import sparkbloom.SparkBloomConf
import sparkbloom.read.{BloomReadParquetFileFormat, PruningStats}
import sparkbloom.shims.SparkShims

/**
 * Plans Parquet scans with Bloom-filter pruning, for DataSource V1 relations (Spark's
 * default) and V2 `ParquetScan`s. It is a planner strategy, not an optimizer rule, because
 * only at planning has Spark pruned catalog partitions and built V2 scans: what is judged
 * is exactly what partition pruning left. The scan itself is still planned by Spark's own
 * strategy; this one only swaps in the pruning file index (and, for V1, the reader that
 * skips row groups and a [[BloomPruningExec]] to show what was skipped).
 */
final case class BloomScanStrategy(session: SparkSession) extends SparkStrategy {

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case ScanOperation(_, _, filters, relation: LogicalRelation) => relation.relation match {
      case fs: HadoopFsRelation if fs.fileFormat.getClass == classOf[ParquetFileFormat] &&
          !fs.location.isInstanceOf[BloomPruningFileIndex] => whenJudgeable(filters)(planV1(plan, relation, fs))
      case _ => Nil
    }
    case ScanOperation(_, _, _, relation: DataSourceV2ScanRelation) => relation.scan match {
      case scan: ParquetScan if scan.getClass == classOf[ParquetScan] =>
        whenJudgeable(scan.dataFilters)(planV2(plan, relation, scan))
      case _ => Nil
    }
    case _ => Nil
  }

  // Only Spark's own Parquet format and scan, never a subclass: another project's format
  // (Delta's DeltaParquetFileFormat reads column-mapped names and deletion vectors; other
  // lake formats have theirs) is planned exactly as without sparkbloom.

  /**
   * Switched off, or with no `=`/`IN`/`<=>` on literals among the scan's filters (a full
   * scan, ranges only), Spark plans the scan exactly as without sparkbloom: nothing can be
   * judged, so nothing of sparkbloom's may cost anything.
   */
  private def whenJudgeable(filters: Seq[Expression])(planned: => Seq[SparkPlan]): Seq[SparkPlan] =
    if (SparkBloomConf.enabled(session.sessionState.conf) && PointPredicate.fromFilters(filters).isDefined) planned
    else {
      PruningStats.recordLast(session, PruningStats.Empty)
      Nil
    }

  private def planV1(plan: LogicalPlan, relation: LogicalRelation, fs: HadoopFsRelation): Seq[SparkPlan] = {
    val index = new BloomPruningFileIndex(fs.location, session, fs.options, selectRowGroups)
    val pruned = relation.copy(relation =
      fs.copy(location = index, fileFormat = new BloomReadParquetFileFormat)(fs.sparkSession))
    FileSourceStrategy(replace(plan, relation, pruned)).map(_.transformUp {
      case scan: FileSourceScanExec if scan.relation.location eq index => BloomPruningExec(scan)
    })
  }

  private def planV2(plan: LogicalPlan, relation: DataSourceV2ScanRelation, scan: ParquetScan): Seq[SparkPlan] = {
    val options = scan.options.asCaseSensitiveMap().asScala.toMap
    val index = new BloomPartitioningAwareFileIndex(scan.fileIndex, session, options, selectRowGroups)
    val pruned = relation.copy(scan = new BloomParquetScan(scan, index))
    SparkShims.planDataSourceV2(session, replace(plan, relation, pruned))
  }

  /** Whether tasks read only the row groups the driver selected. */
  private def selectRowGroups: Boolean = SparkBloomConf.pruneRowGroups(session.sessionState.conf)

  private def replace(plan: LogicalPlan, from: LogicalPlan, to: LogicalPlan): LogicalPlan =
    plan.transformDown { case node if node eq from => to }
}
