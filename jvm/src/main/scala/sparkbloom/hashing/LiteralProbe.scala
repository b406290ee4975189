// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

import java.math.{BigDecimal => JBigDecimal, BigInteger}

import org.apache.parquet.schema.LogicalTypeAnnotation._
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import sparkbloom.sbbf.XxHash64
import sparkbloom.shims.SparkShims

/**
 * The hash(es) under which a predicate literal would be stored in a given file column.
 *
 * The literal is a Catalyst value of `literalType` (what `Literal.value` holds); the column
 * is described by the file's own Parquet type, so a file written before a type change is
 * judged by what it actually holds (an `INT32` column probed with a `long` literal, a
 * decimal literal of another scale, a `FLOAT` column read as `double`). Whenever the
 * literal cannot be written into the column exactly, or the column's encoding is not one
 * whose hashing is fixed by the spec, the answer is [[ProbeHashes.Undecidable]], never
 * "absent": the data gets read.
 *
 * Floating point: SQL equality treats 0.0 and -0.0 as equal, so a zero is looked up under
 * both bit patterns; NaN has many bit patterns and a writer may store any of them, so NaN
 * is undecidable.
 */
private[sparkbloom] object LiteralProbe {
  import ProbeHashes._

  private type Stored = Option[Seq[Any]]

  def hashes(column: PrimitiveType, literalType: DataType, literal: Any): ProbeHashes =
    storedValues(column, literalType, literal).fold[ProbeHashes](Undecidable)(values => AnyOf(values.map(hashStored)))

  /**
   * The literal as the column stores it, in parquet-java's value classes (Integer, Long,
   * Float, Double, Binary), so it can be hashed or compared with the column's statistics;
   * None when undecidable. More than one value only for a floating-point zero.
   */
  def storedValues(column: PrimitiveType, literalType: DataType, literal: Any): Option[Seq[Any]] =
    if (literal == null) None
    else {
      val annotation = column.getLogicalTypeAnnotation
      column.getPrimitiveTypeName match {
        case INT32 => integer(32, annotation, literalType, literal)
        case INT64 => integer(64, annotation, literalType, literal)
        case FLOAT => floating(literalType, literal, asFloat = true)
        case DOUBLE => floating(literalType, literal, asFloat = false)
        case BINARY => byteArray(annotation, literalType, literal)
        case FIXED_LEN_BYTE_ARRAY => fixedLen(annotation, column.getTypeLength, literalType, literal)
        case _ => None // BOOLEAN and INT96 carry no filter we can trust
      }
    }

  /**
   * The Spark type a value given as text (the CLI's `probe`, `sparkbloom_probe` with a
   * string) is cast to before it is probed in `column`, as DuckDB's `parquet_bloom_probe`
   * casts to the column's type; None when the text is probed as it is (strings, binary,
   * UUIDs) or the column carries no filter we judge.
   */
  def textCastType(column: PrimitiveType): Option[DataType] = {
    (column.getPrimitiveTypeName, column.getLogicalTypeAnnotation) match {
      case (_, d: DecimalLogicalTypeAnnotation) => Some(DecimalType(d.getPrecision, d.getScale))
      case (INT32, _: DateLogicalTypeAnnotation) => Some(DateType)
      case (INT64, t: TimestampLogicalTypeAnnotation) =>
        Some(if (t.isAdjustedToUTC) TimestampType else TimestampNTZType)
      case (INT64, i: IntLogicalTypeAnnotation) if !i.isSigned => Some(DecimalType(20, 0))
      case (INT32 | INT64, null | _: IntLogicalTypeAnnotation) => Some(LongType)
      case (FLOAT, _) => Some(FloatType)
      case (DOUBLE, _) => Some(DoubleType)
      case _ => None
    }
  }

  /** XXH64 of a stored value's plain encoding. */
  def hashStored(value: Any): Long = value match {
    case i: java.lang.Integer => XxHash64.hashInt(i)
    case l: java.lang.Long => XxHash64.hashLong(l)
    case f: java.lang.Float => XxHash64.hashFloat(f)
    case d: java.lang.Double => XxHash64.hashDouble(d)
    case b: Binary => XxHash64.hashBytes(b.getBytes)
    case other => throw new IllegalArgumentException(s"not a stored Parquet value: $other")
  }

  /** INT32 and INT64 columns: whole numbers, decimals, dates (INT32), timestamps (INT64). */
  private def integer(bits: Int, annotation: LogicalTypeAnnotation, literalType: DataType, literal: Any): Stored = {
    def stored(value: Option[BigInteger], fits: BigInteger => Boolean): Stored =
      value.filter(fits).map(v => Seq(if (bits == 32) Int.box(v.intValue) else Long.box(v.longValue)))
    annotation match {
      case d: DecimalLogicalTypeAnnotation =>
        stored(storedDecimal(literalType, literal, d.getScale), fitsSigned(_, bits))
      case i: IntLogicalTypeAnnotation if readsExactly(literalType, literal, i.getBitWidth, i.isSigned) =>
        stored(integral(literalType, literal), fitsInt(_, i.getBitWidth, i.isSigned))
      case null if readsExactly(literalType, literal, bits, signed = true) =>
        stored(integral(literalType, literal), fitsSigned(_, bits))
      case _: DateLogicalTypeAnnotation if bits == 32 =>
        if (literalType == DateType) Some(Seq(Int.box(literal.asInstanceOf[Int]))) else None
      case t: TimestampLogicalTypeAnnotation if bits == 64 => timestamp(t, literalType, literal)
      case _ => None // TIME and annotations whose value mapping we do not own
    }
  }

  /** Catalyst timestamps are microseconds; the file may store millis, micros or nanos. */
  private def timestamp(t: TimestampLogicalTypeAnnotation, literalType: DataType, literal: Any): Stored =
    literalType match {
      // The instant kinds must agree: reading one as the other may shift values by a time zone.
      case TimestampType | TimestampNTZType if (literalType == TimestampType) == t.isAdjustedToUTC =>
        val micros = literal.asInstanceOf[Long]
        val stored: Option[Long] = t.getUnit match {
          case TimeUnit.MICROS => Some(micros)
          case TimeUnit.MILLIS => if (micros % 1000 == 0) Some(micros / 1000) else None
          case TimeUnit.NANOS =>
            val nanos = BigInteger.valueOf(micros).multiply(BigInteger.valueOf(1000))
            if (fitsSigned(nanos, 64)) Some(nanos.longValue) else None
        }
        stored.map(v => Seq(Long.box(v)))
      case _ => None
    }

  private def floating(literalType: DataType, literal: Any, asFloat: Boolean): Stored = {
    val value: Option[Double] = literalType match {
      case FloatType => Some(literal.asInstanceOf[Float].toDouble)
      case DoubleType => Some(literal.asInstanceOf[Double])
      case _ => integral(literalType, literal).map(_.doubleValue) // exactness checked below
    }
    value match {
      case Some(v) if v.isNaN => None
      case Some(v) if v == 0.0 =>
        if (asFloat) Some(Seq(Float.box(0.0f), Float.box(-0.0f))) else Some(Seq(Double.box(0.0), Double.box(-0.0)))
      case Some(v) if asFloat =>
        if (v.toFloat.toDouble == v && exactlyFrom(literalType, literal, v)) Some(Seq(Float.box(v.toFloat))) else None
      case Some(v) if exactlyFrom(literalType, literal, v) => Some(Seq(Double.box(v)))
      case _ => None
    }
  }

  /** True when `asDouble` is exactly the literal (an integral literal may lose digits). */
  private def exactlyFrom(literalType: DataType, literal: Any, asDouble: Double): Boolean =
    literalType match {
      case FloatType | DoubleType => true
      case _ => integral(literalType, literal).exists(i =>
          !asDouble.isInfinite &&
            new JBigDecimal(asDouble).toBigIntegerExact == i)
    }

  private def byteArray(annotation: LogicalTypeAnnotation, literalType: DataType, literal: Any): Stored =
    annotation match {
      case _: DecimalLogicalTypeAnnotation => None // variable-width decimals: writers may pad, bytes are not unique
      case null | _: StringLogicalTypeAnnotation | _: EnumLogicalTypeAnnotation | _: JsonLogicalTypeAnnotation |
          _: BsonLogicalTypeAnnotation =>
        bytesOf(literalType, literal).map(b => Seq(Binary.fromConstantByteArray(b)))
      case _ => None
    }

  private def fixedLen(annotation: LogicalTypeAnnotation, width: Int, literalType: DataType, literal: Any): Stored =
    annotation match {
      case d: DecimalLogicalTypeAnnotation =>
        storedDecimal(literalType, literal, d.getScale).flatMap(DecimalBytes.fixedWidth(_, width))
          .map(b => Seq(Binary.fromConstantByteArray(b)))
      case null | _: UUIDLogicalTypeAnnotation =>
        bytesOf(literalType, literal).filter(_.length == width).map(b => Seq(Binary.fromConstantByteArray(b)))
      case _ => None // FLOAT16, INTERVAL: equality is not byte equality
    }

  /** Bytes of a string or binary literal; None for strings whose equality is not bytewise. */
  private def bytesOf(literalType: DataType, literal: Any): Option[Array[Byte]] = literalType match {
    case s: StringType if SparkShims.bytewiseEquality(s) => Some(literal.asInstanceOf[UTF8String].getBytes)
    case BinaryType => Some(literal.asInstanceOf[Array[Byte]])
    case _ => None
  }

  /** The literal as a whole number, when it is one exactly. */
  private def integral(literalType: DataType, literal: Any): Option[BigInteger] = literalType match {
    case ByteType => Some(BigInteger.valueOf(literal.asInstanceOf[Byte].toLong))
    case ShortType => Some(BigInteger.valueOf(literal.asInstanceOf[Short].toLong))
    case IntegerType => Some(BigInteger.valueOf(literal.asInstanceOf[Int].toLong))
    case LongType => Some(BigInteger.valueOf(literal.asInstanceOf[Long]))
    case _: DecimalType => unscaled(literalType, literal, 0)
    case FloatType | DoubleType =>
      val d = if (literalType == FloatType) literal.asInstanceOf[Float].toDouble else literal.asInstanceOf[Double]
      if (d.isNaN || d.isInfinite || d != math.rint(d)) None
      else Some(new JBigDecimal(d).toBigIntegerExact)
    case _ => None
  }

  /**
   * The unscaled value a decimal column of `scale` stores for a literal of the type Spark reads
   * it as. Only a decimal read at the file's scale or a larger one returns each stored value
   * exactly: read as a whole number, Spark returns the unscaled value itself (1.23 reads as
   * 123), and read at a smaller scale its row reader rounds (1.2345 reads as 1.23), so one
   * literal names stored values this cannot.
   */
  private def storedDecimal(literalType: DataType, literal: Any, scale: Int): Option[BigInteger] =
    literalType match {
      case d: DecimalType if d.scale >= scale => unscaled(literalType, literal, scale)
      case _ => None
    }

  /** The literal's unscaled value at `scale`, when the literal is a number exact at that scale. */
  private def unscaled(literalType: DataType, literal: Any, scale: Int): Option[BigInteger] = {
    val exact: Option[JBigDecimal] = literalType match {
      case _: DecimalType => Some(literal.asInstanceOf[Decimal].toJavaBigDecimal)
      case ByteType | ShortType | IntegerType | LongType => integral(literalType, literal).map(new JBigDecimal(_))
      case _ => None // a float is not an exact decimal literal
    }
    exact.flatMap { d =>
      try Some(d.setScale(scale, java.math.RoundingMode.UNNECESSARY).unscaledValue())
      catch { case _: ArithmeticException => None }
    }
  }

  /**
   * Whether the only stored value of an integer column of `bits` that Spark reads as
   * `literal` (of `readType`) is the literal itself. Spark truncates a narrowing read (an
   * INT32 column read as `tinyint` turns 300 into 44), so a literal of a narrower type
   * matches stored values it cannot name; a floating-point read rounds, so only literals
   * within the significand's exact range name one stored value.
   */
  private def readsExactly(readType: DataType, literal: Any, bits: Int, signed: Boolean): Boolean = {
    val signedBits = if (signed) bits else bits + 1
    def below(limitBits: Int): Boolean = literal match {
      case f: Float => math.abs(f.toDouble) < math.pow(2, limitBits)
      case d: Double => math.abs(d) < math.pow(2, limitBits)
      case _ => false
    }
    readType match {
      case ByteType => signedBits <= 8
      case ShortType => signedBits <= 16
      case IntegerType => signedBits <= 32
      case LongType => signedBits <= 64
      case FloatType => signedBits <= 25 || below(24)
      case DoubleType => signedBits <= 54 || below(53)
      case d: DecimalType => d.precision - d.scale >= BigInteger.ONE.shiftLeft(signedBits - 1).toString.length
      case _ => false
    }
  }

  private def fitsSigned(v: BigInteger, bits: Int): Boolean = v.bitLength() <= bits - 1

  /** Whether `v` is a value of an INT(bits, signed) column; unsigned values keep their bits. */
  private def fitsInt(v: BigInteger, bits: Int, signed: Boolean): Boolean =
    if (signed) fitsSigned(v, bits) else v.signum >= 0 && v.bitLength() <= bits
}
