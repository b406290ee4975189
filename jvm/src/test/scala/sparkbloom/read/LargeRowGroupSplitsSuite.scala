// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.FileScanRDD
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite}
import sparkbloom.rows.RowKeys

/**
 * Kept row groups much larger than Spark's splits: each is read whole, rows narrowed, by the
 * one split holding its midpoint (parquet-java's rule), never shared among the splits its
 * bytes overlap. Lookups put keys all over each row group (its first and last rows, and
 * where other splits' bytes begin) in files of one row group over many splits and of several
 * row groups each over a few, and compare every lookup with Spark reading the files with
 * sparkbloom and Parquet filter pushdown off: the rows, their row indexes
 * (`_metadata.row_index`) and the split Spark reports for them (`_metadata.file_block_*`,
 * `input_file_block_*()`).
 */
class LargeRowGroupSplitsSuite extends AnyFunSuite with SparkSessionSuite {

  private val splitBytes = 1024L * 1024

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.files.maxPartitionBytes" -> splitBytes.toString,
    "spark.sql.files.openCostInBytes" -> "0",
    // these row groups are a few MB: narrow their rows anyway
    "spark.sparkbloom.pruning.rowsAbove" -> "0")

  private val rows = 120000L

  /** The key of the row at position `pos`: a permutation of the positions (7919 is prime, not a factor of `rows`). */
  private def keyAt(pos: Long): Long = pos * 7919 % rows

  /** One file, rows in position order, row groups of `rowGroupBytes`, pages of 16 KB. */
  private def write(name: String, rowGroupBytes: Long): String = {
    val path = Files.createTempDirectory(s"sparkbloom-large-$name").toString + "/t"
    spark.range(0, rows, 1, 1)
      .select(
        col("id").as("pos"),
        (col("id") * 7919 % rows).as("k"),
        concat(lit("user-"), (col("id") * 7919 % rows).cast("string")).as("s"),
        when(col("id") % 97 === 0, lit(null)).otherwise(col("id") % 5).as("few"),
        sha2(col("id").cast("string"), 256).as("pad"))
      .coalesce(1)
      .write
      .option("parquet.block.size", rowGroupBytes)
      .option("parquet.page.size", 16 * 1024)
      .option("bloom_filter_columns", "k,s,few")
      .parquet(path)
    path
  }

  private lazy val oneRowGroup = write("one", 1L << 30)
  private lazy val fourRowGroups = write("four", 3L * 1024 * 1024)

  private def sorted(df: DataFrame): Seq[Row] = df.collect().toSeq.sortBy(_.toString)

  private def truth(path: String, query: DataFrame => DataFrame): Seq[Row] =
    withConf("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false") {
      sorted(query(spark.read.parquet(path)))
    }

  /** The splits Spark makes of the file, `(start, end)`, from a plan that reads all of it. */
  private def splitsOf(path: String): Seq[(Long, Long)] = {
    val scans = spark.read.parquet(path).queryExecution.executedPlan.collect { case s: FileSourceScanExec => s }
    scans.flatMap(_.inputRDDs()).collect { case files: FileScanRDD => files }
      .flatMap(_.filePartitions.flatMap(_.files)).map(f => (f.start, f.start + f.length)).sortBy(_._1)
  }

  /** Per row group `(start, end, first row, rows)` as parquet-java's split rule sees it (no dictionary offset 0 here). */
  private def rowGroupsOf(path: String): Seq[(Long, Long, Long, Long)] = {
    val groups = ParquetFiles.chunks(ParquetFiles.dataFiles(path).head).groupBy(_.rowGroup).toSeq.sortBy(_._1)
    val sized = groups.map { case (_, chunks) =>
      val start = chunks.map(_.meta.getStartingPos).min
      (start, start + chunks.map(_.meta.getTotalSize).sum, chunks.head.meta.getValueCount)
    }
    val firstRows = sized.scanLeft(0L)(_ + _._3)
    sized.zip(firstRows).map { case ((start, end, count), first) => (start, end, first, count) }
  }

  /**
   * Positions around each row group's first and last row and around the rows at which other
   * splits' bytes begin (in proportion to the row group's bytes): rows a split other than the
   * midpoint's might be tempted to read.
   */
  private def positionsAcrossSplits(path: String): Seq[Long] = {
    val splits = splitsOf(path)
    rowGroupsOf(path).flatMap { case (start, end, first, count) =>
      val cuts = splits.map(_._1).filter(at => at > start && at < end)
        .map(at => first + (BigInt(count) * (at - start) / (end - start)).toLong)
      (Seq(first, first + count) ++ cuts).flatMap(p => Seq(p - 1, p, p + 1))
    }.filter(p => p >= 0 && p < rows).distinct.sorted
  }

  private def lookup(path: String, keys: Seq[Long]): DataFrame => DataFrame =
    _.where(col("k").isin(keys: _*)).select(col("pos"), col("k"), col("s"), col("few"), col("_metadata.row_index"))

  private def checkMidpointReads(path: String, expectedRowGroups: Int): Unit = {
    assert(rowGroupsOf(path).size == expectedRowGroups)
    val positions = positionsAcrossSplits(path)
    assert(splitsOf(path).size >= 8, "the file should be read by many splits")
    val keys = positions.map(keyAt)
    val expected = truth(path, lookup(path, keys))
    assert(expected.size == keys.size)
    val df = lookup(path, keys)(spark.read.parquet(path))
    assert(sorted(df) == expected)
    assert(df.collect().forall(r => r.getLong(0) == r.getLong(4)), "row indexes are the rows' positions")
    // each row group's rows come from one task, the one of the split holding its midpoint
    val partitions = df.select(spark_partition_id()).distinct().count()
    assert(partitions == expectedRowGroups, s"$partitions partitions returned rows")
    // one key at a time: the first row, rows where other splits' bytes begin, the last row
    Seq(positions.head, positions(positions.size / 2), positions(positions.size / 2 + 1), positions.last).foreach {
      pos =>
        assert(sorted(lookup(path, Seq(keyAt(pos)))(spark.read.parquet(path))) ==
            truth(path, lookup(path, Seq(keyAt(pos)))), s"row $pos")
    }
  }

  test("one row group over many splits: read whole by the split holding its midpoint, rows narrowed") {
    checkMidpointReads(oneRowGroup, expectedRowGroups = 1)
  }

  test("several row groups, each over a few splits") {
    checkMidpointReads(fourRowGroups, expectedRowGroups = 4)
  }

  test("rows report the split Spark reports for them: _metadata.file_block_* and input_file_block_*()") {
    // Rows of a row group spanning several splits belong to the split holding its midpoint,
    // in Spark as in parquet-java; they must say so whatever sparkbloom prunes or narrows.
    Seq(oneRowGroup, fourRowGroups).foreach { path =>
      val keys = (0L until rows by 997).map(keyAt) ++ positionsAcrossSplits(path).map(keyAt)
      val query: DataFrame => DataFrame = _.where(col("k").isin(keys: _*)).select(
        col("pos"), col("_metadata.file_block_start"), col("_metadata.file_block_length"),
        input_file_block_start().as("block_start"), input_file_block_length().as("block_length"))
      val expected = truth(path, query)
      assert(expected.size == keys.distinct.size)
      assert(expected.map(_.getLong(1)).distinct.size == rowGroupsOf(path).size, "one split per row group")
      Seq("spark.sparkbloom.pruning.rows" -> "true", "spark.sparkbloom.pruning.rows" -> "false").foreach { setting =>
        withConf(setting) {
          val got = sorted(query(spark.read.parquet(path)))
          assert(got.size == expected.size, s"$path, $setting")
          val differing = got.zip(expected).filter { case (a, b) => a != b }
          assert(differing.isEmpty,
            s"$path, $setting: ${differing.size} rows (got, Spark's), e.g. ${differing.take(3)}")
        }
      }
    }
  }

  test("string keys, keys most rows of a row group hold, a key no row holds") {
    Seq(oneRowGroup, fourRowGroups).foreach { path =>
      val queries: Seq[DataFrame => DataFrame] = Seq(
        _.where(col("s").isin(positionsAcrossSplits(path).map(p => s"user-${keyAt(p)}"): _*)).select("pos", "s"),
        _.where(col("few") === 3).agg(count(lit(1)), sum("pos")),
        _.where(col("few").isin(1, 2, 3)).agg(count(lit(1)), sum("pos"), max("pos"), min("pos")),
        _.where(col("k") === rows + 5).select("pos"))
      queries.foreach(q => assert(sorted(q(spark.read.parquet(path))) == truth(path, q)))
    }
  }

  test(
    "other readers read the same rows from the same split: row reader, V2, rows not narrowed, corrupt files skipped") {
    val keys = positionsAcrossSplits(oneRowGroup).map(keyAt)
    val expected = truth(oneRowGroup, lookup(oneRowGroup, keys))
    Seq(
      "spark.sql.parquet.enableVectorizedReader" -> "false",
      "spark.sql.sources.useV1SourceList" -> "",
      "spark.sparkbloom.pruning.rows" -> "false",
      "spark.sql.files.ignoreCorruptFiles" -> "true").foreach { setting =>
      withConf(setting) {
        val df = spark.read.parquet(oneRowGroup).where(col("k").isin(keys: _*))
        val selected =
          if (setting._1.contains("useV1")) df.select("pos", "k", "s", "few").withColumn("row_index", col("pos"))
          else df.select(col("pos"), col("k"), col("s"), col("few"), col("_metadata.row_index"))
        assert(sorted(selected) == expected, setting.toString)
        // one split, the one holding the row group's midpoint, reads every row
        assert(df.select(spark_partition_id()).distinct().count() == 1, setting.toString)
      }
    }
  }

  test("rows larger than a split: the split holding a row group's midpoint reads it, its task is not dropped") {
    // three rows of 3 MB in one uncompressed row group over 1 MB splits: the split holding the
    // midpoint may hold none of the rows' first bytes, and must still read the row group
    val path = Files.createTempDirectory("sparkbloom-large-wide").toString + "/t"
    spark.range(0, 3, 1, 1)
      .select((col("id") * 7 + 1).as("k"), repeat(col("id").cast("string"), 3 * 1024 * 1024).as("wide"))
      .coalesce(1)
      .write.option("compression", "none").option("bloom_filter_columns", "k").parquet(path)
    assert(rowGroupsOf(path).size == 1 && splitsOf(path).size >= 8)
    val queries: Seq[DataFrame => DataFrame] =
      Seq(1L, 8L, 15L).map(k => (df: DataFrame) => df.where(col("k") === k).select(col("k"), length(col("wide"))))
    Seq(
      "spark.sql.parquet.enableVectorizedReader" -> "false",
      "spark.sql.files.ignoreCorruptFiles" -> "true",
      "spark.sql.sources.useV1SourceList" -> "",
      "spark.sparkbloom.pruning.rows" -> "false",
      "spark.sparkbloom.enabled" -> "true").foreach { setting =>
      withConf(setting) {
        queries.foreach { query =>
          val expected = truth(path, query)
          assert(expected.size == 1)
          assert(sorted(query(spark.read.parquet(path))) == expected, setting.toString)
        }
      }
    }
  }

  test("row groups whose rows can be skipped and row groups whose rows cannot, in one file") {
    // parquet v2: strings that outgrow the dictionary fall back to DELTA_BYTE_ARRAY, which
    // sparkbloom never asks Spark's reader to skip rows in: the first three quarters' strings
    // stay in the dictionary, the last quarter's do not, so the file's rows are read whole
    val path = Files.createTempDirectory("sparkbloom-large-mixed").toString + "/t"
    spark.range(0, rows, 1, 1)
      .select(col("id").as("pos"), (col("id") * 7919 % rows).as("k"),
        when(col("id") < rows * 3 / 4, concat(lit("v"), (col("id") % 10).cast("string")))
          .otherwise(sha2(col("id").cast("string"), 256)).as("s"),
        // PLAIN doubles: a row group's size grows with its rows (dictionary pages are not counted)
        (col("id") * 1.5).as("d"))
      .coalesce(1)
      .write.option("parquet.writer.version", "v2").option("parquet.enable.dictionary#d", "false")
      .option("parquet.block.size", 128 * 1024)
      .option("parquet.page.size", 16 * 1024).option("bloom_filter_columns", "k").parquet(path)
    val encodings = ParquetFiles.chunks(ParquetFiles.dataFiles(path).head).filter(_.path == "s")
      .map(_.meta.getEncodings.toString)
    assert(encodings.exists(_.contains("DELTA_BYTE_ARRAY")) && encodings.exists(!_.contains("DELTA_BYTE_ARRAY")),
      encodings)
    // splits of one and a half row groups
    val groups = rowGroupsOf(path)
    assert(groups.size >= 6, groups)
    val splitBytes = groups.map { case (start, end, _, _) => end - start }.sum * 3 / 2 / groups.size
    withConf("spark.sql.files.maxPartitionBytes" -> splitBytes.toString) {
      val keys = (0L until rows by 997).map(keyAt)
      val query: DataFrame => DataFrame = _.where(col("k").isin(keys: _*)).select("pos", "k", "s", "d")
      assert(sorted(query(spark.read.parquet(path))) == truth(path, query))
    }
  }

  test("over any tiling of a file into splits, each kept row group is read by the split holding its midpoint") {
    val random = new scala.util.Random(17)
    (1 to 2000).foreach { trial =>
      var at = 4L + random.nextInt(10)
      val midpoints = IndexedSeq.fill(1 + random.nextInt(5)) {
        val size = 1L + random.nextInt(5000)
        val midpoint = at + size / 2
        at += size + random.nextInt(3)
        midpoint
      }
      val fileLength = at + random.nextInt(100)
      val keep = midpoints.map(_ => random.nextInt(4) != 0)
      val verdict = FileVerdict.byFilter(new FileStatus(fileLength, false, 0, 0, 0, new Path("/f")), keep,
        Some(midpoints)).copy(rowKeys = Some(RowKeys("k", Array(1L))))
      val selection = RowGroupSelection.of(verdict).get
      val cuts = (0L +: Seq.fill(random.nextInt(8))((random.nextDouble() * fileLength).toLong) :+ fileLength)
        .distinct.sorted
      val splits = cuts.zip(cuts.drop(1))
      def holding(midpoint: Long)(split: (Long, Long)) = midpoint >= split._1 && midpoint < split._2
      def reading(midpoint: Long) = splits.filter { case (s, e) =>
        selection.rangesWithin(s, e - s).exists { case (from, length) => holding(midpoint)((from, from + length)) }
      }
      midpoints.indices.foreach { i =>
        val label = s"trial $trial, row group $i of $midpoints, splits $splits"
        assert(reading(midpoints(i)) == (if (keep(i)) splits.filter(holding(midpoints(i))) else Nil), label)
      }
      // where a row group is ruled out, a split's task is dropped on the driver exactly when it
      // holds no kept row group's midpoint (where none is, every split is read as Spark planned)
      splits.foreach { case (s, e) =>
        val holdsKept = midpoints.indices.exists(i => keep(i) && holding(midpoints(i))((s, e)))
        assert(selection.readsNothing(s, e - s) == (!holdsKept && !keep.forall(identity)), s"trial $trial")
      }
    }
  }
}
