// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.math.{BigDecimal => JBigDecimal}
import java.nio.file.Files
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime

import scala.util.Random

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.Encoding
import org.apache.spark.sql.{Column, DataFrame, Row}
import org.apache.spark.sql.execution.UnionExec
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite, TestShims}

/**
 * No false negatives: randomized tables of every supported type, written by sparkbloom
 * (power-of-two and exact filter sizes), by parquet-java's own filter options (legacy
 * decimals, millisecond timestamps) and with
 * no filters at all, queried with randomized `=`, `<=>`, `IN` and AND/OR mixes. Every
 * query must return exactly the rows an in-memory oracle returns.
 *
 * **Why the oracle is not "sparkbloom off".** With sparkbloom off, Spark still hands the
 * predicate to parquet-java (`spark.sql.parquet.filterPushdown`), which drops row groups in
 * the tasks by the very same Bloom filters, statistics and dictionaries. A filter written
 * with a wrong hash would then lose the same rows on both sides and the comparison would
 * pass. So the expected rows come from Spark evaluating the same predicate over the rows
 * that were written, held in memory (a `LocalRelation` from `createDataFrame`): no Parquet
 * reader, no filter, no statistics take part. The first test checks that this copy is
 * exactly what Spark reads from the files (a full scan: nothing to push down or prune),
 * including the millisecond truncation of the TIMESTAMP_MILLIS batch.
 *
 * The files have many row groups and the session splits them across several tasks
 * (`spark.sql.files.maxPartitionBytes`), and one column holds unique keys, so a present key
 * lives in one row group, mostly in the middle of a file: the driver's row-group selection
 * must agree with every split's byte range. Cases run in batches (a union of one scan per
 * case, each scan planned and pruned on its own) and each is compared on its own, as a
 * sorted list of row ids (a row read by two splits fails as a lost row does).
 *
 * `SPARKBLOOM_DIFF_QUERIES` sets the cases per suite (V1 and V2 each), `SPARKBLOOM_TEST_SEED`
 * the seed.
 */
class DifferentialSuite extends AnyFunSuite with SparkSessionSuite {

