// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.connector.read.{InputPartition, Scan}
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation, DataSourceV2ScanRelation}

import sparkbloom.catalyst.JoinKeys
import sparkbloom.errors.SparkBloomException
import sparkbloom.read.{Decision, PruningStats}

/**
 * Plain reads of Apache Iceberg tables, judged while the plan is optimized: the data files
 * whose own Bloom filters (and min/max statistics) rule out every literal of the scan's `=`,
 * `IN` and `<=>` filters are dropped from the scan's task list before Spark asks it for
 * tasks, as Iceberg's own runtime filtering drops them ([[IcebergTasks]]). Iceberg keeps every
 * data filter above its scan, so a dropped file never changes an answer, and each kept task
 * keeps its delete files as they are.
 *
 * Only Iceberg's batch query scan of Iceberg's own table class is judged: a row-level
 * operation (DELETE, UPDATE, MERGE) reads through another table class or scan class, and
 * changelog scans and a storage-partitioned scan (grouped by partition values Spark has
 * already read) are left as Iceberg plans them. This object names Iceberg's classes without
 * loading them: sessions without Iceberg never touch [[IcebergTasks]].
 */
private[sparkbloom] object IcebergScans extends Logging {
  private val BatchQueryScan = "org.apache.iceberg.spark.source.SparkBatchQueryScan"
  private val IcebergTable = "org.apache.iceberg.spark.source.SparkTable"

  /** Whether `scan` is Iceberg's batch query scan. */
  def batchQueryScan(scan: Scan): Boolean = scan.getClass.getName == BatchQueryScan

  def plainRead(relation: DataSourceV2ScanRelation): Boolean =
    batchQueryScan(relation.scan) && relation.relation.table.getClass.getName == IcebergTable &&
      relation.keyGroupedPartitioning.isEmpty

  /** Whether `plan` is a plain read of an Iceberg table sparkbloom judges. */
  def scan(plan: LogicalPlan): Boolean = plan match {
    case r: DataSourceV2ScanRelation => plainRead(r)
    case _ => false
  }

  /**
   * The input partitions each partition of a planned Iceberg scan reads once the files that
   * cannot hold one of a join's `keys` are left out, and what was decided; None where that
   * cannot be told (read them all).
   */
  def narrowedByKeys(session: SparkSession, scan: Scan, partitions: Seq[Seq[InputPartition]],
      keys: JoinKeys.Runtime): Option[(IndexedSeq[Seq[InputPartition]], PruningStats)] = {
    val narrowed = guarded(scan)(IcebergTasks.narrowedByKeys(session, scan, partitions, keys))
    // the judging may have reported files skipped before a copy failed its check: none are
    narrowed.swap.foreach(reason => PruningStats.recordLast(session, PruningStats.unjudged(0, reason)))
    narrowed.toOption
  }

  /**
   * Judges the data files of `relation` by `filters` (the conjuncts above it) and drops those
   * that cannot match from its scan. A scan whose tasks sparkbloom cannot read or reset
   * exactly as expected (another Iceberg release) is left as it is, and said so once. What
   * was decided: None for such a scan, or one of anything but Parquet data files.
   */
  def judge(
      session: SparkSession, relation: DataSourceV2ScanRelation, filters: Seq[Expression]): Option[PruningStats] = {
    val stats = guarded(relation.scan)(IcebergTasks.prune(session, relation.scan, filters))
    stats.swap.foreach(reason => PruningStats.recordLast(session, PruningStats.unjudged(0, reason)))
    stats.toOption
  }

  /** The relation of Iceberg's `SparkTable` that `name` (a catalog table) reads, if it names one. */
  def tableNamed(session: SparkSession, name: String): Option[DataSourceV2Relation] =
    Try(session.sessionState.sqlParser.parseMultipartIdentifier(name)).toOption.flatMap { _ =>
      Try(session.table(name).queryExecution.analyzed).toOption.flatMap(_.collectFirst {
        case r: DataSourceV2Relation if r.table.getClass.getName == IcebergTable => r
      })
    }

  /** `read` of an Iceberg `SparkTable`, failing plainly where this Iceberg release is not one sparkbloom supports. */
  def readTable[T](table: Table)(read: => T): T =
    try read
    catch {
      case e @ (NonFatal(_) | _: LinkageError) if !e.isInstanceOf[SparkBloomException] =>
        throw new SparkBloomException(s"sparkbloom cannot read the Iceberg table ${table.name}: $e")
    }

  /**
   * `judge()`, or why not: Iceberg's scan or API is not what sparkbloom supports (said once),
   * or it read files other than Parquet (or could not be narrowed).
   */
  private def guarded[T](scan: Scan)(judge: => Option[T]): Either[Decision, T] =
    try judge.toRight(Decision.NotParquetFiles)
    catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        sparkbloom.warnings.WarnOnce(log, s"iceberg|${scan.getClass.getName}",
          s"sparkbloom does not prune Iceberg scans: this Iceberg release's scan is not the one it supports ($e)")
        Left(Decision.FormatMemberMissing)
    }
}
