// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.read.{InputPartition, Scan}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.v2.{BatchScanExec, DataSourceV2ScanRelation}

import sparkbloom.catalyst.{BloomPruningExec, JoinKeys, JudgedScan, ScanSource, ScanVerdict}
import sparkbloom.errors.SparkBloomException
import sparkbloom.index.IndexedTable
import sparkbloom.predicate.PointPredicate
import sparkbloom.read.{Decision, PruningStats}
import sparkbloom.shims.SparkShims

/**
 * Plain reads of Apache Iceberg tables ([[IcebergScans]]): judged while the plan is optimized,
 * by dropping the tasks of files that cannot match from Iceberg's own scan, and by a join's
 * keys when the plan runs, by narrowing the input partitions Iceberg planned.
 */
final class IcebergSource extends ScanSource {

  override def resolutionRules: Seq[SparkSession => Rule[LogicalPlan]] = Seq(IcebergWriteRule(_))

  override def judgeLiterals(session: SparkSession, op: LogicalPlan, relation: LogicalPlan,
      filters: Seq[Expression]): Option[LogicalPlan] = relation match {
    case r: DataSourceV2ScanRelation if IcebergScans.plainRead(r) =>
      if (PointPredicate.fromFilters(filters).isDefined) {
        // the scan itself keeps the files it kept; the plan keeps what was decided
        Some(JudgedScan(op, IcebergVerdict(r.scan, IcebergScans.judge(session, r, filters))))
      } else {
        PruningStats.recordLast(session, PruningStats.unjudged(0, Decision.NoPointPredicate))
        Some(op)
      }
    case _ => None
  }

  override def takesJoinKeys(scan: LogicalPlan): Boolean = IcebergScans.scan(scan)

  /**
   * The node above the scan waits for the subqueries and drops the partitions whose files
   * cannot hold a key; the scan itself, which Spark may share, stays as it is.
   */
  override def planWithKeys(session: SparkSession, plan: LogicalPlan, scan: LogicalPlan,
      keys: Seq[Expression]): Option[Seq[SparkPlan]] = scan match {
    case iceberg: DataSourceV2ScanRelation if IcebergScans.plainRead(iceberg) =>
      Some(SparkShims.planDataSourceV2(session, JoinKeys.withoutMarkers(plan)).map(_.transformUp {
        case exec: BatchScanExec if exec.scan eq iceberg.scan => BloomPruningExec(exec, keys)
      }))
    case _ => None
  }

  override def narrowedByKeys(session: SparkSession, scan: Scan, partitions: Seq[Seq[InputPartition]],
      keys: JoinKeys.Runtime): Option[(IndexedSeq[Seq[InputPartition]], PruningStats)] =
    if (!IcebergScans.batchQueryScan(scan)) None else IcebergScans.narrowedByKeys(session, scan, partitions, keys)

  override def watchCommits(session: SparkSession): Unit =
    if (IcebergSource.icebergLoadable) IcebergCommits.watch()

  override def indexedTableNamed(session: SparkSession, name: String): Option[IndexedTable] =
    IcebergIndexedTable.named(session, name)

  /** Its directory holds every snapshot's files: only the table knows which it reads. */
  override def indexedTableAt(session: SparkSession, root: Path): Option[IndexedTable] = {
    val fs = root.getFileSystem(session.sessionState.newHadoopConf())
    if (fs.globStatus(new Path(root, "metadata/*.metadata.json")).nonEmpty)
      throw new SparkBloomException(s"$root is an Apache Iceberg table's directory: name the table instead")
    None
  }
}

private object IcebergSource {

  /** Whether Iceberg's API and core are on sparkbloom's class path (a session may have neither). */
  lazy val icebergLoadable: Boolean =
    try {
      Seq("org.apache.iceberg.events.Listeners", "org.apache.iceberg.events.CreateSnapshotEvent")
        .foreach(Class.forName(_, false, getClass.getClassLoader))
      true
    } catch { case _: ClassNotFoundException | _: LinkageError => false }
}

/**
 * What the literals of an Iceberg scan decided while the plan was optimized (None: not
 * judged), shown by the node put above the scan once it is planned (or given to the node a
 * join's keys put there).
 */
private final case class IcebergVerdict(scan: Scan, stats: Option[PruningStats]) extends ScanVerdict {
  override def applied(physical: SparkPlan): SparkPlan = {
    def ours(p: SparkPlan): Boolean = p match {
      case BloomPruningExec(b: BatchScanExec, _, _) => b.scan eq scan
      case _ => false
    }
    if (physical.exists(ours))
      physical.transformUp { case node: BloomPruningExec if ours(node) => node.copy(decided = stats) }
    else if (stats.isEmpty) physical
    else physical.transformUp { case b: BatchScanExec if b.scan eq scan => BloomPruningExec(b, decided = stats) }
  }
}
