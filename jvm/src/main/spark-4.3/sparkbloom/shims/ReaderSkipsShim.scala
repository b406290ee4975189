// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.parquet.column.Encoding
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

/** Spark 4.3: also DELTA_BINARY_PACKED (its reader counts a page's values in total now)
 *  and BYTE_STREAM_SPLIT. */
private[sparkbloom] trait ReaderSkipsShim extends SparkShim {
  override def readerSkips(encoding: Encoding, typeName: PrimitiveTypeName): Boolean =
    ReaderSkips.onEveryLine(encoding) || (encoding match {
      case Encoding.DELTA_BINARY_PACKED => typeName == PrimitiveTypeName.INT32 || typeName == PrimitiveTypeName.INT64
      case Encoding.BYTE_STREAM_SPLIT => true
      case _ => false
    })
}
