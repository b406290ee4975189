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

/**
 * A kept row group larger than a split is shared by every split its bytes overlap
 * ([[RowGroupSelection.rowShares]]): each task scans the key column of its share of the rows
 * only. These tests put keys on the rows where shares meet (the first and last row of each
 * share), in files of one row group over many splits and of several row groups each over a
 * few, and compare every lookup with Spark reading the files with sparkbloom and Parquet
 * filter pushdown off; row indexes (`_metadata.row_index`) must be each row's position.
 */
class RowGroupSharingSuite extends AnyFunSuite with SparkSessionSuite {

  private val splitBytes = 1024L * 1024

  override protected def sessionConf: Map[String, String] = Map(
    "spark.sql.files.maxPartitionBytes" -> splitBytes.toString,
    "spark.sql.files.openCostInBytes" -> "0",
    // these row groups are a few MB: narrow (and so share) them anyway
    "spark.sparkbloom.pruning.rowsAbove" -> "0")

  private val rows = 120000L

  /** The key of the row at position `pos`: a permutation of the positions (7919 is prime, not a factor of `rows`). */
  private def keyAt(pos: Long): Long = pos * 7919 % rows

  /** One file, rows in position order, row groups of `rowGroupBytes`, pages of 16 KB. */
  private def write(name: String, rowGroupBytes: Long): String = {
    val path = Files.createTempDirectory(s"sparkbloom-share-$name").toString + "/t"
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

  /** The positions where one split's share of a row group ends and the next one's begins, and the ends. */
  private def sharePositions(path: String): Seq[Long] = {
    val splits = splitsOf(path)
    rowGroupsOf(path).flatMap { case (start, end, first, count) =>
      val cuts = splits.map(_._1).filter(at => at > start && at < end)
        .map(at => first + (BigInt(count) * (at - start) / (end - start)).toLong)
      (Seq(first, first + count) ++ cuts).flatMap(p => Seq(p - 1, p, p + 1))
    }.filter(p => p >= 0 && p < rows).distinct.sorted
  }

  private def lookup(path: String, keys: Seq[Long]): DataFrame => DataFrame =
    _.where(col("k").isin(keys: _*)).select(col("pos"), col("k"), col("s"), col("few"), col("_metadata.row_index"))

  private def checkSharing(path: String, expectedRowGroups: Int): Unit = {
    assert(rowGroupsOf(path).size == expectedRowGroups)
    val positions = sharePositions(path)
    assert(splitsOf(path).size >= 8, "the file should be read by many splits")
    val keys = positions.map(keyAt)
    val expected = truth(path, lookup(path, keys))
    assert(expected.size == keys.size)
    val got = lookup(path, keys)(spark.read.parquet(path))
    assert(sorted(got) == expected)
    assert(got.collect().forall(r => r.getLong(0) == r.getLong(4)), "row indexes are the rows' positions")
    // each share is read by its own task: the keys come from as many partitions as there are splits
    val partitions = got.select(spark_partition_id()).distinct().count()
    assert(partitions >= splitsOf(path).size - 1, s"$partitions partitions returned rows")
    // one key at a time: the first, a share's last and the next share's first row, the last
    Seq(positions.head, positions(positions.size / 2), positions(positions.size / 2 + 1), positions.last).foreach {
      pos =>
        assert(sorted(lookup(path, Seq(keyAt(pos)))(spark.read.parquet(path))) ==
            truth(path, lookup(path, Seq(keyAt(pos)))), s"row $pos")
    }
  }

  test("one row group over many splits: each split reads its share, rows where shares meet are found once") {
    checkSharing(oneRowGroup, expectedRowGroups = 1)
  }

  test("several row groups, each over a few splits") {
    checkSharing(fourRowGroups, expectedRowGroups = 4)
  }

  test("string keys, keys most rows of a share hold, a key no row holds") {
    Seq(oneRowGroup, fourRowGroups).foreach { path =>
      val queries: Seq[DataFrame => DataFrame] = Seq(
        _.where(col("s").isin(sharePositions(path).map(p => s"user-${keyAt(p)}"): _*)).select("pos", "s"),
        _.where(col("few") === 3).agg(count(lit(1)), sum("pos")),
        _.where(col("few").isin(1, 2, 3)).agg(count(lit(1)), sum("pos"), max("pos"), min("pos")),
        _.where(col("k") === rows + 5).select("pos"))
      queries.foreach(q => assert(sorted(q(spark.read.parquet(path))) == truth(path, q)))
    }
  }

  test("scans that do not share read the same rows: row reader, V2, rows not narrowed, corrupt files skipped") {
    val keys = sharePositions(oneRowGroup).map(keyAt)
    val expected = truth(oneRowGroup, lookup(oneRowGroup, keys))
    Seq(
      "spark.sql.parquet.enableVectorizedReader" -> "false",
      "spark.sql.sources.useV1SourceList" -> "",
      "spark.sparkbloom.pruning.rows" -> "false",
      // a split failing to read its share would be skipped silently: no sharing
      "spark.sql.files.ignoreCorruptFiles" -> "true").foreach { setting =>
      withConf(setting) {
        val df = spark.read.parquet(oneRowGroup).where(col("k").isin(keys: _*))
        val selected =
          if (setting._1.contains("useV1")) df.select("pos", "k", "s", "few").withColumn("row_index", col("pos"))
          else df.select(col("pos"), col("k"), col("s"), col("few"), col("_metadata.row_index"))
        assert(sorted(selected) == expected, setting.toString)
        // without sharing one split, the one holding the row group's midpoint, reads every row
        assert(df.select(spark_partition_id()).distinct().count() == 1, setting.toString)
      }
    }
  }

  test("rows larger than a split: the split holding a row group's midpoint reads it when the scan does not share") {
    // three rows of 3 MB in one uncompressed row group over 1 MB splits: the split holding the
    // midpoint gets no row of it when sharing, so the driver must not drop its task, or a scan
    // that does not share (decided by the reader) loses every row
    val path = Files.createTempDirectory("sparkbloom-share-wide").toString + "/t"
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
      // sharing: the row is read by the split its bytes give it to
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

  test("a shared row group and one whose rows cannot be skipped, read by one split") {
    // parquet v2: strings that outgrow the dictionary fall back to DELTA_BYTE_ARRAY, which
    // sparkbloom never asks Spark's reader to skip rows in; the first three quarters' strings stay
    // in the dictionary, so their row groups are shared and the last quarter's are read whole
    val path = Files.createTempDirectory("sparkbloom-share-mixed").toString + "/t"
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
    // splits of one and a half row groups: a split holding one row group's midpoint also
    // holds a share of a neighbour, with or without rows that can be skipped
    val groups = rowGroupsOf(path)
    assert(groups.size >= 6, groups)
    val splitBytes = groups.map { case (start, end, _, _) => end - start }.sum * 3 / 2 / groups.size
    withConf("spark.sql.files.maxPartitionBytes" -> splitBytes.toString) {
      val keys = (0L until rows by 997).map(keyAt)
      val query: DataFrame => DataFrame = _.where(col("k").isin(keys: _*)).select("pos", "k", "s", "d")
      assert(sorted(query(spark.read.parquet(path))) == truth(path, query))
    }
  }

  test("shares tile a row group's rows over any tiling of the file into splits; other row groups keep midpoints") {
    val random = new scala.util.Random(17)
    (1 to 2000).foreach { trial =>
      var at = 4L + random.nextInt(10)
      var row = 0L
      val extents = IndexedSeq.fill(1 + random.nextInt(5)) {
        val size = 1L + random.nextInt(5000)
        val e = RowGroupExtent(at, size, row, 1L + random.nextInt(3000), uncompressedBytes = random.nextInt(100),
          rowsSkippable = random.nextInt(4) != 0)
        at += size + random.nextInt(3)
        row += e.rows
        e
      }
      val fileLength = at + random.nextInt(100)
      val keep = extents.map(_ => random.nextInt(4) != 0)
      val verdict = FileVerdict(new FileStatus(fileLength, false, 0, 0, 0, new Path("/f")), extents.size, keep,
        Some(extents.map(_.midpoint)), Some(RowKeys("k", Array(1L), minRowGroupBytes = 50)), Some(extents))
      val selection = RowGroupSelection.of(verdict).get
      val cuts = (0L +: Seq.fill(random.nextInt(8))((random.nextDouble() * fileLength).toLong) :+ fileLength)
        .distinct.sorted
      val splits = cuts.zip(cuts.drop(1))
      def reading(sharing: Boolean, midpoint: Long) = splits.filter { case (s, e) =>
        selection.rangesWithin(s, e - s, sharing).exists { case (from, length) =>
          midpoint >= from && midpoint < from + length
        }
      }
      extents.indices.foreach { i =>
        val e = extents(i)
        val label = s"trial $trial, row group $i of $extents, splits $splits"
        val byMidpoint = splits.filter { case (s, end) => e.midpoint >= s && e.midpoint < end }
        assert(reading(sharing = false, e.midpoint) == (if (keep(i)) byMidpoint else Nil), label)
        val readers = reading(sharing = true, e.midpoint)
        val given = splits.filter { case (s, end) => selection.rowShares(s, end - s).contains(e.firstRow) }
        if (!keep(i)) assert(readers.isEmpty && given.isEmpty, label)
        else if (!e.rowsSkippable || e.uncompressedBytes < 50) {
          assert(readers == byMidpoint && given == byMidpoint, label)
          assert(given.forall { case (s, end) => selection.rowShares(s, end - s)(e.firstRow).whole }, label)
        } else {
          // the splits whose bytes give them at least one row of it, by the formula written out
          def rowAt(at: Long) = BigInt(e.rows) * (math.min(math.max(at, e.start), e.end) - e.start) / e.size
          assert(readers == splits.filter { case (s, end) => rowAt(s) < rowAt(end) }, label)
          assert(given == readers, label)
          val shares = readers.map { case (s, end) => selection.rowShares(s, end - s)(e.firstRow) }
          assert(shares.forall(s => s.rows == e.rows && s.from < s.until), label)
          assert(shares.zip(shares.drop(1)).forall { case (a, b) => a.until == b.from }, label)
          assert(shares.head.from == 0 && shares.last.until == e.rows, label)
        }
      }
      // a split that reads nothing (its task dropped on the driver) reads nothing whether the scan
      // shares or not: it holds no kept row group's midpoint and gets no share of one
      splits.foreach { case (s, e) =>
        if (selection.readsNothing(s, e - s)) {
          assert(extents.indices.forall(i => !keep(i) || extents(i).midpoint < s || extents(i).midpoint >= e),
            s"trial $trial")
          assert(selection.rowShares(s, e - s).isEmpty, s"trial $trial")
        }
      }
    }
  }
}
