// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import sparkbloom.index.IndexedTable

/**
 * Every [[ScanSource]]: plain Parquet files, and the table formats listed in the jar's
 * `META-INF/services/sparkbloom.catalyst.ScanSource` (one line each), loaded once from
 * sparkbloom's own class loader. A format's source names the format's classes without
 * loading them, so sessions without that format never link to it.
 */
private[sparkbloom] object ScanSources {

  lazy val all: Seq[ScanSource] =
    ParquetFilesSource +: ServiceLoader.load(classOf[ScanSource], getClass.getClassLoader).asScala.toSeq

  def takesJoinKeys(scan: LogicalPlan): Boolean = all.exists(_.takesJoinKeys(scan))

  def partitionColumns(scan: LogicalPlan): Seq[String] = all.flatMap(_.partitionColumns(scan))

  /** The table a catalog name names, by the first source that has it. */
  def indexedTableNamed(session: SparkSession, name: String): Option[IndexedTable] =
    all.view.flatMap(_.indexedTableNamed(session, name)).headOption

  def indexedTableAt(session: SparkSession, root: Path): Option[IndexedTable] =
    all.view.flatMap(_.indexedTableAt(session, root)).headOption

  def currentFiles(session: SparkSession, location: String): Option[CurrentFiles] =
    all.view.flatMap(_.currentFiles(session, location)).headOption

  def pathPrefixes: Seq[String] = all.flatMap(_.pathPrefixes)
}
