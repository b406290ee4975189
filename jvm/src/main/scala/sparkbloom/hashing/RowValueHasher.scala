// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

import java.math.BigInteger

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

import sparkbloom.sbbf.XxHash64

/**
 * Hashes a non-null value of one column, read from a Catalyst row, exactly as parquet-java
 * hashes the value that Spark's `ParquetWriteSupport` hands it for that column.
 */
private[sparkbloom] trait RowValueHasher extends Serializable {
  def hash(row: SpecializedGetters, ordinal: Int): Long
}

private[sparkbloom] object RowValueHasher {

  /**
   * How Spark's writer changes dates and timestamps before storing them: with
   * `spark.sql.parquet.datetimeRebaseModeInWrite=LEGACY` it rebases them to the hybrid
   * Julian calendar, so the stored value (what readers hash and look up) is the rebased one.
   */
  final case class Rebase(days: Int => Int, micros: Long => Long)

  object Rebase {
    val None: Rebase = Rebase(identity, identity)
  }

  /**
   * The hasher for a column of `dataType` written with Spark's settings
   * `timestampOutput` (`spark.sql.parquet.outputTimestampType`) and `legacyFormat`
   * (`spark.sql.parquet.writeLegacyFormat`) and the writer's calendar `rebase`; Left with
   * the reason when the type cannot carry a filter.
   */
  def forType(dataType: DataType, timestampOutput: String, legacyFormat: Boolean,
      rebase: Rebase = Rebase.None): Either[String, RowValueHasher] =
    FilterSupport.unsupportedReason(dataType, timestampOutput)
      .toLeft(build(dataType, timestampOutput, legacyFormat, rebase))

  private def build(
      dataType: DataType, timestampOutput: String, legacyFormat: Boolean, rebase: Rebase): RowValueHasher =
    dataType match {
      case ByteType => (row, i) => XxHash64.hashInt(row.getByte(i).toInt)
      case ShortType => (row, i) => XxHash64.hashInt(row.getShort(i).toInt)
      case IntegerType => (row, i) => XxHash64.hashInt(row.getInt(i))
      case DateType => (row, i) => XxHash64.hashInt(rebase.days(row.getInt(i)))
      // Spark never rebases TIMESTAMP_NTZ.
      case LongType | TimestampNTZType => (row, i) => XxHash64.hashLong(row.getLong(i))
      case TimestampType if timestampOutput == "TIMESTAMP_MILLIS" =>
        // Spark stores floor(rebased micros / 1000), as DateTimeUtils.microsToMillis does.
        (row, i) => XxHash64.hashLong(Math.floorDiv(rebase.micros(row.getLong(i)), 1000L))
      case TimestampType => (row, i) => XxHash64.hashLong(rebase.micros(row.getLong(i)))
      // The bits parquet-java's encoders store (floatToIntBits: every NaN as the one canonical
      // NaN), not the row's raw bits: Spark keeps a computed NaN's (sqrt(-1) is 0xfff8... on
      // x86), and a reader probing the stored value must find it (parquet-java's own filters
      // hash the raw bits; DataFusion then misses such a NaN).
      case FloatType => (row, i) => XxHash64.hashInt(java.lang.Float.floatToIntBits(row.getFloat(i)))
      case DoubleType => (row, i) => XxHash64.hashLong(java.lang.Double.doubleToLongBits(row.getDouble(i)))
      case _: StringType => (row, i) => hashUtf8(row.getUTF8String(i))
      case BinaryType => (row, i) => XxHash64.hashBytes(row.getBinary(i))
      case d: DecimalType if !legacyFormat && d.precision <= Decimal.MAX_INT_DIGITS =>
        (row, i) => XxHash64.hashInt(row.getDecimal(i, d.precision, d.scale).toUnscaledLong.toInt)
      case d: DecimalType if !legacyFormat && d.precision <= Decimal.MAX_LONG_DIGITS =>
        (row, i) => XxHash64.hashLong(row.getDecimal(i, d.precision, d.scale).toUnscaledLong)
      case d: DecimalType =>
        val width = Decimal.minBytesForPrecision(d.precision)
        (row, i) => {
          val unscaled = row.getDecimal(i, d.precision, d.scale).toJavaBigDecimal.unscaledValue()
          XxHash64.hashBytes(DecimalBytes.fixedWidth(unscaled, width).getOrElse(
              throw new IllegalStateException(s"decimal $unscaled does not fit $width bytes")))
        }
      case other => throw new IllegalArgumentException(s"no hasher for ${other.simpleString}")
    }

  /** XXH64 of a UTF8String's bytes without copying them when they live in a byte array. */
  def hashUtf8(s: UTF8String): Long = s.getBaseObject match {
    case bytes: Array[Byte] =>
      XxHash64.hashBytes(bytes, (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, s.numBytes())
    case _ => XxHash64.hashBytes(s.getBytes)
  }
}

/** Decimal unscaled values in the big-endian two's-complement layout Parquet uses. */
private[sparkbloom] object DecimalBytes {

  /** `unscaled` sign-extended to exactly `width` bytes, or None if it needs more. */
  def fixedWidth(unscaled: BigInteger, width: Int): Option[Array[Byte]] = {
    val minimal = unscaled.toByteArray
    if (minimal.length > width) None
    else {
      val out = new Array[Byte](width)
      val fill: Byte = if (unscaled.signum < 0) -1 else 0
      java.util.Arrays.fill(out, 0, width - minimal.length, fill)
      System.arraycopy(minimal, 0, out, width - minimal.length, minimal.length)
      Some(out)
    }
  }
}
