package sparkbloom.catalyst

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.HadoopFsRelation

import sparkbloom.SparkBloomConf
import sparkbloom.read.PruningStats

/**
 * Bloom-filter pruning of Delta Lake scans, on the files Delta's partition pruning and
 * min/max skipping left. Delta plans its own scans (its strategy adds the deletion vector
 * filter and the row index), so this is a rule over the physical plan, which runs whatever
 * the order of `spark.sql.extensions`: registered to run before columnar transitions (every
 * plan) and to prepare adaptive plans (whose first plan EXPLAIN shows). It only wraps the
 * scan's Delta file index: Delta's format, the scan's columns and filters, and each file's
 * metadata (its deletion vector, row ids) stay as they are. It drops whole files only:
 * tasks still read with Delta's reader, which skips row groups with parquet-java.
 */
private[sparkbloom] final case class DeltaScanRule(session: SparkSession) extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!SparkBloomConf.enabled(session.sessionState.conf)) plan
    else plan.transformUp {
      case scan: FileSourceScanExec if DeltaScanRule.isUnprunedDeltaScan(scan.relation) =>
        if (PointPredicate.fromFilters(scan.dataFilters).isEmpty) {
          PruningStats.recordLast(session, PruningStats.Empty)
          scan
        } else BloomPruningExec(withPruningIndex(scan))
    }

  private def withPruningIndex(scan: FileSourceScanExec): FileSourceScanExec = {
    val fs = scan.relation
    val index = new BloomPruningFileIndex(fs.location, session, fs.options, selectRowGroups = false,
      DeltaScanRule.fileColumns(fs))
    scan.copy(relation = fs.copy(location = index)(fs.sparkSession))
  }
}

private[sparkbloom] object DeltaScanRule extends Logging {

  /** The rule as Spark's columnar hook runs it, on every physical plan. */
  def columnar(session: SparkSession): ColumnarRule = new ColumnarRule {
    override def preColumnarTransitions: Rule[SparkPlan] = DeltaScanRule(session)
  }

  /** A Delta scan that has not been given sparkbloom's index yet. */
  def isUnprunedDeltaScan(relation: HadoopFsRelation): Boolean =
    !relation.location.isInstanceOf[BloomPruningFileIndex] && DeltaTables.isDeltaScan(relation)

  /** Where the table's columns are in its files; a Delta that does not say gets no judging. */
  private def fileColumns(relation: HadoopFsRelation): FileColumns =
    try DeltaTables.scanColumns(relation)
    catch {
      case NonFatal(e) =>
        logWarning(s"sparkbloom does not prune this Delta scan: its column mapping is unknown ($e)")
        FileColumns.NotJudged
    }
}
