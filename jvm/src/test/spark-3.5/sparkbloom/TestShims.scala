// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.apache.parquet.format.ColumnMetaData

/** What tests must know of Spark 3.5 (parquet-java 1.13, parquet-format-structures 2.9). */
object TestShims {

  /** Spark 3.5's Parquet readers cannot read an INT32 column as bigint (widening came in 4.0). */
  val widensInt32ToLong: Boolean = false

  /** `bloom_filter_length` in the raw Thrift footer: structures 2.9 have no such field, so
   *  tests can neither see nor change it. */
  object FilterLength {
    val exists: Boolean = false
    def get(meta: ColumnMetaData): Option[Int] = None
    def set(meta: ColumnMetaData, length: Int): Unit =
      throw new UnsupportedOperationException("bloom_filter_length needs parquet-format-structures 2.10")
    def unset(meta: ColumnMetaData): Unit = ()
  }
}
