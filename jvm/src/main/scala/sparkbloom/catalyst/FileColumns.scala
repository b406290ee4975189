// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.catalyst

import org.apache.spark.sql.execution.datasources.parquet.ParquetUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType
import sparkbloom.predicate.PointPredicate

/**
 * How a scan's columns are found in its files, so that a predicate is judged by the
 * filters of the columns the reader will actually read. Spark's Parquet reader matches by
 * name, or by Parquet field id; Delta's column mapping keeps columns under physical names.
 */
private[sparkbloom] trait FileColumns extends Serializable {

  /** The predicate over the files' own columns; None when no part of it can be judged. */
  def resolve(predicate: PointPredicate): Option[PointPredicate]
}

private[sparkbloom] object FileColumns {

  /** Files hold the scan's columns under the scan's names. */
  case object ByName extends FileColumns { def resolve(p: PointPredicate): Option[PointPredicate] = Some(p) }

  /** The reader matches columns in a way sparkbloom does not follow: nothing is judged. */
  case object NotJudged extends FileColumns { def resolve(p: PointPredicate): Option[PointPredicate] = None }

  /**
   * A plain Parquet scan of `dataSchema`. With `spark.sql.parquet.fieldId.read.enabled`,
   * Spark matches a field that carries a `parquet.field.id` by id (Delta's extension turns
   * the setting on for every session): such scans are not judged, all others are, by name.
   */
  def ofParquetScan(conf: SQLConf, dataSchema: StructType): FileColumns =
    if (conf.getConf(SQLConf.PARQUET_FIELD_ID_READ_ENABLED) && ParquetUtils.hasFieldIds(dataSchema)) NotJudged
    else ByName
}
