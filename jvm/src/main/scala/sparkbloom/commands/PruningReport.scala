// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.commands

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._

import sparkbloom.catalyst.PrunedScans
import sparkbloom.read.{Decision, PruningStats}

/**
 * What sparkbloom decided for scans, as rows: `sparkbloom_last_pruning()` (the session's last
 * scan) and `sparkbloom_explain_pruning(view)` (every scan of a query, planned and not run).
 * Each row holds the counts of `last_pruning`, the files and row groups per [[Decision]]
 * key, the filters' estimated false-positive rates per column, and why a scan as a whole
 * was not judged.
 */
private[sparkbloom] object PruningReport {

  private val FilterSchema = StructType(Seq(
      StructField("column", StringType, nullable = false),
      StructField("files", LongType, nullable = false),
      StructField("worst_fpp", DoubleType, nullable = false),
      StructField("median_fpp", DoubleType, nullable = false),
      StructField("saturated", ArrayType(StringType, containsNull = false), nullable = false)))

  private val Detail = Seq(
    StructField("files_by_decision", MapType(StringType, LongType, valueContainsNull = false), nullable = false),
    StructField("row_groups_by_decision", MapType(StringType, LongType, valueContainsNull = false),
      nullable = false),
    StructField("filters", ArrayType(FilterSchema, containsNull = false), nullable = false),
    StructField("scan_unjudged", StringType, nullable = true))

  /** `last_pruning`'s columns: the counts, then the detail. */
  val Schema: StructType = StructType(PruningStats.Keys.map(StructField(_, LongType, nullable = false)) ++ Detail)

  def row(stats: PruningStats): Row = Row.fromSeq(stats.values ++ Seq(
    keyed(stats.files),
    keyed(stats.rowGroups),
    stats.filters.map(f => Row(f.column, f.files, f.worstFpp, f.medianFpp, f.saturated)),
    stats.scanUnjudged.map(_.key).orNull))

  private def keyed(counts: Map[Decision, Long]): Map[String, Long] = counts.map { case (d, n) => d.key -> n }

  def last(session: SparkSession): DataFrame =
    session.createDataFrame(PruningStats.last(session).toSeq.map(row).asJava, Schema)

  /**
   * One row per scan sparkbloom judges in `query` (a table or temporary view), in plan order:
   * planned as it would run, not run. A scan decided only when it runs (by a join's keys) has
   * no counts: its `scan_unjudged` says so.
   */
  def explain(session: SparkSession, query: String): DataFrame = {
    val plan = session.table(query).queryExecution.executedPlan
    val schema = StructType(StructField("scan", StringType, nullable = false) +: Schema.fields)
    val rows = PrunedScans.of(plan).map { case (scan, decided) =>
      val stats = decided.getOrElse(PruningStats.Empty.copy(scanUnjudged = Some(Decision.DecidedWhenRun)))
      Row.fromSeq(scan +: row(stats).toSeq)
    }
    session.createDataFrame(rows.asJava, schema)
  }
}
