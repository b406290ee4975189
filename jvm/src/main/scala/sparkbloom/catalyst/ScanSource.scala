// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.read.{InputPartition, Scan}
import org.apache.spark.sql.execution.SparkPlan

import sparkbloom.index.{IndexedTable, WrittenTable}
import sparkbloom.read.FileOpener
import sparkbloom.read.PruningStats

/**
 * One kind of table whose scans sparkbloom judges: plain Parquet files ([[ParquetFilesSource]])
 * or a table format's snapshot (`sparkbloom.delta`, `sparkbloom.iceberg`), found through
 * [[ScanSources]]. The shared rules ask each source, never test for a format themselves. A
 * source recognizes its own plan nodes and answers for them only: every method answers None,
 * Nil or false for a node of another source, so the order of sources never matters.
 */
private[sparkbloom] trait ScanSource {

  /** Rules that resolve this source's writes, each built for a session (filter settings, table properties). */
  def resolutionRules: Seq[SparkSession => Rule[LogicalPlan]] = Nil

  /**
   * While the plan is optimized: `op`, a scan operation over `relation` with its conjuncts
   * `filters`, judged by the literals of its `=`, `IN` and `<=>` filters, or None where
   * `relation` is not this source's or was judged before. Judged, it is the plan put in
   * `op`'s place, sized by what it keeps.
   */
  def judgeLiterals(session: SparkSession, op: LogicalPlan, relation: LogicalPlan,
      filters: Seq[Expression]): Option[LogicalPlan] = None

  /** `plan` with this source's physical scans given sparkbloom's pruning and the node that shows it. */
  def planScans(session: SparkSession, plan: SparkPlan): SparkPlan = plan

  /** Whether the keys of a join can prune `scan` (a logical scan of this source). */
  def takesJoinKeys(scan: LogicalPlan): Boolean = false

  /** The partition columns of `scan`, whose values are never in its files' filters. */
  def partitionColumns(scan: LogicalPlan): Seq[String] = Nil

  /**
   * `plan`, a join's side whose scan `scan` takes the join's `keys` (dynamic pruning
   * subqueries), planned with the scan pruned by them when the plan runs; None where `scan`
   * is not this source's.
   */
  def planWithKeys(session: SparkSession, plan: LogicalPlan, scan: LogicalPlan,
      keys: Seq[Expression]): Option[Seq[SparkPlan]] = None

  /**
   * The input partitions each partition of a planned V2 `scan` reads once the files that
   * cannot hold one of a join's `keys` are left out, and what was decided; None where this
   * source does not narrow `scan` (its partitions are read as planned).
   */
  def narrowedByKeys(session: SparkSession, scan: Scan, partitions: Seq[Seq[InputPartition]],
      keys: JoinKeys.Runtime): Option[(IndexedSeq[Seq[InputPartition]], PruningStats)] = None

  /** The table of this source a catalog `name` names, as a table index covers it. */
  def indexedTableNamed(session: SparkSession, name: String): Option[IndexedTable] = None

  /**
   * The table of this source at the directory `root` (qualified), as a table index covers
   * it; fails where its index must be reached otherwise (by the table's name).
   */
  def indexedTableAt(session: SparkSession, root: Path): Option[IndexedTable] = None

  /** The current data files of this source's table at `location`, for inspection. */
  def currentFiles(session: SparkSession, location: String): Option[CurrentFiles] = None

  /**
   * The tables of this source that `plan` (an analyzed query, or a command it ran) writes,
   * found without I/O, for their indexes to be refreshed once it has committed ([[WatchWrites]]).
   * A table the plan only reads may be named too: its refresh finds nothing new.
   */
  def writtenTables(session: SparkSession, plan: LogicalPlan): Seq[WrittenTable] = Nil

  /**
   * Called once for each session sparkbloom analyzes plans for: a source whose format tells
   * of its commits (Iceberg's snapshot events) has the indexes of the tables they change
   * refreshed through [[sparkbloom.index.IndexMaintenance]], for writes no plan shows (a procedure's).
   */
  def watchCommits(session: SparkSession): Unit = ()

  /** The prefixes SQL names this source's tables by path with (`prefix.`path``). */
  def pathPrefixes: Seq[String] = Nil
}

/**
 * A table's current data files, and how a column's name reads in its files and back in the
 * table (a table format may keep columns under physical names).
 */
private[sparkbloom] final case class CurrentFiles(files: Seq[String], fileColumn: String => String,
    tableColumn: String => String)

/**
 * What a source gives the judgement of its scans' files ([[ListingPruner]]), besides the files
 * themselves: how they are read and found.
 *
 * @param options          the scan's read options (the calendar dates and timestamps are read in)
 * @param fileColumns      how a column of the scan is found in a file: by name, physical name or field id
 * @param opener           how a file is opened: by Hadoop's file system, or a table format's own IO;
 *                         and whether a path is never written twice (a table format's snapshot),
 *                         so a file's path and length are its version; else its listed status
 *                         is confirmed before a verdict that rules out a row group decides
 * @param indexRoots       where the scan's table index may be
 * @param partitionColumns the columns whose values come from directories, never from the files
 */
private[sparkbloom] final case class Candidates(
    options: Map[String, String],
    fileColumns: FileColumns,
    opener: FileOpener,
    indexRoots: () => Seq[Path],
    partitionColumns: () => Seq[String]) {
  def immutableFiles: Boolean = opener.immutableFiles
}
