// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.delta

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Statistics}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}

import sparkbloom.catalyst.{BloomPruningExec, BloomPruningFileIndex, CurrentFiles, FileColumns, JudgedScan, ParquetFilesSource, ScanPruningRule, ScanSource, ScanVerdict}
import sparkbloom.predicate.PointPredicate
import sparkbloom.index.{IndexedTable, IndexMaintenance, WrittenTable}
import sparkbloom.read.{Decision, PruningStats}
import sparkbloom.settings.SparkBloomConf

/**
 * Delta Lake's snapshots, pruned on the files Delta's partition pruning and min/max skipping
 * left. Delta plans its own scans (its strategy adds the deletion vector filter and the row
 * index), so only the scan's Delta file index is wrapped, at physical planning: Delta's
 * format, the scan's columns and filters, and each file's metadata (its deletion vector, row
 * ids) stay as they are. Whole files are dropped; tasks still read with Delta's reader, which
 * skips row groups with parquet-java. Delta's files are never written twice, so a snapshot's
 * listing needs no confirmation, and its table's root holds its index whatever its partitions.
 */
final class DeltaSource extends ScanSource with Logging {
  import DeltaSource.DeltaVerdict

  override def resolutionRules: Seq[SparkSession => Rule[LogicalPlan]] = Seq(DeltaWriteRule(_))

  /**
   * Judged while the plan is optimized, so that the optimizer sizes a lookup by what it
   * keeps: the scan operation is kept under a [[JudgedScan]] that holds the verdict, and
   * Delta's relation, which Delta's own planning must recognize, stays as it is.
   */
  override def judgeLiterals(session: SparkSession, op: LogicalPlan, relation: LogicalPlan,
      filters: Seq[Expression]): Option[LogicalPlan] = relation match {
    case r: LogicalRelation => r.relation match {
        case fs: HadoopFsRelation if unpruned(fs) =>
          val columns = columnsOf(fs)
          if (!PointPredicate.fromFilters(filters).flatMap(columns.resolve).isDefined) None
          else {
            val index = BloomPruningFileIndex.of(fs, session, selectRowGroups = false, columns, useTableIndex = true,
              snapshot = true)
            val (partitionFilters, dataFilters) = ParquetFilesSource.splitFilters(r, fs, filters)
            if (index.decide(partitionFilters, dataFilters)) Some(JudgedScan(op, DeltaVerdict(index))) else None
          }
        case _ => None
      }
    case _ => None
  }

  override def planScans(session: SparkSession, plan: SparkPlan): SparkPlan = plan.transformUp {
    case scan: FileSourceScanExec if unpruned(scan.relation) =>
      val columns = columnsOf(scan.relation)
      if (ScanPruningRule.judgeable(session, scan, columns)) {
        val index = BloomPruningFileIndex.of(scan.relation, session, selectRowGroups = false, columns,
          useTableIndex = true, snapshot = true)
        BloomPruningExec(scan.copy(relation = scan.relation.copy(location = index)(scan.relation.sparkSession)))
          .decide()
      } else {
        // as for Parquet scans with nothing to judge: the last pruning is none
        val reason =
          if (!SparkBloomConf.enabled(session.sessionState.conf)) Decision.SwitchedOff else Decision.NoPointPredicate
        PruningStats.recordLast(session, PruningStats.unjudged(0, reason))
        scan
      }
  }

  override def writtenTables(session: SparkSession, plan: LogicalPlan): Seq[WrittenTable] =
    DeltaTables.commandRoots(plan).map { root =>
      WrittenTable(root,
        s => {
          val path = new Path(root)
          val qualified = path.getFileSystem(s.sessionState.newHadoopConf()).makeQualified(path)
          if (IndexMaintenance.indexedAt(s, qualified)) Some(DeltaIndexedTable(qualified)) else None
        })
    }

  override def indexedTableAt(session: SparkSession, root: Path): Option[IndexedTable] =
    if (DeltaTables.isTableAt(session, root.toString)) Some(DeltaIndexedTable(root)) else None

  override def currentFiles(session: SparkSession, location: String): Option[CurrentFiles] =
    if (!DeltaTables.isTableAt(session, location)) None
    else {
      val state = DeltaTables.stateAt(session, location).get
      val toFile =
        state.leafPaths.map(p => p.mkString(".") -> state.columns.filePath(p).getOrElse(p).mkString(".")).toMap
      val toTable = toFile.map(_.swap)
      val current = session.read.format("delta").load(location).inputFiles.toSeq.sorted
      Some(CurrentFiles(current, c => toFile.getOrElse(c, c), c => toTable.getOrElse(c, c)))
    }

  override def pathPrefixes: Seq[String] = Seq("delta")

  /** A Delta scan that has not been given sparkbloom's index yet. */
  private def unpruned(relation: HadoopFsRelation): Boolean =
    !relation.location.isInstanceOf[BloomPruningFileIndex] && DeltaTables.isDeltaScan(relation)

  /** Where the table's columns are in its files; a Delta that does not say gets no judging. */
  private def columnsOf(relation: HadoopFsRelation): FileColumns =
    try DeltaTables.scanColumns(relation)
    catch {
      case NonFatal(e) =>
        logWarning(s"sparkbloom does not prune this Delta scan: its column mapping is unknown ($e)")
        FileColumns.NotJudged
    }
}

private object DeltaSource {

  /**
   * A Delta scan judged while the plan was optimized: it is sized by the share of bytes its
   * listing keeps, and planned as Delta plans it, with the judged index on its relation.
   */
  final case class DeltaVerdict(index: BloomPruningFileIndex) extends ScanVerdict {
    override def sized(planned: Statistics): Statistics = {
      val all = index.delegate.sizeInBytes
      val kept = index.sizeInBytes
      if (all <= 0 || kept >= all) planned
      else Statistics(sizeInBytes = (planned.sizeInBytes * kept / all).max(BigInt(1)))
    }

    /**
     * Decided again for the filters Delta's scan lists with, which may hold Delta's own (its
     * deletion vector filter, on no column of the files): the same verdict, from cached
     * footers, so that the plan renders without I/O.
     */
    override def applied(physical: SparkPlan): SparkPlan = physical.transformUp {
      case scan: FileSourceScanExec if scan.relation.location eq index.delegate =>
        BloomPruningExec(scan.copy(relation = scan.relation.copy(location = index)(scan.relation.sparkSession)))
          .decide()
    }
  }
}
