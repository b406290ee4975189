// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy
import org.apache.spark.sql.types.StringType

/** What every Spark 4 line shares: classic sessions, collations, parquet-java 1.15+. */
private[sparkbloom] trait Spark4Shim extends SparkShim with DynamicPruningShim {
  override def planDataSourceV2(session: SparkSession, plan: LogicalPlan): Seq[SparkPlan] = session match {
    case s: classic.SparkSession => new DataSourceV2Strategy(s)(plan)
    case _ => Nil
  }

  override def bytewiseEquality(stringType: StringType): Boolean =
    stringType.collationId == StringType.collationId // UTF8_BINARY

  override def bloomFilterLength(chunk: ColumnChunkMetaData): Int = chunk.getBloomFilterLength
}
