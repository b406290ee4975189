// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.sql.execution.datasources.DataSourceUtils
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}

/** Before 4.1 the Parquet rebase mode is a string setting naming the policy. */
private[sparkbloom] trait RebaseModeAsString extends SparkShim {
  override def writeRebase(conf: SQLConf): (Int => Int, Long => Long) = {
    val mode = LegacyBehaviorPolicy.withName(conf.getConf(SQLConf.PARQUET_REBASE_MODE_IN_WRITE))
    (DataSourceUtils.createDateRebaseFuncInWrite(mode, "Parquet"),
      DataSourceUtils.createTimestampRebaseFuncInWrite(mode, "Parquet"))
  }
}
