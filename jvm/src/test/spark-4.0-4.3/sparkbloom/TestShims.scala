// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.apache.parquet.format.ColumnMetaData

/** What tests must know of Spark 4 (parquet-java 1.15+). */
object TestShims {

  /** Spark's Parquet readers read an INT32 column as bigint. */
  val widensInt32ToLong: Boolean = true

  /** `bloom_filter_length` in the raw Thrift footer (parquet-format-structures 2.10+). */
  object FilterLength {
    val exists: Boolean = true
    def get(meta: ColumnMetaData): Option[Int] =
      if (meta.isSetBloom_filter_length) Some(meta.getBloom_filter_length) else None
    def set(meta: ColumnMetaData, length: Int): Unit = meta.setBloom_filter_length(length)
    def unset(meta: ColumnMetaData): Unit = meta.unsetBloom_filter_length()
  }
}
