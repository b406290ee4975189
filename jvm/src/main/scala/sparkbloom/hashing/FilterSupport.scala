// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

/** Which Spark column types can carry a Parquet Bloom filter when Spark writes them. */
private[sparkbloom] object FilterSupport {

  /** How Spark will store timestamps: `spark.sql.parquet.outputTimestampType`. */
  def outputTimestampType(conf: SQLConf): String =
    conf.getConfString(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key, "INT96").toUpperCase(java.util.Locale.ROOT)

  /**
   * The timestamp type a write that filters a timestamp column uses instead of `configured`
   * (a `spark.sql.parquet.outputTimestampType` value): INT96 cannot carry a filter, so it
   * becomes TIMESTAMP_MICROS, which every reader (Spark included) reads as the same instant.
   * The one place this is decided, for the write's planning and for the write itself.
   */
  def filterableTimestampType(configured: String): String =
    if (configured.equalsIgnoreCase("INT96")) "TIMESTAMP_MICROS" else configured.toUpperCase(java.util.Locale.ROOT)

  /**
   * None when Spark writes `dataType` as a Parquet primitive that a filter can cover;
   * otherwise the rule that forbids it, phrased for an error message.
   */
  def unsupportedReason(dataType: DataType, timestampOutput: String): Option[String] = dataType match {
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | DateType |
        TimestampNTZType | BinaryType | _: StringType | _: DecimalType =>
      None
    case TimestampType if timestampOutput == "INT96" =>
      Some("timestamps written as INT96 (Spark's default) cannot carry a Bloom filter")
    case TimestampType => None
    case BooleanType => Some("a boolean column cannot carry a Bloom filter (two values: statistics already prune)")
    case _: ArrayType => Some("an array column cannot carry a Bloom filter")
    case _: MapType => Some("a map column cannot carry a Bloom filter")
    case _: StructType => Some("a whole struct cannot carry a Bloom filter; name one of its fields by dotted path")
    case other => Some(s"a column of type ${other.simpleString} cannot carry a Bloom filter")
  }
}
