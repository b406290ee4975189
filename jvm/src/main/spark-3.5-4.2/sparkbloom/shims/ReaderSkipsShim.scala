// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.parquet.column.Encoding
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

/** Spark 3.5 to 4.2: only the encodings every line skips. Their DELTA_BINARY_PACKED reader
 *  counts the values of a page per call, not in total, so a second read or skip in a page
 *  can return another row's values (fixed in 4.3), and their vectorized reader has no
 *  BYTE_STREAM_SPLIT decoder at all (it came in 4.3). */
private[sparkbloom] trait ReaderSkipsShim extends SparkShim {
  override def readerSkips(encoding: Encoding, typeName: PrimitiveTypeName): Boolean = ReaderSkips.onEveryLine(encoding)
}