  /** Small splits: every data file of the sparkbloom batch is read by several tasks. */
  protected val maxPartitionBytes: Long = 32 * 1024

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.parquet.datetimeRebaseModeInWrite" -> "CORRECTED",
    "spark.sql.session.timeZone" -> "America/Los_Angeles",
    "spark.sql.files.maxPartitionBytes" -> maxPartitionBytes.toString,
    "spark.sql.files.openCostInBytes" -> "4096",
    // rows are narrowed in every row group, however small (MatchingRowsReader)
    "spark.sparkbloom.pruning.rowsAbove" -> "0")

  /** Queries per run when SPARKBLOOM_DIFF_QUERIES does not say. */
  protected def defaultQueries: Int = 400

  /** Cases per Spark job. */
  private val batchSize = 50

  private val seed = sys.env.getOrElse("SPARKBLOOM_TEST_SEED", "20261121").toLong

  /** Added to the seed, so the V2 suite draws other data and predicates than V1's. */
  protected def seedSalt: Long = 0L

  private val rnd = new Random(seed + seedSalt)

  private val columns: Seq[(String, DataType)] = Seq(
    "c_byte" -> ByteType, "c_short" -> ShortType, "c_int" -> IntegerType, "c_long" -> LongType,
    "c_float" -> FloatType, "c_double" -> DoubleType, "c_dec9" -> DecimalType(9, 2),
    "c_dec18" -> DecimalType(18, 4), "c_dec38" -> DecimalType(38, 10), "c_string" -> StringType,
    "c_binary" -> BinaryType, "c_date" -> DateType, "c_ts" -> TimestampType, "c_ts_ntz" -> TimestampNTZType)

  /** A unique key per row (not from a pool): present keys are in exactly one row group. */
  private val keyColumn = "c_key"

  private val schema = StructType(StructField("id", LongType, nullable = false) +:
    columns.map { case (n, t) => StructField(n, t) } :+
    StructField("s", StructType(Seq(StructField("k", StringType)))) :+
    StructField(keyColumn, LongType))

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
      Seq.fill(30)(new java.util.UUID(rnd.nextLong(), rnd.nextLong()).toString)),
    "c_binary" -> IndexedSeq(Array[Byte](), Array[Byte](0), Array[Byte](1, 2, 3), Array.fill[Byte](40)(7)),
    "c_date" -> IndexedSeq("0001-01-01", "1582-10-15", "1899-12-31", "1970-01-01", "2024-02-29", "9999-12-31")
      .map(Date.valueOf),
    "c_ts" -> IndexedSeq("1900-01-01 00:00:00", "1969-12-31 23:59:59.999999", "2024-03-10 02:30:00",
      "2024-11-03 01:30:00.123", "2262-04-11 23:47:16").map(Timestamp.valueOf),
    "c_ts_ntz" -> IndexedSeq("1800-01-01T00:00:00", "1970-01-01T00:00:00.000001", "2024-03-10T02:30:00")
      .map(LocalDateTime.parse(_))
  )

  private val keys = scala.collection.mutable.ArrayBuffer.empty[Long]

  private def randomRow(id: Long): Row = {
    val key = rnd.nextLong()
    keys += key
    Row.fromSeq(id +: columns.map { case (n, _) =>
      if (rnd.nextInt(10) == 0) null else pools(n)(rnd.nextInt(pools(n).size))
    } :+ (if (rnd.nextInt(10) == 0) null else Row(pools("c_string")(rnd.nextInt(pools("c_string").size)))) :+ key)
  }

  /** What a TIMESTAMP_MILLIS file holds for a row: its timestamp floored to the millisecond. */
  private def asMillis(row: Row): Row = {
    val i = schema.fieldIndex("c_ts")
    Row.fromSeq(row.toSeq.updated(i,
        row.get(i) match {
          case t: Timestamp => new Timestamp(t.getTime) // getTime floors to the millisecond
          case other => other
        }))
  }

  /** The table's path and, in memory, every row as written. */
  private lazy val (table: String, written: Seq[Row]) = {
    val path = Files.createTempDirectory("sparkbloom-diff").toString + "/t"
    val filtered = (columns.map(_._1) :+ "s.k" :+ keyColumn).mkString(",")
    var nextId = 0L
    def rows(n: Int) = (0 until n).map(_ => { nextId += 1; randomRow(nextId) })
    def frame(rows: Seq[Row]) = spark.createDataFrame(spark.sparkContext.parallelize(rows, 3), schema)
    val ours = rows(3000)
    frame(ours).write.option("bloom_filter_columns", filtered).option("parquet.block.size", 8192).parquet(path)
    // filters of any whole number of blocks, not only powers of two (as other writers may write)
    val exact = rows(1000)
    frame(exact).write.mode("append").option("bloom_filter_columns", filtered).option("bloom_filter_exact_size", "true")
      .option("parquet.block.size", 8192).parquet(path)
    // parquet-java's own filters, legacy decimal layout, millisecond timestamps
    val native = rows(1500)
    spark.conf.set("spark.sql.parquet.writeLegacyFormat", "true")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS")
    try {
      val options = Map("parquet.enable.dictionary" -> "false", "parquet.block.size" -> "16384") ++
        (columns.map(_._1) :+ keyColumn).flatMap(n =>
          Seq(s"parquet.bloom.filter.enabled#$n" -> "true",
            s"parquet.bloom.filter.expected.ndv#$n" -> "300")) // without it, 1 MiB per chunk
      frame(native).write.mode("append").options(options).parquet(path)
    } finally {
      spark.conf.unset("spark.sql.parquet.writeLegacyFormat")
      spark.conf.unset("spark.sql.parquet.outputTimestampType")
    }
    val plain = rows(1000)
    frame(plain).write.mode("append").parquet(path) // no filters at all
    // parquet v2 pages: DELTA_BINARY_PACKED integers (rows narrowed from 4.3), DELTA_BYTE_ARRAY
    // strings and decimals (never narrowed: Spark's reader skips them wrongly in some pages)
    val v2 = rows(1000)
    frame(v2).write.mode("append").option("bloom_filter_columns", filtered).option("parquet.block.size", 8192)
      .option("parquet.writer.version", "v2").option("parquet.enable.dictionary", "false").parquet(path)
    val encodings = ParquetFiles.dataFiles(path).flatMap(ParquetFiles.chunks).flatMap(_.meta.getEncodings.asScala)
    assert(Seq(Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_BYTE_ARRAY).forall(encodings.contains), encodings.distinct)
    (path, ours ++ exact ++ native.map(asMillis) ++ plain ++ v2)
  }

  /** The oracle: the written rows in memory, never read from Parquet. */
  private lazy val oracle: DataFrame = spark.createDataFrame(written.asJava, schema)

  private def literalFor(name: String, t: DataType, present: Boolean): Column = lit(valueFor(name, t, present)).cast(t)

  /** A value of a column: from its pool (present, or now and then when absent is asked), else random. */
  private def valueFor(name: String, t: DataType, present: Boolean): Any =
    if (name == keyColumn) (if (present) keys(rnd.nextInt(keys.size)) else rnd.nextLong())
    else if (present || rnd.nextInt(4) == 0) pools(name)(rnd.nextInt(pools(name).size))
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

  private def leaf(): Column = {
    val (name, t) = rnd.nextInt(12) match {
      case 0 => ("s.k", StringType)
      case 1 | 2 => (keyColumn, LongType)
      case _ => columns(rnd.nextInt(columns.size))
    }
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

  /** Each case's ids over the in-memory rows: one boolean column per case, one pass. */
  private def expected(cases: Seq[(Int, Column)]): Map[Int, Seq[Long]] = {
    val flags = cases.map { case (i, p) => coalesce(p, lit(false)).as(s"c$i") }
    val rows = oracle.select(col("id") +: flags: _*).collect()
    cases.zipWithIndex.map { case ((i, _), j) =>
      i -> rows.filter(_.getBoolean(j + 1)).map(_.getLong(0)).sorted.toSeq
    }.toMap
  }

  private val caseMark = """\b(\d+) AS case#""".r
  private val pruningText = """BloomPruning:? files (\d+) -> (\d+), row groups (\d+) -> (\d+)""".r

  /**
   * Each case's ids with sparkbloom on (one scan per case, unioned into one job) and what
   * each scan's pruning ruled out: (files skipped, row groups skipped).
   */
  private def actual(cases: Seq[(Int, Column)]): (Map[Int, Seq[Long]], Map[Int, (Long, Long)]) = {
    val scans = cases.map { case (i, p) => spark.read.parquet(table).where(p).select(lit(i).as("case"), col("id")) }
    val union = scans.reduce(_ union _)
    val rows = union.collect()
    val found = rows.groupBy(_.getInt(0)).map { case (i, rs) => i -> rs.map(_.getLong(1)).sorted.toSeq }
    val children = union.queryExecution.executedPlan.collectFirst { case u: UnionExec => u.children }
      .getOrElse(Seq(union.queryExecution.executedPlan))
    // Each child is "Project [<i> AS case, id]" over case i's scan; a predicate the optimizer
    // folds to false leaves an empty LocalTableScan instead, with nothing to prune.
    val pruning = children.flatMap { child =>
      val text = child.treeString
      caseMark.findFirstMatchIn(text).map { m =>
        m.group(1).toInt -> (pruningText.findFirstMatchIn(text) match {
          case Some(p) => (p.group(1).toLong - p.group(2).toLong, p.group(3).toLong - p.group(4).toLong)
          case None => (0L, 0L)
        })
      }
    }.toMap.withDefaultValue((0L, 0L))
    (cases.map { case (i, _) => i -> found.getOrElse(i, Seq.empty) }.toMap, pruning)
  }

  private def canonical(df: DataFrame): Seq[String] =
    df.select(to_json(struct(df.columns.map(c => col(s"`$c`")): _*))).collect().map(_.getString(0)).sorted.toSeq

  test("the in-memory oracle is exactly what Spark reads from the files, and the files are split") {
    spark.conf.set("spark.sparkbloom.enabled", "false")
    try assert(canonical(spark.read.parquet(table)) == canonical(oracle))
    finally spark.conf.unset("spark.sparkbloom.enabled")
    val files = sparkbloom.ParquetFiles.dataFiles(table)
    val rowGroups = files.map(f => sparkbloom.ParquetFiles.chunks(f).map(_.rowGroup).distinct.size)
    val sizes = files.map(_.length)
    info(s"${files.size} files, ${rowGroups.sum} row groups (at most ${rowGroups.max} in a file), " +
      s"largest ${sizes.max} bytes, split every $maxPartitionBytes bytes")
    assert(rowGroups.max >= 5 && sizes.max >= 3 * maxPartitionBytes)
  }

  test(s"randomized queries return exactly the in-memory oracle's rows (seed $seed)") {
    val queries = sys.env.getOrElse("SPARKBLOOM_DIFF_QUERIES", defaultQueries.toString).toInt
    var pruned = 0
    var nonEmpty = 0
    var filesSkipped = 0L
    var rowGroupsSkipped = 0L
    for (batch <- (1 to queries).grouped(batchSize)) {
      val cases = batch.map(i => i -> predicate(2))
      val want = expected(cases)
      val (got, pruning) = actual(cases)
      for ((i, p) <- cases) {
        val (files, groups) = pruning(i)
        assert(got(i) == want(i),
          s"${getClass.getSimpleName}, seed $seed, case $i: WHERE $p returned ${got(i).size} rows with sparkbloom, " +
            s"the oracle ${want(i).size}; missing ${want(i).diff(got(i)).take(10)}, extra ${got(i).diff(want(i)).take(10)}; " +
            s"files skipped $files, row groups skipped $groups")
        if (want(i).nonEmpty) nonEmpty += 1
        if (files + groups > 0) pruned += 1
        filesSkipped += files
        rowGroupsSkipped += groups
      }
    }
    info(s"$queries cases, $nonEmpty with rows, $pruned pruned; $filesSkipped files and $rowGroupsSkipped row " +
      "groups ruled out")
    assert(pruned >= queries / 4, "the differential test must exercise pruning")
    assert(nonEmpty > queries / 10, "the differential test must include queries that match rows")
  }

  /** A written row's value of a fact column (`s.k` is the string under struct `s`). */
  private def valueOf(row: Row, name: String): Any =
    if (name == "s.k") Option(row.getStruct(schema.fieldIndex("s"))).map(_.get(0)).orNull
    else row.get(schema.fieldIndex(name))

  private val joinLayouts = Seq(
    "broadcast, adaptive" -> Seq("spark.sql.adaptive.enabled" -> "true"),
    "broadcast, not adaptive" -> Seq("spark.sql.adaptive.enabled" -> "false"),
    "sort-merge, adaptive" -> Seq("spark.sql.adaptive.enabled" -> "true",
      "spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false"),
    "sort-merge, not adaptive" -> Seq("spark.sql.adaptive.enabled" -> "false",
      "spark.sql.autoBroadcastJoinThreshold" -> "-1",
      "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly" -> "false"))

  /**
   * A join of `fact` with a small table of keys: some taken from written rows (present), some
   * drawn at random (mostly absent), a null now and then, on one or two key columns; as an
   * inner, semi, outer join or an `IN` subquery.
   */
  private def joinQuery(
      fact: DataFrame, keyColumns: Seq[(String, DataType)], dimRows: Seq[Row], shape: Int): DataFrame = {
    val dimSchema =
      StructType(StructField("d_id", LongType) +: keyColumns.indices.map(i => StructField(s"v$i", keyColumns(i)._2)))
    val dim = spark.createDataFrame(dimRows.asJava, dimSchema).as("d")
    val f = fact.as("f")
    val condition = keyColumns.indices.map(i => col(s"f.${keyColumns(i)._1}") === col(s"d.v$i")).reduce(_ && _)
    shape match {
      case 0 => f.join(dim, condition).select(col("f.id"), col("d.d_id"))
      case 1 => f.join(dim, condition, "left_semi").select(col("f.id"))
      case 2 => f.join(dim, condition, "right_outer").select(col("f.id"), col("d.d_id"))
      case 3 => dim.join(f, condition, "left_outer").select(col("d.d_id"), col("f.id"))
      case _ =>
        f.createOrReplaceTempView("join_fact")
        dim.createOrReplaceTempView("join_dim")
        spark.sql(s"SELECT id FROM join_fact WHERE ${keyColumns.head._1} IN (SELECT v0 FROM join_dim)")
    }
  }

  private def sortedRows(df: DataFrame): Seq[String] = df.collect().map(_.toString).sorted.toSeq

  test(s"randomized joins and IN subqueries return exactly the in-memory oracle's rows (seed $seed)") {
    val cases = sys.env.getOrElse("SPARKBLOOM_DIFF_JOINS", (defaultQueries / 8).toString).toInt
    // The joins draw from a sequence of their own: how many queries were drawn before (fewer
    // outside `dev/test --all`) must not change which joins are drawn.
    rnd.setSeed(seed + seedSalt + 1000003L)
    // Pool columns repeat their few values in every row group, so only the unique key column
    // leaves row groups to skip: it is drawn half of the time.
    val candidates = columns ++ Seq("s.k" -> StringType) ++ Seq.fill(columns.size + 1)(keyColumn -> LongType)
    var probed = 0
    var pruned = 0
    var nonEmpty = 0
    for (i <- 1 to cases) {
      val keyColumns = candidates(rnd.nextInt(candidates.size)) +:
        (if (rnd.nextInt(4) == 0) Seq(candidates(rnd.nextInt(candidates.size))) else Nil)
      val dimRows = (0 until rnd.nextInt(25)).map { d =>
        val source = written(rnd.nextInt(written.size))
        val values = keyColumns.map { case (name, t) =>
          if (rnd.nextInt(12) == 0) null
          else if (rnd.nextInt(3) > 0) valueOf(source, name)
          else valueFor(if (name == "s.k") "c_string" else name, t, present = false)
        }
        Row.fromSeq(d.toLong +: values)
      }
      val shape = if (keyColumns.size > 1) rnd.nextInt(4) else rnd.nextInt(5)
      val (layout, conf) = joinLayouts(rnd.nextInt(joinLayouts.size))
      conf.foreach { case (k, v) => spark.conf.set(k, v) }
      try {
        val want = sortedRows(joinQuery(oracle, keyColumns, dimRows, shape))
        val joined = joinQuery(spark.read.parquet(table), keyColumns, dimRows, shape)
        val got = sortedRows(joined)
        val keyed = sparkbloom.ScanPruning.of(joined).filter(_.joinKeys > 0)
        if (keyed.nonEmpty) probed += 1
        if (keyed.exists(s => s.filesSkipped + s.rowGroupsSkipped > 0)) pruned += 1
        assert(got == want,
          s"${getClass.getSimpleName}, seed $seed, join case $i ($layout, shape $shape, keys " +
            s"${keyColumns.map(_._1)}, ${dimRows.size} key rows): ${got.size} rows with sparkbloom, the oracle " +
            s"${want.size}; missing ${want.diff(got).take(5)}, extra ${got.diff(want).take(5)}")
        if (want.nonEmpty) nonEmpty += 1
      } finally conf.foreach { case (k, _) => spark.conf.unset(k) }
    }
    info(s"$cases join cases, $nonEmpty with rows, $probed probed join keys, $pruned pruned")
    assert(nonEmpty > cases / 4, "the join cases must include joins that match rows")
    assert(pruned > cases / 5, "the join cases must exercise pruning by join keys")
  }

  test("type-widened and newly added columns are judged by what each file holds") {
    val path = Files.createTempDirectory("sparkbloom-evolve").toString + "/t"
    // The older files hold k as INT32 where the Spark line can read it as bigint (4.0+).
    val olderType = if (TestShims.widensInt32ToLong) "int" else "bigint"
    spark.range(0, 1000, 1, 2).select(col("id").cast(olderType).as("k"))
      .write.option("bloom_filter_columns", "k").parquet(path)
    spark.range(1000, 2000, 1, 2).select(col("id").as("k"), (col("id") * 2).as("added"))
      .write.mode("append").option("bloom_filter_columns", "k,added").parquet(path)
    val readSchema = StructType(Seq(StructField("k", LongType), StructField("added", LongType)))
    for (p <- Seq(col("k") === 5L, col("k") === 1500L, col("k").isin(7L, 1999L, 5000L), col("added") === 2000L,
        col("added") <=> lit(4L), col("k") === 3000000000L)) {
      def run(vanilla: Boolean) = {
        // vanilla: no sparkbloom and no parquet-java filtering in the tasks either
        val conf = if (vanilla)
          Seq("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false")
        else Nil
        conf.foreach { case (k, v) => spark.conf.set(k, v) }
        try spark.read.schema(readSchema).parquet(path).where(p).collect().map(_.toString).sorted.toSeq
        finally conf.foreach { case (k, _) => spark.conf.unset(k) }
      }
      assert(run(vanilla = false) == run(vanilla = true), p.toString)
    }
  }
}

/** The same differential test with Parquet read through DataSource V2 (`ParquetScan`). */
class DifferentialV2Suite extends DifferentialSuite {
  override protected def sessionConf: Map[String, String] =
    super.sessionConf + ("spark.sql.sources.useV1SourceList" -> "")
  override protected def seedSalt: Long = 1L
  override protected def defaultQueries: Int = 200
}
