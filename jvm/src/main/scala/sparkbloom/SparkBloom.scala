// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession

import sparkbloom.read.PruningStats
import sparkbloom.settings.BuildVersion

/** Facts about the JVM side that the Python package asks for through Py4J. */
object SparkBloom {

  /** The version of this jar; Python's `sparkbloom.version()` returns it. */
  def version: String = BuildVersion.value

  /** The Spark line this jar was built for ("3.5", ..., "4.3"); Python checks it matches. */
  def sparkLine: String = BuildVersion.sparkLine

  /**
   * What sparkbloom decided for the last Parquet scan `session` planned, keyed as
   * `sparkbloom.last_pruning(spark)` returns it; empty before the first scan.
   */
  def lastPruning(session: SparkSession): java.util.Map[String, java.lang.Long] =
    PruningStats.last(session).map(_.toMap).getOrElse(Map.empty).map { case (k, v) => k -> Long.box(v) }.asJava

  val ExtensionClass: String = classOf[SparkBloomExtensions].getName
}
