// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.commands

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, Literal}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{StringType, StructField, StructType}

import sparkbloom.errors.SparkBloomException
import sparkbloom.settings.BuildVersion

/**
 * `SELECT * FROM sparkbloom_inspect('path')`, `sparkbloom_probe('path', 'column', value, ...)`,
 * `sparkbloom_last_pruning()`, `sparkbloom_explain_pruning('view')`, the index commands and
 * `sparkbloom_version()`: the helpers in
 * SQL, which is also how the Python package calls them (so they work over Spark Connect).
 * Arguments must be constants; the work is done when the query is analyzed, and the result
 * is a local relation.
 */
private[sparkbloom] object TableFunctions {

  type Builder = Seq[Expression] => LogicalPlan
  type TableFunction = (FunctionIdentifier, ExpressionInfo, Builder)

  val inspect: TableFunction = function("sparkbloom_inspect",
    "_FUNC_(path[, 'col1,col2']) - one row per file, row group and column: its Bloom filter") { args =>
    if (args.isEmpty || args.size > 2)
      fail("sparkbloom_inspect takes a path and optionally a comma-separated column list")
    Inspection.inspect(SparkSession.active, constant(args.head, "path"), args.lift(1).map(columnList).orNull)
  }

  val probe: TableFunction = function("sparkbloom_probe",
    "_FUNC_(path, column, value[, value...]) - per row group: could the value be there?") { args =>
    if (args.size < 3) fail("sparkbloom_probe takes a path, a column and at least one value")
    // The literals as they are: through Java objects a date in the calendars' gap
    // (1582-10-05 to 14) would come back as another day.
    val values = args.drop(2).map { a =>
      if (!a.foldable) fail(s"sparkbloom_probe values must be constants, got ${a.sql}")
      Literal.create(a.eval(), a.dataType)
    }
    Inspection.mightContainLiterals(SparkSession.active, constant(args.head, "path"), constant(args(1), "column"),
      values)
  }

  val buildIndex: TableFunction = function("sparkbloom_build_index",
    "_FUNC_(table[, 'col1,col2' or NULL[, fpp]]) - builds or refreshes the table's Bloom index") { args =>
    if (args.isEmpty || args.size > 3) fail("sparkbloom_build_index takes a table, optionally columns and an fpp")
    val fpp = args.lift(2).filterNot(a => a.foldable && a.eval() == null).map(a =>
      java.lang.Double.valueOf(scala.util.Try(constant(a, "fpp").toDouble)
          .getOrElse(fail(s"the fpp must be a number, got ${a.sql}"))))
    val columns = args.lift(1).filterNot(a => a.foldable && a.eval() == null).map(columnList)
    TableIndexCommands.build(SparkSession.active, constant(args.head, "table"), columns.orNull, fpp.orNull)
  }

  val describeIndex: TableFunction =
    oneTable("sparkbloom_describe_index", "the table index's size and coverage", TableIndexCommands.describe)

  val dropIndex: TableFunction =
    oneTable("sparkbloom_drop_index", "deletes the table's Bloom index", TableIndexCommands.drop)

  val lastPruning: TableFunction = function("sparkbloom_last_pruning",
    "_FUNC_() - what sparkbloom decided for the last Parquet scan this session " +
      "planned: one row (none before the first scan)") { args =>
    if (args.nonEmpty) fail("sparkbloom_last_pruning takes no arguments")
    PruningReport.last(SparkSession.active)
  }

  val explainPruning: TableFunction = function("sparkbloom_explain_pruning",
    "_FUNC_(view) - what sparkbloom decides for each scan of a table or temporary view's query, " +
      "planned and not run: one row per scan") { args =>
    if (args.size != 1) fail("sparkbloom_explain_pruning takes one table or temporary view")
    PruningReport.explain(SparkSession.active, constant(args.head, "view"))
  }

  val version: TableFunction = function("sparkbloom_version",
    "_FUNC_() - the sparkbloom jar's version and the Spark line it was built for") { args =>
    if (args.nonEmpty) fail("sparkbloom_version takes no arguments")
    val schema = StructType(Seq(StructField("version", StringType, nullable = false),
        StructField("spark_line", StringType, nullable = false)))
    SparkSession.active.createDataFrame(Seq(Row(BuildVersion.value, BuildVersion.sparkLine)).asJava, schema)
  }

  val all: Seq[TableFunction] =
    Seq(inspect, probe, buildIndex, describeIndex, dropIndex, lastPruning, explainPruning, version)

  private def function(name: String, usage: String)(run: Seq[Expression] => DataFrame): TableFunction =
    (FunctionIdentifier(name), new ExpressionInfo(getClass.getName, null, name, usage, ""),
      args => run(args).queryExecution.analyzed)

  private def oneTable(name: String, what: String, run: (SparkSession, String) => DataFrame): TableFunction =
    function(name, s"_FUNC_(table) - $what") { args =>
      if (args.size != 1) fail(s"$name takes one table or path")
      run(SparkSession.active, constant(args.head, "table"))
    }

  private def columnList(e: Expression): java.util.List[String] =
    java.util.Arrays.asList(constant(e, "columns").split(",").map(_.trim): _*)

  private def constant(e: Expression, what: String): String =
    if (e.foldable && e.eval() != null) e.eval().toString
    else fail(s"the $what must be a constant string, got ${e.sql}")

  private def fail(message: String): Nothing = throw new SparkBloomException(message)
}
