// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, File}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.format.{FileMetaData, Util}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.LongType
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{LoggedWarnings, ParquetFiles, SparkSessionSuite, TestShims}
import sparkbloom.predicate.PointPredicate

/**
 * A filter that is wrong must never make a query wrong. Real files are mutated (filter
 * headers, `bloom_filter_offset`, `bloom_filter_length`, truncation), seeded and
 * reproducible; for every mutation the driver must keep every file for a value it holds,
 * without an exception escaping. Corruption that leaves a valid-looking filter (a changed
 * `numBytes` in a file without `bloom_filter_length`) cannot be detected by any reader and
 * is not counted.
 */
class CorruptFilterFuzzSuite extends AnyFunSuite with SparkSessionSuite {

  private val seed = sys.env.getOrElse("SPARKBLOOM_FUZZ_SEED", "7").toLong
  private val cases = sys.env.getOrElse("SPARKBLOOM_FUZZ_CASES", "300").toInt

  private lazy val original: (Array[Byte], Seq[Long]) = {
    val dir = Files.createTempDirectory("fuzz-src").toString + "/t"
    spark.range(0, 3000, 1, 1).select(col("id").as("k"), (col("id") * 13 % 3000).as("v"))
      .orderBy(rand(3)).coalesce(1)
      .write.option("bloom_filter_columns", "k,v").option("parquet.block.size", 8192).parquet(dir)
    val file = ParquetFiles.dataFiles(dir).head
    (Files.readAllBytes(file.toPath), Seq(0L, 1L, 1499L, 2999L))
  }

  private def footerOf(bytes: Array[Byte]): (Int, FileMetaData) = {
    val length = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt
    val start = bytes.length - 8 - length
    (start, Util.readFileMetaData(new ByteArrayInputStream(bytes, start, length)))
  }

