// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.impl.ColumnReadStoreImpl
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.{BINARY, FIXED_LEN_BYTE_ARRAY, FLOAT, INT32, INT64}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkBloom, SparkSessionSuite}
import sparkbloom.hashing.{ColumnValueHashes, LiteralProbe}
import sparkbloom.sbbf.XxHash64

/**
 * Tasks read the key column of a kept row group first and hand Spark's reader only the rows
 * whose key may match ([[MatchingRowsReader]]). Every query is compared with Spark reading
 * the same files with sparkbloom off and Parquet filter pushdown off; the scan's output row
 * count shows whether the rows were narrowed (with `spark.sparkbloom.pruning.rows` off, the
 * same scan outputs every row of the kept row groups). Files have many row groups of many
 * small pages, so a matching row's page lies anywhere in its column chunk.
 */
class MatchingRowsSuite extends AnyFunSuite with SparkSessionSuite with AdaptiveSparkPlanHelper {

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.files.maxPartitionBytes" -> (256 * 1024).toString,
    "spark.sql.files.openCostInBytes" -> "0",
    "spark.sql.session.timeZone" -> "UTC",
    // dates are judged only when read without rebasing (Spark 3.5's default is EXCEPTION)
    "spark.sql.parquet.datetimeRebaseModeInRead" -> "CORRECTED",
    // these row groups are small: narrow them anyway (one test checks the default leaves them whole)
    "spark.sparkbloom.pruning.rowsAbove" -> "0")

  private val rows = 60000L

  /** Two files of ~8 row groups each; every column of a row is a function of its id, keys shuffled. */
  private lazy val table: String = {
    val path = Files.createTempDirectory("sparkbloom-rows").toString + "/t"
    spark.range(0, rows, 1, 2)
      .select(
        col("id"),
        (col("id") * 7919 % rows).as("k"),
        concat(lit("user-"), col("id")).as("s"),
        (col("id") % 1000 - 500).cast("decimal(12,2)").as("dec"),
        when(col("id") % 1000 === 0, lit(-0.0)).otherwise(col("id") / 3.0).as("d"),
        struct((col("id") * 31 % rows).as("inner"), col("id").cast("string").as("label")).as("nested"),
        date_add(lit("2020-01-01").cast("date"), (col("id") % 3000).cast("int")).as("day"),
        sha2(col("id").cast("string"), 256).as("pad"))
      .orderBy(rand(7)).repartition(2)
      .write
      .option("parquet.block.size", 256 * 1024)
      .option("parquet.page.size", 8 * 1024)
      .option("parquet.enable.dictionary", "false")
      .option("bloom_filter_columns", "k,s,dec,d,nested.inner,day")
      .parquet(path)
    path
  }

  private def truth(query: DataFrame => DataFrame): Seq[Row] =
    withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
      sorted(query(spark.read.parquet(table)))
    }

  /** Spark 4.3 or later, whose reader skips values of every encoding it reads vectorized. */
  private val sparkFrom43 = {
    val Array(major, minor) = org.apache.spark.SPARK_VERSION.split("[.-]").take(2).map(_.toInt)
    major > 4 || major == 4 && minor >= 3
  }

  private def sorted(df: DataFrame): Seq[Row] = df.collect().toSeq.sortBy(_.toString)

  /** Rows the Parquet scans of `df`'s executed plan output. */
  private def scanned(df: DataFrame): Long = {
    val plan = df.queryExecution.executedPlan
    collect(plan) {
      case s: FileSourceScanExec => s.metrics("numOutputRows").value
      case b: BatchScanExec => b.metrics("numOutputRows").value
    }.sum
  }

  /**
   * Runs `query` with rows narrowed and not, on V1 and V2: both return the truth, and
   * narrowing outputs at most `narrowedAtMost` rows from the scan, fewer than without it.
   */
  private def check(query: DataFrame => DataFrame, narrowedAtMost: Long, v2Too: Boolean = true): Unit = {
    val expected = truth(query)
    (if (v2Too) Seq(true, false) else Seq(false)).foreach { v2 =>
      val source = if (v2) Seq("spark.sql.sources.useV1SourceList" -> "") else Nil
      def run(narrow: Boolean): (Seq[Row], Long) =
        withConf(source :+ ("spark.sparkbloom.pruning.rows" -> narrow.toString): _*) {
          val df = query(spark.read.parquet(table))
          (sorted(df), scanned(df))
        }
      val (narrowed, narrowedRows) = run(narrow = true)
      val (whole, wholeRows) = run(narrow = false)
      val label = if (v2) "V2" else "V1"
      assert(narrowed == expected, s"$label, rows narrowed")
      assert(whole == expected, s"$label, rows not narrowed")
      assert(narrowedRows <= narrowedAtMost, s"$label: the scan output $narrowedRows rows")
      assert(wholeRows > narrowedRows, s"$label: without narrowing $wholeRows rows, with $narrowedRows")
    }
  }

  test("the files have many row groups of many pages") {
    val stats = withConf() { spark.read.parquet(table).where(col("k") === 5).collect(); SparkBloom.lastPruning(spark) }
    assert(stats.get("row_groups_total").longValue >= 10, stats)
    val chunk = ParquetFiles.chunks(ParquetFiles.dataFiles(table).head).find(c => c.path == "pad" && c.rowGroup == 0)
    assert(chunk.get.meta.getTotalSize > 4 * 8 * 1024, "the wide column should span several pages")
  }

  test("point lookups, IN lists, OR of one column, other conjuncts") {
    check(_.where(col("k") === 12345), narrowedAtMost = 1)
    check(_.where(col("k").isin(1L, 2L, 30000L, 59999L)), narrowedAtMost = 4)
    check(_.where(col("k") === 17 || col("k") === 40001), narrowedAtMost = 2)
    check(_.where(col("k").isin(5L, 77L) && col("d") > 1.0), narrowedAtMost = 2)
    check(_.where(col("s") === "user-4242").select("id", "pad"), narrowedAtMost = 1)
    // ids 1 and 2 have keys 7919 and 15838; key 5 belongs to another id
    check(_.where(col("k").isin(7919L, 15838L, 5L) && col("s").isin("user-1", "user-2", "user-3")),
      narrowedAtMost = 3)
  }

  test("types: decimal, -0.0 against 0.0, dates, a struct field; nulls never match") {
    check(_.where(col("dec") === BigDecimal("-499.00")), narrowedAtMost = 60)
    check(_.where(col("d") === 0.0), narrowedAtMost = 60)
    check(_.where(col("d") === 20 / 3.0), narrowedAtMost = 1)
    check(_.where(col("day") === java.sql.Date.valueOf("2021-03-04")), narrowedAtMost = 20)
    check(_.where(col("nested.inner") === 31 * 123 % rows), narrowedAtMost = 1)
    check(_.where(col("k") <=> 99L), narrowedAtMost = 1)
  }

  test("by default, rows are narrowed only in row groups large enough to pay") {
    val query = (t: DataFrame) => t.where(col("k") === 12345)
    // not withConf: unsetting would leave the default, not this suite's 0, for the tests after
    spark.conf.set("spark.sparkbloom.pruning.rowsAbove", (32L * 1024 * 1024).toString)
    val small =
      try {
        val df = query(spark.read.parquet(table))
        assert(sorted(df) == truth(query))
        scanned(df)
      } finally spark.conf.set("spark.sparkbloom.pruning.rowsAbove", "0")
    assert(small > 1000, s"a small row group should be read whole, the scan output $small rows")
    check(query, narrowedAtMost = 1)
  }

  test("keys of every type, in PLAIN and dictionary pages, data pages v1 and v2") {
    val v = col("id") % 500 // few enough values for dictionary pages to be kept
    val day = (n: Int) => java.sql.Date.valueOf(java.time.LocalDate.of(2020, 1, 1).plusDays(n))
    // per column: two present values and one absent within min/max (-0.0 is stored for v = 0)
    val lookups: Seq[(String, Seq[Any])] = Seq(
      "s" -> Seq("key-17", "key-499", "key-17x"),
      "l" -> Seq(17L * 1000003, 499L * 1000003, 5L),
      "i" -> Seq(17, 499, -3),
      "f" -> Seq(4.25f, 124.75f, 0.1f),
      "d" -> Seq(0.0, 17 / 3.0, 0.5),
      "dec" -> Seq(BigDecimal("0.17"), BigDecimal("4.99"), BigDecimal("-1.00")),
      "day" -> Seq(day(17), day(499), day(-1)))
    // and BYTE_STREAM_SPLIT pages of numbers, which Spark reads from 4.3
    val byteStreamSplit = if (sparkFrom43) Seq(("false", "v1", true, "snappy")) else Nil
    // every codec Spark writes by default or on request: key chunks are decompressed by
    // parquet-java's page reader, as the other columns (not uncompressed v2 pages: from Spark 4.1 on, reading their DELTA_BYTE_ARRAY values
    // split by split fails, sparkbloom or not; see ReaderSkips)
    val layouts = Seq(("true", "v1", false, "snappy"), ("false", "v1", false, "uncompressed"),
      ("true", "v2", false, "snappy"), ("false", "v2", false, "zstd"))
    (layouts ++ byteStreamSplit).foreach { case (dictionary, pages, split, codec) =>
      val path = Files.createTempDirectory(s"sparkbloom-rows-$dictionary-$pages-$split").toString + "/t"
      spark.range(0, 16000, 1, 1)
        .select(col("id"), concat(lit("key-"), v.cast("string")).as("s"), (v * 1000003).as("l"), v.cast("int").as("i"),
          (v / 4).cast("float").as("f"), when(v === 0, lit(-0.0)).otherwise(v / 3.0).as("d"),
          (v / 100).cast("decimal(30,2)").as("dec"), date_add(lit("2020-01-01").cast("date"), v.cast("int")).as("day"),
          sha2(col("id").cast("string"), 256).as("pad"))
        .select(Seq(col("pad"), array(col("i"), col("id")).as("arr"), map(col("s"), col("l")).as("m"),
            (col("id") % 3 === 0).as("b")) ++
            lookups.map { case (c, _) =>
              when(col("id") % 97 === 0, lit(null)).otherwise(col(c)).as(c)
            }: _*)
        .orderBy(rand(9)).coalesce(1)
        .write.option("parquet.block.size", 256 * 1024).option("parquet.enable.dictionary", dictionary)
        .option("parquet.writer.version", s"${pages}").option("parquet.enable.bytestreamsplit", split)
        .option("compression", codec)
        // pages of at most 500 rows, so the strings' dictionary (5.5 KB) outgrows its 4 KB
        // after the first page was written: the later pages of the chunk fall back to PLAIN
        .option("parquet.page.size", 8 * 1024).option("parquet.page.row.count.limit", 500)
        .option("parquet.dictionary.page.size", 4096)
        .option("bloom_filter_columns", lookups.map(_._1).mkString(",")).parquet(path)
      // what the pages hold: no dictionary where it is off; with one, v1 strings fall back to
      // PLAIN within the chunk and v2 integers keep theirs; byte stream split where asked
      val encodings = ParquetFiles.chunks(ParquetFiles.dataFiles(path).head).filter(_.rowGroup == 0)
        .map(c => c.path -> c.meta.getEncodings.asScala.map(_.name).toSet).toMap
      def has(column: String, encoding: String) = encodings(column).exists(_.contains(encoding))
      if (!dictionary.toBoolean) assert(!lookups.exists(c => has(c._1, "DICTIONARY")), encodings)
      else if (pages == "v1") assert(has("s", "DICTIONARY") && has("s", "PLAIN"), encodings("s"))
      else assert(has("i", "DICTIONARY") && has("s", "DICTIONARY"), encodings)
      if (split) assert(has("f", "BYTE_STREAM_SPLIT") && has("d", "BYTE_STREAM_SPLIT"), encodings)
      // the oracle: an in-memory copy, read with sparkbloom and Parquet pushdown off
      val copy = withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
        val read = spark.read.parquet(path)
        spark.createDataFrame(spark.sparkContext.parallelize(read.collect().toSeq, 1), read.schema)
      }
      val chunks = ParquetFiles.chunks(ParquetFiles.dataFiles(path).head)
      val (scannedChunks, withDictionary) =
        keyScansAgree(path, lookups.map(_._1), everyChunkScanned = pages == "v1" && !split)
      assert(scannedChunks > 0 && (withDictionary > 0) == dictionary.toBoolean, (scannedChunks, withDictionary))
      // what Spark's reader must skip values of: every column the query reads
      def lookUp(column: String, values: Seq[Any], read: Seq[String]): Unit = {
        val expected = sorted(copy.where(col(column).isin(values: _*)).select(read.map(col): _*))
        val df = spark.read.parquet(path).where(col(column).isin(values: _*)).select(read.map(col): _*)
        val label =
          s"$column, reading ${read.size} columns, dictionary $dictionary, pages $pages, byte stream split $split, $codec"
        assert(expected.size >= 4 && sorted(df) == expected, label)
        // a row group read whole outputs thousands of rows
        if (chunks.filter(c => read.exists(r => c.path == r || c.path.startsWith(r + "."))).forall(skipped))
          assert(scanned(df) == expected.size, s"$label: the scan output ${scanned(df)} rows")
        else assert(scanned(df) > 1000, s"$label: Spark ${org.apache.spark.SPARK_VERSION} cannot skip these values")
      }
      val everyColumn = Seq("pad", "arr", "m", "b") ++ lookups.map(_._1)
      lookups.foreach { case (column, values) => lookUp(column, values, everyColumn) }
      // strings alone: narrowed on every line where their pages are not DELTA_BYTE_ARRAY
      lookUp("s", lookups.head._2, Seq("s", "pad"))
    }
  }

  /**
   * In every row group of the file at `path`, [[KeyChunkScan]] finds the same rows of each
   * of `columns` as hashing every value through parquet-java's column reader does, for keys
   * hashed from values all over the row group; it reads every such chunk if `everyChunkScanned`.
   * Both read the same pages, parquet-java's, as the task does. Returns how many chunks were
   * scanned, and how many of them had a dictionary.
   */
  private def keyScansAgree(path: String, columns: Seq[String], everyChunkScanned: Boolean): (Int, Int) = {
    var scannedChunks = 0
    var withDictionary = 0
    val file = HadoopInputFile.fromPath(new Path(ParquetFiles.dataFiles(path).head.toURI), new Configuration())
    val reader = ParquetFileReader.open(file)
    try {
      val schema = reader.getFileMetaData.getSchema
      columns.foreach { name =>
        val column = schema.getColumns.asScala.find(_.getPath.mkString(".") == name).get
        val keyOnly = ColumnValueHashes.projection(schema, column)
        reader.setRequestedSchema(keyOnly)
        reader.getRowGroups.asScala.zipWithIndex.foreach { case (block, i) =>
          val chunk = block.getColumns.asScala.find(_.getPath.toDotString == name).get
          val scanned = KeyChunkScan.applies(column, chunk)
          assert(scanned || !everyChunkScanned, s"$name, row group $i: ${chunk.getEncodings}")
          if (scanned) {
            scannedChunks += 1
            if (chunk.hasDictionaryPage) withDictionary += 1
            def scan(keys: RowKeys): Seq[Int] = {
              val rows = scala.collection.mutable.ArrayBuffer.empty[Int]
              KeyChunkScan.foreachMatch(reader.readRowGroup(i).getPageReader(column), column, keys)(rows += _)
              rows.toSeq
            }
            val hashes = scala.collection.mutable.ArrayBuffer.empty[(Int, Long)]
            ColumnValueHashes.foreach(reader.readRowGroup(i), keyOnly, column,
              reader.getFileMetaData.getCreatedBy)((row, hash) => hashes += row.toInt -> hash)
            val keys = RowKeys(name, hashes.map(_._2).distinct.grouped(40).map(_.head).toArray)
            val found = scan(keys)
            assert(found.nonEmpty && found == hashes.filter(h => keys.contains(h._2)).map(_._1), s"$name, row group $i")
            // byte arrays: the same rows found by comparing values with the keys' bytes
            if (Set(BINARY, FIXED_LEN_BYTE_ARRAY)(column.getPrimitiveType.getPrimitiveTypeName)) {
              val values = byteValues(reader.readRowGroup(i), keyOnly, column, reader.getFileMetaData.getCreatedBy)
              val chosen = values.map(_._2.toSeq).distinct.grouped(40).map(_.head.toArray).toSeq
              val byValueKeys = RowKeys(name, chosen.map(XxHash64.hashBytes).toArray,
                values = KeyBytes.of(chosen.map(Binary.fromConstantByteArray)))
              assert(byValueKeys.byValue.nonEmpty, name)
              val byValue = scan(byValueKeys)
              assert(byValue.nonEmpty && byValue == values.filter(v => chosen.exists(_.sameElements(v._2))).map(_._1),
                s"$name, row group $i")
            } else {
              // numbers: the same rows found by comparing their bits with the keys'
              val values = numberValues(reader.readRowGroup(i), keyOnly, column, reader.getFileMetaData.getCreatedBy)
              val chosen = values.map(_._2).distinct.grouped(40).map(_.head).toSeq
              val byNumberKeys = RowKeys(name, chosen.map(LiteralProbe.hashStored).toArray,
                numbers = KeyNumbers.of(chosen))
              assert(byNumberKeys.byNumber.nonEmpty, name)
              val byNumber = scan(byNumberKeys)
              // by bits, as a page stores them: -0.0 is not 0.0 here (the filter's hashes differ too)
              def bits(v: Any): Long = v match {
                case f: java.lang.Float => java.lang.Float.floatToRawIntBits(f).toLong
                case d: java.lang.Double => java.lang.Double.doubleToRawLongBits(d)
                case n: java.lang.Number => n.longValue
              }
              val chosenBits = chosen.map(bits).toSet
              assert(byNumber.nonEmpty && byNumber == values.filter(v => chosenBits(bits(v._2))).map(_._1),
                s"$name, row group $i")
            }
          }
        }
      }
    } finally reader.close()
    (scannedChunks, withDictionary)
  }

  /** Row and bytes of each non-null value of a byte-array `column`, through parquet-java's column reader. */
  private def byteValues(pages: org.apache.parquet.column.page.PageReadStore, schema: MessageType,
      column: ColumnDescriptor, createdBy: String): Seq[(Int, Array[Byte])] = {
    val reader =
      new ColumnReadStoreImpl(pages, new ColumnValueHashes.Ignoring(schema), schema, createdBy).getColumnReader(column)
    (0L until pages.getRowCount).flatMap { row =>
      val value =
        if (reader.getCurrentDefinitionLevel == column.getMaxDefinitionLevel)
          Some(row.toInt -> reader.getBinary.getBytes)
        else None
      reader.consume()
      value
    }
  }

  /** Row and stored value (boxed, as a probe's stored forms are) of each non-null value of a number `column`. */
  private def numberValues(pages: org.apache.parquet.column.page.PageReadStore, schema: MessageType,
      column: ColumnDescriptor, createdBy: String): Seq[(Int, Any)] = {
    val reader =
      new ColumnReadStoreImpl(pages, new ColumnValueHashes.Ignoring(schema), schema, createdBy).getColumnReader(column)
    (0L until pages.getRowCount).flatMap { row =>
      val value =
        if (reader.getCurrentDefinitionLevel == column.getMaxDefinitionLevel) {
          val stored: Any = column.getPrimitiveType.getPrimitiveTypeName match {
            case INT32 => Int.box(reader.getInteger)
            case INT64 => Long.box(reader.getLong)
            case FLOAT => Float.box(reader.getFloat)
            case _ => Double.box(reader.getDouble)
          }
          Some(row.toInt -> stored)
        } else None
      reader.consume()
      value
    }
  }

  /**
   * Whether rows are narrowed in `chunk`, whose values Spark's vectorized reader must skip
   * correctly: before 4.3 its DELTA_BINARY_PACKED reader can return another row's values
   * after a skip and its BYTE_STREAM_SPLIT reader throws; on every line its DELTA_BYTE_ARRAY
   * reader can return other bytes (see `ReaderSkips`).
   */
  private def skipped(chunk: ParquetFiles.Chunk): Boolean = chunk.meta.getEncodings.asScala.forall { e =>
    Set("PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "RLE", "BIT_PACKED")(e.name) ||
    sparkFrom43 && (e.name == "BYTE_STREAM_SPLIT" ||
      e.name == "DELTA_BINARY_PACKED" && chunk.meta.getPrimitiveType.getPrimitiveTypeName.name.startsWith("INT"))
  }

  test("file metadata and row indexes of the narrowed rows (V1: V2 has no _metadata)") {
    check(v2Too = false,
      query = _.where(col("k").isin(10L, 20L, 30L)).select(col("id"), col("_metadata.row_index"),
        col("_metadata.file_name")), narrowedAtMost = 3)
  }

  test("optional keys in pages with and without nulls: levels skipped only where every value is defined") {
    // blocks of 2,000 rows: no nulls; nulls closing each 500 rows; nulls scattered; no nulls
    val block = (col("id") / 2000).cast("int") % 4
    val isNull = block === 1 && col("id") % 500 >= 450 || block === 2 && col("id") % 7 === 0
    // negative numbers too: four-byte values are compared sign-extended
    val v = (col("id") * 7919) % 3001 - 1500
    Seq(("v1", "true"), ("v1", "false"), ("v2", "true"), ("v2", "false")).foreach { case (pages, dictionary) =>
      val path = Files.createTempDirectory(s"sparkbloom-levels-$pages-$dictionary").toString + "/t"
      spark.range(0, 16000, 1, 1)
        .select(col("id"), when(isNull, lit(null)).otherwise(v).as("k"),
          when(isNull, lit(null)).otherwise(concat(lit("key-"), v.cast("string"))).as("s"),
          when(isNull, lit(null)).otherwise(v.cast("int")).as("i"),
          when(isNull, lit(null)).otherwise((v / 4).cast("float")).as("f"),
          when(isNull, lit(null)).otherwise(v / 7.0).as("d"))
        .coalesce(1).write.option("parquet.block.size", 256 * 1024).option("parquet.enable.dictionary", dictionary)
        .option("parquet.writer.version", pages).option("parquet.page.size", 8 * 1024)
        .option("parquet.page.row.count.limit", 500).option("bloom_filter_columns", "k,s,i,f,d").parquet(path)
      val label = s"pages $pages, dictionary $dictionary"
      val keys = Seq("k", "s", "i", "f", "d")
      keyScansAgree(path, keys, everyChunkScanned = pages == "v1")
      // both kinds of page are there: the test asks the scan's own question of every page of `k`
      val file = HadoopInputFile.fromPath(new Path(ParquetFiles.dataFiles(path).head.toURI), new Configuration())
      val reader = ParquetFileReader.open(file)
      val kinds =
        try {
          val k = reader.getFileMetaData.getSchema.getColumns.asScala.find(_.getPath.mkString(".") == "k").get
          reader.setRequestedSchema(ColumnValueHashes.projection(reader.getFileMetaData.getSchema, k))
          reader.getRowGroups.asScala.indices.flatMap { i =>
            val pageReader = reader.readRowGroup(i).getPageReader(k)
            Iterator.continually(pageReader.readPage()).takeWhile(_ != null).map {
              case p: org.apache.parquet.column.page.DataPageV1 =>
                KeyChunkScan.everyDefinedV1(p.getBytes.toByteBuffer, p.getDlEncoding, 1, p.getValueCount)
              case p: org.apache.parquet.column.page.DataPageV2 =>
                // (a page of under 8 values without nulls may hold its levels bit-packed: a no, and safe)
                val every = KeyChunkScan.opensWithRunOf(p.getDefinitionLevels.toByteBuffer, 1, p.getValueCount)
                assert(!every || p.getNullCount == 0, label)
                every
            }
          }.toSeq
        } finally reader.close()
      assert(kinds.count(identity) >= 4 && kinds.count(!_) >= 4, s"$label: $kinds")
      val copy = withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
        val read = spark.read.parquet(path)
        spark.createDataFrame(spark.sparkContext.parallelize(read.collect().toSeq, 1), read.schema)
      }
      // values of every block, and one absent
      val values = Seq(0L, 1L, 4000L, 4500L, 5000L, 7000L, 9000L, 12000L, 15999L).map(id => id * 7919 % 3001 - 1500)
      assert(values.exists(_ < 0) && values.exists(_ > 0))
      keys.foreach { key =>
        val wanted = (values :+ 3001L).map(x =>
          key match {
            case "k" => x
            case "s" => s"key-$x"
            case "i" => x.toInt
            case "f" => (x / 4.0).toFloat
            case _ => x / 7.0
          })
        val expected = sorted(copy.where(col(key).isin(wanted: _*)))
        assert(expected.size >= values.size && sorted(spark.read.parquet(path).where(col(key).isin(wanted: _*))) ==
            expected, s"$label, $key")
      }
    }
  }

  test("a row group kept by a false positive is not read") {
    val path = Files.createTempDirectory("sparkbloom-rows-fp").toString + "/t"
    spark.range(0, 40000, 1, 1).select((col("id") * 2).as("k"), sha2(col("id").cast("string"), 256).as("pad"))
      .orderBy(rand(3)).coalesce(1)
      .write.option("parquet.block.size", 128 * 1024).option("bloom_filter_columns", "k")
      .option("bloom_filter_fpp", "0.4").parquet(path)
    val absent = (1L to 40L).map(_ * 1998 + 1) // odd: absent, within min/max
    val df = spark.read.parquet(path).where(col("k").isin(absent: _*))
    assert(df.collect().isEmpty)
    val stats = SparkBloom.lastPruning(spark)
    assert(stats.get("row_groups_total").longValue > stats.get("row_groups_skipped").longValue,
      s"some row group should be kept by a false positive: $stats")
    assert(scanned(df) == 0, "rows of false-positive row groups were read")
  }
}
