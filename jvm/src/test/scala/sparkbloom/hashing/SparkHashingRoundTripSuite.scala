// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

import java.math.{BigDecimal => JBigDecimal}
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.values.bloomfilter.BloomFilter
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.PrimitiveType
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite}

/**
 * Spark writes each type with parquet-java's own Bloom filter options; every value we hash
 * must be in parquet-java's filter, and for values never written our probe hash must be
 * the hash parquet-java computes for the value as it would store it.
 */
class SparkHashingRoundTripSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED",
    "spark.sql.session.timeZone" -> "UTC")

  private val rnd = new scala.util.Random(42)

  private def randomDecimal(precision: Int, scale: Int): JBigDecimal = {
    val digits = (1 to precision).map(_ => ('0' + rnd.nextInt(10)).toChar).mkString
    val unscaled = new java.math.BigInteger(if (rnd.nextBoolean()) "-" + digits else digits)
    new JBigDecimal(unscaled, scale)
  }

  private def maxDecimal(precision: Int, scale: Int, negative: Boolean): JBigDecimal = {
    val unscaled = new java.math.BigInteger("9" * precision)
    new JBigDecimal(if (negative) unscaled.negate() else unscaled, scale)
  }

  /** A generator of values for each column, with edge cases mixed in. */
  private val columns: Seq[(String, DataType, () => Any)] = Seq(
    ("c_byte", ByteType, () => (rnd.nextInt(256) - 128).toByte),
    ("c_short", ShortType, () => (rnd.nextInt(65536) - 32768).toShort),
    ("c_int", IntegerType, () => if (rnd.nextInt(10) == 0) Int.MinValue else rnd.nextInt()),
    ("c_long", LongType, () => if (rnd.nextInt(10) == 0) Long.MaxValue else rnd.nextLong()),
    ("c_date", DateType, () => Date.valueOf(java.time.LocalDate.ofEpochDay(rnd.nextInt(200000) - 100000L))),
    ("c_ts", TimestampType, () => new Timestamp(rnd.nextLong() % 10000000000000L)),
    ("c_ts_ntz", TimestampNTZType,
      () =>
        LocalDateTime.of(1800 + rnd.nextInt(400), 1 + rnd.nextInt(12), 1, 0, 0)
          .plusNanos(rnd.nextInt(1000000) * 1000L)),
    ("c_float", FloatType,
      () =>
        rnd.nextInt(8) match {
          case 0 => Float.NaN; case 1 => -0.0f; case 2 => 0.0f; case _ => rnd.nextFloat() * 1e6f - 5e5f
        }),
    ("c_double", DoubleType,
      () =>
        rnd.nextInt(8) match {
          case 0 => Double.NaN; case 1 => -0.0; case 2 => Double.MaxValue; case _ => rnd.nextGaussian() * 1e9
        }),
    ("c_string", StringType,
      () =>
        rnd.nextInt(6) match {
          case 0 => ""; case 1 => "Zürich ☃ " + rnd.nextInt(); case _ => java.util.UUID.randomUUID().toString
        }), ("c_binary", BinaryType, () => Array.fill(rnd.nextInt(20))(rnd.nextInt(256).toByte)),
    ("c_dec_5_2", DecimalType(5, 2), () => randomDecimal(5, 2)),
    ("c_dec_15_3", DecimalType(15, 3),
      () => if (rnd.nextInt(10) == 0) maxDecimal(15, 3, true) else randomDecimal(15, 3)),
    ("c_dec_30_5", DecimalType(30, 5), () => randomDecimal(30, 5)),
    ("c_dec_38_0", DecimalType(38, 0),
      () =>
        if (rnd.nextInt(10) == 0) maxDecimal(38, 0, rnd.nextBoolean())
        else randomDecimal(38, 0))
  )

  private val schema = StructType(columns.map { case (name, t, _) => StructField(name, t, nullable = true) })

  private def rows(n: Int): Seq[Row] = Seq.fill(n)(Row.fromSeq(columns.map { case (_, _, gen) =>
    if (rnd.nextInt(15) == 0) null else gen()
  }))

  /** Writes `data` into one file with parquet-java's filters on every column; its chunks by column. */
  private def writeWithParquetJavaFilters(
      data: Seq[Row], conf: Map[String, String]): Map[String, ParquetFiles.Chunk] = {
    val dir = java.nio.file.Files.createTempDirectory("sparkbloom-roundtrip").toString
    conf.foreach { case (k, v) => spark.conf.set(k, v) }
    try {
      val options = Map("parquet.enable.dictionary" -> "false") ++
        columns.map { case (name, _, _) => s"parquet.bloom.filter.enabled#$name" -> "true" }
      spark.createDataFrame(spark.sparkContext.parallelize(data, 1), schema)
        .write.options(options).mode("overwrite").parquet(dir)
    } finally conf.keys.foreach(spark.conf.unset)
    val files = ParquetFiles.dataFiles(dir)
    assert(files.size == 1)
    val chunks = ParquetFiles.chunks(files.head)
    assert(chunks.map(_.rowGroup).distinct == Seq(0))
    chunks.map(c => c.path -> c).toMap
  }

  private def primitiveType(chunk: ParquetFiles.Chunk): PrimitiveType = chunk.meta.getPrimitiveType

  private def checkRoundTrip(conf: Map[String, String], timestampOutput: String, legacy: Boolean): Unit = {
    val data = rows(300)
    val chunks = writeWithParquetJavaFilters(data, conf)
    val internal =
      data.map(r => CatalystTypeConverters.convertToCatalyst(r).asInstanceOf[org.apache.spark.sql.catalyst.InternalRow])
    for (((name, dataType, _), ordinal) <- columns.zipWithIndex) {
      val chunk = chunks(name)
      val filter = chunk.filter.getOrElse(fail(s"$name: parquet-java wrote no filter"))
      val hasher = RowValueHasher.forType(dataType, timestampOutput, legacy).fold(r => fail(r), identity)
      var checked = 0
      for (row <- internal if !row.isNullAt(ordinal)) {
        val h = hasher.hash(row, ordinal)
        assert(filter.findHash(h), s"$name: value ${row.get(ordinal, dataType)} not found by its hash")
        LiteralProbe.hashes(primitiveType(chunk), dataType, row.get(ordinal, dataType)) match {
          case ProbeHashes.AnyOf(hs) =>
            assert(hs.contains(h), s"$name: probe hashes $hs miss the written hash $h")
            assert(hs.exists(filter.findHash))
          case ProbeHashes.Undecidable =>
            val v = row.get(ordinal, dataType)
            assert(v.isInstanceOf[Float] && v.asInstanceOf[Float].isNaN ||
                v.isInstanceOf[Double] && v.asInstanceOf[Double].isNaN, s"$name: undecidable for $v")
        }
        checked += 1
      }
      assert(checked > 200, s"$name: only $checked values checked")
    }
    checkAbsentValues(chunks, timestampOutput, legacy)
  }

  /** For values never written: our probe's hash is parquet-java's hash of the stored form. */
  private def checkAbsentValues(
      chunks: Map[String, ParquetFiles.Chunk], timestampOutput: String, legacy: Boolean): Unit = {
    def probe(name: String, t: DataType, external: Any): Seq[Long] = {
      val value = CatalystTypeConverters.createToCatalystConverter(t)(external)
      LiteralProbe.hashes(primitiveType(chunks(name)), t, value) match {
        case ProbeHashes.AnyOf(hs) => hs
        case ProbeHashes.Undecidable => fail(s"$name: $external undecidable")
      }
    }
    val pj: BloomFilter = chunks("c_int").filter.get
    def storedDecimal(name: String, d: JBigDecimal, precision: Int): Long =
      if (!legacy && precision <= 9) pj.hash(d.unscaledValue.intValue)
      else if (!legacy && precision <= 18) pj.hash(d.unscaledValue.longValue)
      else {
        val width = primitiveType(chunks(name)).getTypeLength
        pj.hash(Binary.fromConstantByteArray(DecimalBytes.fixedWidth(d.unscaledValue, width).get))
      }
    assert(probe("c_byte", ByteType, 7.toByte) == Seq(pj.hash(7)))
    assert(probe("c_short", ShortType, (-3).toShort) == Seq(pj.hash(-3)))
    assert(probe("c_int", IntegerType, 123456789) == Seq(pj.hash(123456789)))
    assert(probe("c_long", LongType, -5L) == Seq(pj.hash(-5L)))
    assert(probe("c_date", DateType, Date.valueOf("1850-03-04")) ==
      Seq(pj.hash(java.time.LocalDate.parse("1850-03-04").toEpochDay.toInt)))
    val ts = Timestamp.valueOf("2024-01-02 03:04:05") // session zone is UTC
    val tsMicros = ts.getTime * 1000
    val tsStored = if (timestampOutput == "TIMESTAMP_MILLIS") tsMicros / 1000 else tsMicros
    assert(probe("c_ts", TimestampType, ts) == Seq(pj.hash(tsStored)))
    val ntz = LocalDateTime.parse("1899-12-31T23:59:59.000001")
    val ntzMicros = ntz.toEpochSecond(java.time.ZoneOffset.UTC) * 1000000 + 1
    assert(probe("c_ts_ntz", TimestampNTZType, ntz) == Seq(pj.hash(ntzMicros)))
    assert(probe("c_float", FloatType, 1.5f) == Seq(pj.hash(1.5f)))
    assert(probe("c_float", FloatType, -0.0f).toSet == Set(pj.hash(0.0f), pj.hash(-0.0f)))
    assert(probe("c_double", DoubleType, 0.0).toSet == Set(pj.hash(0.0), pj.hash(-0.0)))
    assert(probe("c_double", DoubleType, 2.25) == Seq(pj.hash(2.25)))
    assert(probe("c_string", StringType, "not there") ==
      Seq(pj.hash(Binary.fromString("not there"))))
    assert(probe("c_binary", BinaryType, Array[Byte](1, 2, 3)) ==
      Seq(pj.hash(Binary.fromConstantByteArray(Array[Byte](1, 2, 3)))))
    for ((name, p, s) <-
        Seq(("c_dec_5_2", 5, 2), ("c_dec_15_3", 15, 3), ("c_dec_30_5", 30, 5), ("c_dec_38_0", 38, 0))) {
      for (d <- Seq(maxDecimal(p, s, negative = true), new JBigDecimal("-1").setScale(s),
          new JBigDecimal("12").setScale(s))) {
        assert(probe(name, DecimalType(p, s), d) == Seq(storedDecimal(name, d, p)), s"$name $d")
      }
    }
    // And these absent values are, with this many bits, mostly reported absent.
    val absentInts = (1 to 1000).map(i => 2000000000 + i)
    val falsePositives = absentInts.count(v => pj.findHash(pj.hash(v)))
    assert(falsePositives < 100)
  }

  test("standard layout, TIMESTAMP_MICROS: every written value is found, absent values hash like parquet-java") {
    checkRoundTrip(Map("spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MICROS"), "TIMESTAMP_MICROS",
      legacy = false)
  }

  test("legacy decimal layout, TIMESTAMP_MILLIS") {
    checkRoundTrip(Map(
        "spark.sql.parquet.outputTimestampType" -> "TIMESTAMP_MILLIS",
        "spark.sql.parquet.writeLegacyFormat" -> "true"), "TIMESTAMP_MILLIS", legacy = true)
  }

  test("types that cannot carry a filter are reported, not hashed") {
    for (t <- Seq(BooleanType, ArrayType(IntegerType), MapType(StringType, IntegerType),
        StructType(Seq(StructField("a", IntegerType))), NullType)) {
      assert(RowValueHasher.forType(t, "TIMESTAMP_MICROS", legacyFormat = false).isLeft, t)
    }
    val int96 = RowValueHasher.forType(TimestampType, "INT96", legacyFormat = false)
    assert(int96.left.exists(_.contains("INT96")))
  }

  test("a NaN is hashed as parquet-java's encoders store it: the canonical NaN, whatever its bits in the row") {
    import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
    import sparkbloom.sbbf.XxHash64
    val negativeNaN = java.lang.Double.longBitsToDouble(0xfff8000000000000L) // x86's computed NaN
    val payloadNaN = java.lang.Float.intBitsToFloat(0xffc00001)
    val row = new GenericInternalRow(Array[Any](negativeNaN, payloadNaN))
    def hasher(t: DataType) = RowValueHasher.forType(t, "TIMESTAMP_MICROS", legacyFormat = false).toOption.get
    assert(hasher(DoubleType).hash(row, 0) == XxHash64.hashLong(0x7ff8000000000000L))
    assert(hasher(FloatType).hash(row, 1) == XxHash64.hashInt(0x7fc00000))
    // every other value keeps its bits, -0.0 included
    val zero = new GenericInternalRow(Array[Any](-0.0, -0.0f))
    assert(hasher(DoubleType).hash(zero, 0) == XxHash64.hashDouble(-0.0))
    assert(hasher(FloatType).hash(zero, 1) == XxHash64.hashFloat(-0.0f))
  }

  test("literal coercion: exact values are hashed in the file's type, inexact ones are undecidable") {
    import org.apache.parquet.schema.{LogicalTypeAnnotation => L, Types}
    import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
    import org.apache.spark.sql.types.Decimal
    import sparkbloom.sbbf.XxHash64
    val int32 = Types.required(INT32).named("i")
    val int8 = Types.required(INT32).as(L.intType(8, true)).named("b")
    val uint32 = Types.required(INT32).as(L.intType(32, false)).named("u")
    val int64 = Types.required(INT64).named("l")
    val dec32 = Types.required(INT32).as(L.decimalType(2, 9)).named("d")
    val float = Types.required(FLOAT).named("f")
    val millis = Types.required(INT64).as(L.timestampType(true, L.TimeUnit.MILLIS)).named("t")
    val nanos = Types.required(INT64).as(L.timestampType(false, L.TimeUnit.NANOS)).named("n")
    val flba = Types.required(FIXED_LEN_BYTE_ARRAY).length(16).as(L.uuidType()).named("uuid")
    val varDecimal = Types.required(BINARY).as(L.decimalType(2, 20)).named("vd")
    val one = ProbeHashes.one _
    // long literal against an INT32 file column (type widening)
    assert(LiteralProbe.hashes(int32, LongType, 5L) == one(XxHash64.hashInt(5)))
    assert(LiteralProbe.hashes(int32, LongType, 1L << 40) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(int8, IntegerType, 200) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(uint32, LongType, 4000000000L) == one(XxHash64.hashInt(4000000000L.toInt)))
    assert(LiteralProbe.hashes(uint32, LongType, -1L) == ProbeHashes.Undecidable)
    // an INT64 column read as int would be narrowed: never judged
    assert(LiteralProbe.hashes(int64, IntegerType, -7) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(int64, DoubleType, 3.0) == one(XxHash64.hashLong(3L)))
    assert(LiteralProbe.hashes(int64, DoubleType, 3.5) == ProbeHashes.Undecidable)
    // a double beyond 2^53 is what several stored longs read as
    assert(LiteralProbe.hashes(int64, DoubleType, 1e17) == ProbeHashes.Undecidable)
    // narrowing reads truncate (300 read as tinyint is 44): never judged
    assert(LiteralProbe.hashes(int32, ByteType, 44.toByte) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(int32, ShortType, 7.toShort) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(int8, ByteType, 5.toByte) == one(XxHash64.hashInt(5)))
    // a decimal column read at a larger scale: 1.500 (scale 3) is 150 at scale 2; 1.005 is no stored value
    assert(LiteralProbe.hashes(dec32, DecimalType(4, 3), Decimal(new JBigDecimal("1.500"))) ==
      one(XxHash64.hashInt(150)))
    assert(LiteralProbe.hashes(dec32, DecimalType(4, 3), Decimal(new JBigDecimal("1.005"))) == ProbeHashes.Undecidable)
    // read at a smaller scale Spark rounds (1.45 reads as 1.5), read as a whole number it returns
    // the unscaled value (0.03 reads as 3): a literal names stored values it cannot be rescaled to
    assert(LiteralProbe.hashes(dec32, DecimalType(2, 1), Decimal(new JBigDecimal("1.5"))) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(dec32, IntegerType, 3) == ProbeHashes.Undecidable)
    // float file column read as double
    assert(LiteralProbe.hashes(float, DoubleType, 0.5) == one(XxHash64.hashFloat(0.5f)))
    assert(LiteralProbe.hashes(float, DoubleType, 0.1) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(float, FloatType, Float.NaN) == ProbeHashes.Undecidable)
    // timestamps: micros literal into millis / nanos columns
    assert(LiteralProbe.hashes(millis, TimestampType, 5000L) == one(XxHash64.hashLong(5L)))
    assert(LiteralProbe.hashes(millis, TimestampType, 5001L) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(nanos, TimestampNTZType, 2L) == one(XxHash64.hashLong(2000L)))
    assert(LiteralProbe.hashes(nanos, TimestampNTZType, Long.MaxValue) == ProbeHashes.Undecidable)
    // an instant literal against a local-time column (or the reverse) is never judged
    assert(LiteralProbe.hashes(nanos, TimestampType, 2L) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(millis, TimestampNTZType, 5000L) == ProbeHashes.Undecidable)
    // fixed-length binary: only literals of the right width
    val uuidBytes = Array.tabulate[Byte](16)(_.toByte)
    assert(LiteralProbe.hashes(flba, BinaryType, uuidBytes) == one(XxHash64.hashBytes(uuidBytes)))
    assert(LiteralProbe.hashes(flba, BinaryType, Array[Byte](1)) == ProbeHashes.Undecidable)
    // variable-width decimals are never judged (nor non-binary collations: CollationProbeSuite, Spark 4)
    assert(LiteralProbe.hashes(varDecimal, DecimalType(20, 2), Decimal(new JBigDecimal("1.00"))) == ProbeHashes.Undecidable)
    assert(LiteralProbe.hashes(int32, IntegerType, null) == ProbeHashes.Undecidable)
  }
}
