package sparkbloom.read

import java.math.{BigDecimal => JBigDecimal}
import java.nio.file.Files
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime

import scala.util.Random

import org.apache.spark.sql.{Column, Row}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.SparkSessionSuite

/**
 * No false negatives: randomized tables of every supported type, written by sparkbloom
 * (power-of-two and exact filter sizes), by parquet-java's own filter options (legacy
 * decimals, millisecond timestamps) and with no filters at all, queried with randomized `=`, `<=>`, `IN` and AND/OR mixes. Every
 * query must return exactly the same rows with sparkbloom on and off.
 */
class DifferentialSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED",
    "spark.sql.session.timeZone" -> "America/Los_Angeles")

  /** Queries per run when SPARKBLOOM_DIFF_QUERIES does not say. */
  protected def defaultQueries: Int = 300

  private val seed = sys.env.getOrElse("SPARKBLOOM_TEST_SEED", "20261121").toLong
  private val rnd = new Random(seed)

  private val columns: Seq[(String, DataType)] = Seq(
    "c_byte" -> ByteType, "c_short" -> ShortType, "c_int" -> IntegerType, "c_long" -> LongType,
    "c_float" -> FloatType, "c_double" -> DoubleType, "c_dec9" -> DecimalType(9, 2),
    "c_dec18" -> DecimalType(18, 4), "c_dec38" -> DecimalType(38, 10), "c_string" -> StringType,
    "c_binary" -> BinaryType, "c_date" -> DateType, "c_ts" -> TimestampType, "c_ts_ntz" -> TimestampNTZType)

  private val schema = StructType(StructField("id", LongType, nullable = false) +:
    columns.map { case (n, t) => StructField(n, t) } :+
    StructField("s", StructType(Seq(StructField("k", StringType)))))

  /** A small pool of values per column, edge cases included, so values repeat across files. */
  private val pools: Map[String, IndexedSeq[Any]] = Map(
    "c_byte" -> IndexedSeq[Byte](Byte.MinValue, -1, 0, 1, 42, Byte.MaxValue),
    "c_short" -> IndexedSeq[Short](Short.MinValue, -300, 0, 7, Short.MaxValue),
    "c_int" -> (IndexedSeq(Int.MinValue, -1, 0, Int.MaxValue) ++ Seq.fill(40)(rnd.nextInt())),
    "c_long" -> (IndexedSeq(Long.MinValue, 0L, Long.MaxValue) ++ Seq.fill(60)(rnd.nextLong())),
    "c_float" -> IndexedSeq(Float.NaN, -0.0f, 0.0f, 1.5f, -2.25f, Float.MaxValue, Float.NegativeInfinity, 3.4e-40f),
    "c_double" -> IndexedSeq(Double.NaN, -0.0, 0.0, 0.1, -1e300, Double.PositiveInfinity, 5e-324),
    "c_dec9" -> IndexedSeq("-9999999.99", "0.00", "0.01", "1234567.89").map(new JBigDecimal(_)),
    "c_dec18" -> IndexedSeq("-99999999999999.9999", "0.0001", "42.0000", "12345678901234.5678").map(new JBigDecimal(_)),
    "c_dec38" -> IndexedSeq("-9999999999999999999999999999.9999999999", "0E-10", "1.0000000001",
      "9999999999999999999999999999.9999999999").map(new JBigDecimal(_)),
    "c_string" -> (IndexedSeq("", " ", "a", "A", "Zürich", "東京", "\u0000x", "trailing ") ++
      Seq.fill(30)(java.util.UUID.randomUUID().toString)),
    "c_binary" -> IndexedSeq(Array[Byte](), Array[Byte](0), Array[Byte](1, 2, 3), Array.fill[Byte](40)(7)),
    "c_date" -> IndexedSeq("0001-01-01", "1582-10-15", "1899-12-31", "1970-01-01", "2024-02-29", "9999-12-31")
      .map(Date.valueOf),
    "c_ts" -> IndexedSeq("1900-01-01 00:00:00", "1969-12-31 23:59:59.999999", "2024-03-10 02:30:00",
      "2024-11-03 01:30:00.123", "2262-04-11 23:47:16").map(Timestamp.valueOf),
    "c_ts_ntz" -> IndexedSeq("1800-01-01T00:00:00", "1970-01-01T00:00:00.000001", "2024-03-10T02:30:00")
      .map(LocalDateTime.parse(_))
  )

  private def randomRow(id: Long): Row = Row.fromSeq(id +: columns.map { case (n, _) =>
    if (rnd.nextInt(10) == 0) null else pools(n)(rnd.nextInt(pools(n).size))
  } :+ (if (rnd.nextInt(10) == 0) null else Row(pools("c_string")(rnd.nextInt(pools("c_string").size)))))

  private lazy val table: String = {
    val path = Files.createTempDirectory("sparkbloom-diff").toString + "/t"
    val filtered = (columns.map(_._1) :+ "s.k").mkString(",")
    var nextId = 0L
    def batch(n: Int) = {
      val rows = (0 until n).map(_ => { nextId += 1; randomRow(nextId) })
      spark.createDataFrame(spark.sparkContext.parallelize(rows, 3), schema)
    }
    batch(3000).write.option("bloom_filter_columns", filtered).option("parquet.block.size", 8192).parquet(path)
    // filters of any whole number of blocks, not only powers of two (as other writers may write)
    batch(1000).write.mode("append").option("bloom_filter_columns", filtered).option("bloom_filter_exact_size", "true")
      .option("parquet.block.size", 8192).parquet(path)
    // parquet-java's own filters, legacy decimal layout, millisecond timestamps
    spark.conf.set("spark.sql.parquet.writeLegacyFormat", "true")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS")
    try {
      val native = Map("parquet.enable.dictionary" -> "false") ++
        columns.map { case (n, _) => s"parquet.bloom.filter.enabled#$n" -> "true" }
      batch(1500).write.mode("append").options(native).parquet(path)
    } finally {
      spark.conf.unset("spark.sql.parquet.writeLegacyFormat")
      spark.conf.unset("spark.sql.parquet.outputTimestampType")
    }
    batch(1000).write.mode("append").parquet(path) // no filters at all
    path
  }

  private def literalFor(name: String, t: DataType, present: Boolean): Column = {
    val value: Any =
      if (present || rnd.nextInt(4) == 0) pools(name)(rnd.nextInt(pools(name).size))
      else t match {
        case ByteType => (rnd.nextInt(200) - 100).toByte
        case ShortType => rnd.nextInt(30000).toShort
        case IntegerType => rnd.nextInt()
        case LongType => rnd.nextLong()
        case FloatType => rnd.nextFloat()
        case DoubleType => rnd.nextDouble()
        case d: DecimalType => new JBigDecimal(BigInt(rnd.nextInt(1000000)).bigInteger, d.scale)
        case StringType => "absent-" + rnd.nextInt()
        case BinaryType => Array.fill[Byte](5)(rnd.nextInt(256).toByte)
        case DateType => Date.valueOf(java.time.LocalDate.ofEpochDay(rnd.nextInt(50000)))
        case TimestampType => new Timestamp(rnd.nextLong() % 100000000000000L)
        case TimestampNTZType => LocalDateTime.of(1990 + rnd.nextInt(30), 1, 1, 0, 0, rnd.nextInt(60))
      }
    lit(value).cast(t)
  }

  private def leaf(): Column = {
    val (name, t) = if (rnd.nextInt(12) == 0) ("s.k", StringType) else columns(rnd.nextInt(columns.size))
    val poolName = if (name == "s.k") "c_string" else name
    val c = col(name)
    val present = rnd.nextBoolean()
    rnd.nextInt(5) match {
      case 0 | 1 => c === literalFor(poolName, t, present)
      case 2 => c <=> literalFor(poolName, t, present)
      case 3 => c.isin(Seq.fill(1 + rnd.nextInt(4))(literalFor(poolName, t, present)): _*)
      case _ =>
        val values = Seq.fill(15 + rnd.nextInt(40))(literalFor(poolName, t, rnd.nextInt(5) == 0))
        c.isin((if (rnd.nextBoolean()) values :+ lit(null).cast(t) else values): _*)
    }
  }

  private def predicate(depth: Int): Column =
    if (depth == 0 || rnd.nextInt(3) == 0) leaf()
    else if (rnd.nextBoolean()) predicate(depth - 1) && predicate(depth - 1)
    else predicate(depth - 1) || predicate(depth - 1)

  private def ids(p: Column, enabled: Boolean): Seq[Long] = {
    spark.conf.set("spark.sparkbloom.enabled", enabled.toString)
    try spark.read.parquet(table).where(p).select("id").collect().map(_.getLong(0)).sorted.toSeq
    finally spark.conf.unset("spark.sparkbloom.enabled")
  }

  test(s"randomized queries return the same rows with pruning on and off (seed $seed)") {
    val queries = sys.env.getOrElse("SPARKBLOOM_DIFF_QUERIES", defaultQueries.toString).toInt
    var pruned = 0L
    var nonEmpty = 0
    for (q <- 1 to queries) {
      val p = predicate(2)
      val on = ids(p, enabled = true)
      val stats = PruningStats.last(spark).get
      val off = ids(p, enabled = false)
      assert(on == off, s"query $q: $p returned ${on.size} rows with sparkbloom, ${off.size} without")
      pruned += stats.filesSkipped + stats.rowGroupsSkipped
      if (off.nonEmpty) nonEmpty += 1
    }
    info(s"$queries queries, $nonEmpty with rows; files+row groups ruled out in total: $pruned")
    assert(pruned > 0, "the differential test must exercise pruning")
    assert(nonEmpty > queries / 10, "the differential test must include queries that match rows")
  }

  test("type-widened and newly added columns are judged by what each file holds") {
    val path = Files.createTempDirectory("sparkbloom-evolve").toString + "/t"
    spark.range(0, 1000, 1, 2).select(col("id").cast("int").as("k"))
      .write.option("bloom_filter_columns", "k").parquet(path)
    spark.range(1000, 2000, 1, 2).select(col("id").as("k"), (col("id") * 2).as("added"))
      .write.mode("append").option("bloom_filter_columns", "k,added").parquet(path)
    val readSchema = StructType(Seq(StructField("k", LongType), StructField("added", LongType)))
    for (p <- Seq(col("k") === 5L, col("k") === 1500L, col("k").isin(7L, 1999L, 5000L), col("added") === 2000L,
        col("added") <=> lit(4L), col("k") === 3000000000L)) {
      def run(enabled: Boolean) = {
        spark.conf.set("spark.sparkbloom.enabled", enabled.toString)
        try spark.read.schema(readSchema).parquet(path).where(p).collect().map(_.toString).sorted.toSeq
        finally spark.conf.unset("spark.sparkbloom.enabled")
      }
      assert(run(enabled = true) == run(enabled = false), p.toString)
    }
  }
}

/** The same differential test with Parquet read through DataSource V2 (`ParquetScan`). */
class DifferentialV2Suite extends DifferentialSuite {
  override protected def sessionConf: Map[String, String] =
    super.sessionConf + ("spark.sql.sources.useV1SourceList" -> "")
  override protected def defaultQueries: Int = 100
}
