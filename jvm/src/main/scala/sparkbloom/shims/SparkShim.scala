// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import java.io.InputStream

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.column.Encoding
import org.apache.parquet.format.FileMetaData
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.Partition
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.read.InputPartition
import org.apache.spark.sql.catalyst.expressions.{DynamicPruningSubquery, EvalMode, ExprId, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StringType

/**
 * Everything that differs between the Spark lines sparkbloom supports (dev/spark-lines),
 * and why. Each line's `SparkShims` object implements it, assembled from the files in the
 * shim directories that serve the line (`jvm/src/main/spark-<first>[-<last>]/`); the rest
 * of the code calls `SparkShims` and never names a Spark version.
 *
 * One difference is a class, not a method: `ParquetScanBase`, Spark's V2 `ParquetScan`
 * rebuilt with another file index, because its constructor gained a parameter in 4.1.
 */
private[sparkbloom] trait SparkShim {

  /** Spark's own DataSource V2 planning of `plan`, or Nil outside a classic (in-JVM) session:
   *  4.0 moved the classic session to `org.apache.spark.sql.classic`. */
  def planDataSourceV2(session: SparkSession, plan: LogicalPlan): Seq[SparkPlan]

  /** The input partitions a partition of a DataSource V2 scan's RDD reads: 4.2 made them one, or none. */
  def inputPartitionsOf(partition: Partition): Seq[InputPartition]

  /** A partition of a DataSource V2 scan's RDD, at `index`, that reads `inputs` (at most one from 4.2 on). */
  def partitionReading(index: Int, inputs: Seq[InputPartition]): Partition

  /** Whether equal values of this string type are equal bytes: 4.0 added collations. */
  def bytewiseEquality(stringType: StringType): Boolean

  /** A chunk's `bloom_filter_length`, -1 where parquet-java's metadata lacks it (1.13, Spark 3.5). */
  def bloomFilterLength(chunk: ColumnChunkMetaData): Int

  /** The Thrift footer, parsed with parquet-java's configurable size limit where it has one
   *  (1.17, Spark 4.2); before, parquet-java parses with Thrift's defaults and so do we. */
  def readThriftFooter(in: InputStream, conf: Configuration): FileMetaData

  /** Spark's rebase of dates (days) and timestamps (micros) as its Parquet writer applies
   *  them under `conf`: the rebase mode became a typed enum setting in 4.1. */
  def writeRebase(conf: SQLConf): (Int => Int, Long => Long)

  /** Spark's dynamic pruning subquery for `keys`: 4.0 made the single key index a list of
   *  indices, 4.3 added a second parameter list (a projection of broadcast values). */
  def dynamicPruningSubquery(keys: KeySubquery): DynamicPruningSubquery

  /** How `sum` meets an overflow (`try_sum` is a sum in TRY mode): 4.1 moved the mode into a `NumericEvalContext`. */
  def evalMode(sum: Sum): EvalMode.Value

  /** Whether Spark's vectorized reader skips values of `encoding` in a column of `typeName`
   *  correctly, as it must in every column it reads when given row ranges: before 4.3 its
   *  DELTA_BINARY_PACKED skips can return another row's values, and other readers throw. */
  def readerSkips(encoding: Encoding, typeName: PrimitiveTypeName): Boolean
}

/**
 * The encodings whose values every line's vectorized reader skips, levels included, and
 * that the tests narrow rows through. DELTA_LENGTH_BYTE_ARRAY is left out: no writer the
 * tests run uses it. DELTA_BYTE_ARRAY is left out on every line: Spark's reader of it takes
 * a value's bytes from the page buffer's backing array without the buffer's offset, which
 * in uncompressed pages can give other bytes. On 4.3, narrowed reads of an uncompressed v2
 * file returned other bytes where Spark's own reads of it did not; from 4.1 on, Spark itself
 * fails reading such a file split by split, sparkbloom or not (3.5 and 4.0 read it).
 */
private[sparkbloom] object ReaderSkips {
  import Encoding._

  def onEveryLine(encoding: Encoding): Boolean = encoding match {
    case PLAIN | PLAIN_DICTIONARY | RLE_DICTIONARY | RLE | BIT_PACKED => true
    case _ => false
  }
}

/** The values of `buildKeys(keyIndex)` over `buildQuery`, to prune by `pruningKey`, as every line describes them. */
private[sparkbloom] final case class KeySubquery(pruningKey: Expression, buildQuery: LogicalPlan,
    buildKeys: Seq[Expression], keyIndex: Int, onlyInBroadcast: Boolean, exprId: ExprId)
