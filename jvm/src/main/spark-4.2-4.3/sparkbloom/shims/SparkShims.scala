// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import java.io.InputStream

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.format.{FileMetaData, Util}

/** Spark 4.2 and 4.3: parquet-java 1.17, whose footer parsing has a configurable Thrift limit. */
private[sparkbloom] object SparkShims
    extends Spark4Shim with RebaseModeAsEnum with ReaderSkipsShim with SumEvalModeShim {
  override def readThriftFooter(in: InputStream, conf: Configuration): FileMetaData =
    Util.readFileMetaData(in, conf.getInt("parquet.thrift.string.size.limit", 100 * 1024 * 1024))
}
