// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import java.io.InputStream

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.format.{FileMetaData, Util}

/** parquet-java before 1.17 parses footers with Thrift's default limits, not a setting. */
private[sparkbloom] trait ThriftFooterWithoutLimit extends SparkShim {
  override def readThriftFooter(in: InputStream, conf: Configuration): FileMetaData = Util.readFileMetaData(in)
}
