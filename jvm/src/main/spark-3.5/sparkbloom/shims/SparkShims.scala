// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.DynamicPruningSubquery
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy
import org.apache.spark.sql.types.StringType

/** Spark 3.5: Scala 2.12, parquet-java 1.13.1, Hadoop 3.3.4. */
private[sparkbloom] object SparkShims
    extends SparkShim with ThriftFooterWithoutLimit with InputPartitionsAsSeq with RebaseModeAsString
    with ReaderSkipsShim with SumEvalModeShim {

  override def planDataSourceV2(session: SparkSession, plan: LogicalPlan): Seq[SparkPlan] =
    new DataSourceV2Strategy(session)(plan)

  override def bytewiseEquality(stringType: StringType): Boolean = true // no collations yet

  override def bloomFilterLength(chunk: ColumnChunkMetaData): Int = -1

  override def dynamicPruningSubquery(k: KeySubquery): DynamicPruningSubquery =
    DynamicPruningSubquery(k.pruningKey, k.buildQuery, k.buildKeys, k.keyIndex, k.onlyInBroadcast, k.exprId)
}