  private def withFooter(bytes: Array[Byte], start: Int, footer: FileMetaData): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    out.write(bytes, 0, start)
    val serialized = new ByteArrayOutputStream()
    Util.writeFileMetaData(footer, serialized)
    out.write(serialized.toByteArray)
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(serialized.size).array())
    out.write("PAR1".getBytes)
    out.toByteArray
  }

  /** A mutated copy of the file, and whether the mutation is undetectable (not counted). */
  private def mutate(rnd: Random, bytes: Array[Byte]): (Array[Byte], Boolean) = {
    val (start, footer) = footerOf(bytes)
    val chunks = footer.getRow_groups.asScala.flatMap(_.getColumns.asScala.map(_.getMeta_data))
      .filter(_.isSetBloom_filter_offset).toIndexedSeq
    val target = chunks(rnd.nextInt(chunks.size))
    val offset = target.getBloom_filter_offset.toInt
    val interesting = Seq(-1L, 0L, 1L, 31L, 33L, Int.MaxValue.toLong, Int.MinValue.toLong, bytes.length.toLong,
      bytes.length + 100L, (bytes.length - 10).toLong)
    // Without a bloom_filter_length field (Spark 3.5's parquet-java) every file is an old
    // file: flipped header bytes are case 3, and case 1 cannot happen.
    rnd.nextInt(6) match {
      case 1 if !TestShims.FilterLength.exists => mutate(rnd, bytes)
      case 0
          if TestShims.FilterLength.exists => // flip bytes of a header; detectable while bloom_filter_length is there
        val copy = bytes.clone()
        (0 to rnd.nextInt(3)).foreach(_ => copy(offset + rnd.nextInt(12)) = rnd.nextInt(256).toByte)
        (copy, false)
      case 1 => // bloom_filter_length changed
        TestShims.FilterLength.set(target,
          if (rnd.nextBoolean()) interesting(rnd.nextInt(interesting.size)).toInt
          else TestShims.FilterLength.get(target).getOrElse(0) + rnd.nextInt(65) - 32)
        (withFooter(bytes, start, footer), false)
      case 2 => // bloom_filter_offset changed
        target.setBloom_filter_offset(if (rnd.nextBoolean()) interesting(rnd.nextInt(interesting.size))
          else rnd.nextInt(bytes.length).toLong)
        (withFooter(bytes, start, footer), false)
      case 0 | 3 => // an old file without bloom_filter_length, header bytes flipped
        chunks.foreach(c => TestShims.FilterLength.unset(c))
        val copy = withFooter(bytes, start, footer)
        val before = BloomFilterIO.decodeHeader(copy, offset, 64)
        (0 to rnd.nextInt(3)).foreach(_ => copy(offset + rnd.nextInt(12)) = rnd.nextInt(256).toByte)
        val after = BloomFilterIO.decodeHeader(copy, offset, 64)
        val undetectable = after.isRight && after.map(_.numBytes) != before.map(_.numBytes)
        (copy, undetectable)
      case 4 => // unknown algorithm / hash / compression member ids
        val copy = bytes.clone()
        val unions = (offset until offset + 16).filter(i => copy(i) == 0x1c && copy(i + 1) == 0x1c)
        copy(unions(rnd.nextInt(unions.size)) + 1) = 0x2c
        (copy, false)
      case _ => // the file cut short inside the filters
        (bytes.take(offset + rnd.nextInt(math.max(1, bytes.length - offset))), false)
    }
  }

  test(s"$cases seeded mutations of filter headers, offsets and lengths never lose a row (seed $seed)") {
    val (bytes, present) = original
    val rnd = new Random(seed)
    val dir = Files.createTempDirectory("fuzz").toFile
    val conf = new Configuration()
    var counted = 0
    for (i <- 0 until cases) {
      val (mutated, undetectable) = mutate(rnd, bytes)
      val file = new File(dir, s"case-$i.parquet")
      Files.write(file.toPath, mutated)
      val fs = new Path(file.toURI).getFileSystem(conf)
      val fileStatus = fs.getFileStatus(new Path(file.toURI))
      val pruner = new FilePruner(conf, Some(ProbeCache.Scoped(new ProbeCache(1 << 20), "")), caseSensitive = false,
        legacyCalendarSession = false, parallelism = 1)
      for (column <- Seq("k", "v"); value <- present) {
        val verdict = pruner.judge(Seq(fileStatus), PointPredicate.ColumnIn(Seq(column), LongType, Seq(value))).head
        if (!undetectable) assert(verdict.keep, s"case $i: file dropped for $column = $value")
      }
      if (!undetectable) counted += 1
    }
    info(s"$counted of $cases mutations counted")
    assert(counted > cases / 2)
  }

  test("queries over corrupt files return exactly the rows vanilla Spark without pushdown returns") {
    val (bytes, _) = original
    val rnd = new Random(seed + 1)
    val dir = Files.createTempDirectory("fuzz-query").toFile
    // Only files vanilla Spark can read at all take part (a cut-off footer fails any reader).
    spark.conf.set("spark.sparkbloom.enabled", "false")
    try {
      (0 until 16).foreach { i =>
        val (mutated, undetectable) = mutate(rnd, bytes)
        val file = new File(dir, s"part-$i.parquet")
        Files.write(file.toPath, mutated)
        if (undetectable || scala.util.Try(spark.read.parquet(file.getPath).where(col("k") === 17L).count()).isFailure) {
          file.delete()
        }
      }
    } finally spark.conf.unset("spark.sparkbloom.enabled")
    assert(dir.listFiles().count(_.getName.endsWith(".parquet")) >= 4)
    val path = dir.getPath
    for (p <- Seq(col("k") === 17L, col("v").isin(0L, 13L, 5000L), col("k") === 99999L)) {
      // Expected: no sparkbloom and no parquet-java filtering in the tasks either, so that
      // neither reads the (corrupt) filters: a filter that lost rows cannot hide on both sides.
      def run(vanilla: Boolean): Seq[String] = {
        val conf = if (vanilla)
          Seq("spark.sparkbloom.enabled" -> "false", "spark.sql.parquet.filterPushdown" -> "false")
        else Nil
        conf.foreach { case (k, v) => spark.conf.set(k, v) }
        try spark.read.parquet(path).where(p).collect().map(_.toString).sorted.toSeq
        finally conf.foreach { case (k, _) => spark.conf.unset(k) }
      }
      assert(run(vanilla = false) == run(vanilla = true), p.toString)
    }
  }

  test("a broken filter is ignored with one warning naming the file and column") {
    val (bytes, _) = original
    val (start, footer) = footerOf(bytes)
    footer.getRow_groups.asScala.foreach(_.getColumns.asScala.map(_.getMeta_data)
        .filter(m => m.isSetBloom_filter_offset && m.getPath_in_schema.asScala == Seq("k"))
        .foreach(_.setBloom_filter_offset(bytes.length + 100L))) // past the end of the file
    val file = new File(Files.createTempDirectory("broken").toFile, "broken.parquet")
    Files.write(file.toPath, withFooter(bytes, start, footer))
    val conf = new Configuration()
    val status = new Path(file.toURI).getFileSystem(conf).getFileStatus(new Path(file.toURI))
    val pruner = new FilePruner(conf, Some(ProbeCache.Scoped(new ProbeCache(1 << 20), "")), caseSensitive = false,
      legacyCalendarSession = false, parallelism = 1)
    val judged = (1 to 2).map { _ =>
      LoggedWarnings.of(classOf[FilePruner]) {
        pruner.judge(Seq(status), PointPredicate.ColumnIn(Seq("k"), LongType, Seq(17L)))
      }
    }
    assert(judged.forall(_._1.head.keep))
    val (_, firstWarnings) = judged.head
    assert(firstWarnings.size == 1, firstWarnings)
    assert(firstWarnings.head.contains("column 'k'") && firstWarnings.head.contains(status.getPath.toString))
    assert(judged(1)._2.isEmpty, "the same broken filter warns once")
  }
}
