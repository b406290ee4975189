// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.EOFException
import java.nio.ByteBuffer
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.io.SeekableInputStream
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite}

/**
 * What a prober reads of a file: the tail, then the filters it needs, in few reads that hold
 * little else; on an object store each read is a round trip and every byte is paid for.
 */
class ProbeReadPlanSuite extends AnyFunSuite with SparkSessionSuite {
  import ProbeReadPlan._

  /** A file in memory that counts the reads and bytes that reach it. */
  private final class CountingStream(bytes: Array[Byte]) extends SeekableInputStream {
    var reads = 0
    var bytesRead = 0L
    private var position = 0L
    override def getPos: Long = position
    override def seek(newPosition: Long): Unit = position = newPosition
    override def readFully(b: Array[Byte]): Unit = readFully(b, 0, b.length)
    override def readFully(b: Array[Byte], offset: Int, count: Int): Unit = {
      if (position + count > bytes.length) throw new EOFException()
      reads += 1
      bytesRead += count
      System.arraycopy(bytes, position.toInt, b, offset, count)
      position += count
    }
    override def read(): Int = throw new UnsupportedOperationException
    override def read(buffer: ByteBuffer): Int = throw new UnsupportedOperationException
    override def readFully(buffer: ByteBuffer): Unit = throw new UnsupportedOperationException
  }

  test("a range read stream serves what was fetched from memory and sends other reads to the file") {
    val bytes = Array.tabulate[Byte](10000)(i => (i * 31).toByte)
    val file = new CountingStream(bytes)
    val stream = new RangeReadStream(file, bytes.length)
    def readAt(offset: Long, count: Int): Array[Byte] = {
      val out = new Array[Byte](count)
      stream.seek(offset)
      stream.readFully(out)
      assert(stream.getPos == offset + count)
      out
    }
    stream.fetch(Seq(ByteRange(6000, 4000), ByteRange(1000, 500)))
    stream.fetch(Seq(ByteRange(9000, 1000), ByteRange(9990, 100))) // held, and held once clipped to the file
    assert(file.reads == 2 && stream.bytesRead == 4500)
    assert(readAt(9992, 8).sameElements(bytes.slice(9992, 10000)))
    assert(readAt(7000, 2992).sameElements(bytes.slice(7000, 9992)))
    assert(readAt(1100, 400).sameElements(bytes.slice(1100, 1500)))
    assert(file.reads == 2, "reads inside fetched ranges cost nothing")
    assert(readAt(5000, 2000).sameElements(bytes.slice(5000, 7000)), "a read that starts before a range")
    assert(readAt(1400, 200).sameElements(bytes.slice(1400, 1600)), "a read that ends after one")
    assert(file.reads == 4 && stream.bytesRead == 6700)
    val buffer = ByteBuffer.allocate(10)
    stream.seek(9990)
    assert(stream.read(buffer) == 10 && buffer.array.sameElements(bytes.slice(9990, 10000)))
    assert(stream.read() == -1 && stream.read(new Array[Byte](4), 0, 4) == -1)
  }

  test("wanted ranges merge while a read holds at most half again the bytes it is wanted for") {
    assert(coalesce(Nil).isEmpty)
    assert(coalesce(Seq(ByteRange(100, 50), ByteRange(0, 100))) == Seq(ByteRange(0, 150)), "adjacent, in any order")
    assert(coalesce(Seq(ByteRange(0, 100), ByteRange(50, 100))) == Seq(ByteRange(0, 150)), "overlapping")
    assert(coalesce(Seq(ByteRange(0, 10), ByteRange(10 + SmallGapBytes, 10))) == Seq(ByteRange(0, 20 + SmallGapBytes)),
      "a small gap is read")
    assert(coalesce(Seq(ByteRange(0, 10), ByteRange(11 + SmallGapBytes, 10))).size == 2)
    // 20,000 wanted bytes: a gap of up to 10,000 keeps the read within 1.5 times them
    assert(coalesce(Seq(ByteRange(0, 10000), ByteRange(20000, 10000))) == Seq(ByteRange(0, 30000)))
    assert(coalesce(Seq(ByteRange(0, 10000), ByteRange(20002, 10000))).size == 2)
    // filters interleaved with another column's as large: read in pairs, 1.5 times what they hold
    val interleaved = (0 until 8).map(i => ByteRange(i * 60000L, 30000))
    assert(coalesce(interleaved) == (0 until 4).map(i => ByteRange(i * 120000L, 90000)))
    // ... with another column's half as large again: never merged
    val sparse = (0 until 8).map(i => ByteRange(i * 75000L, 30000))
    assert(coalesce(sparse) == sparse)
    // ... and with a smaller column's: one read
    val dense = (0 until 8).map(i => ByteRange(i * 36000L, 30000))
    assert(coalesce(dense) == Seq(ByteRange(0, 7 * 36000 + 30000)))
  }

  test("the tail is learned: footer and filters in one read where that held at most 1.5 times each need") {
    val mb = 1000000L
    val fresh = new TailSizing
    assert(fresh.tailBytes(mb) == ByteRange(mb - InitialTailBytes, InitialTailBytes))
    assert(fresh.tailBytes(1000) == ByteRange(0, 1000), "a small file is read whole")
    // filters right before the footer: the next files' tails take them in
    fresh.learn(Needed(mb, 2000, Seq(ByteRange(mb - 32000, 30000))))
    assert(fresh.tailBytes(mb) == ByteRange(mb - 32000, 32000))
    // a file that needed half of that: one read would hold twice its need; footers alone
    fresh.learn(Needed(mb, 1000, Seq(ByteRange(mb - 16000, 15000))))
    assert(fresh.tailBytes(mb) == ByteRange(mb - 2125, 2125))
    // filters far from the footer: the footer alone
    val sparse = new TailSizing
    sparse.learn(Needed(mb, 2000, Seq(ByteRange(0, 30000))))
    assert(sparse.tailBytes(mb).length == 2125)
    sparse.learn(Needed(mb, 1000, Nil))
    assert(sparse.tailBytes(mb).length == 2125, "never shorter within one scan")
    sparse.learn(Needed(200 * mb, 100 * mb, Nil))
    assert(sparse.tailBytes(200 * mb).length == MaxTailBytes)
  }

  test("a real file is judged from its tail and one read of a column's filters, then from one read") {
    val path = Files.createTempDirectory("sparkbloom-probe-reads").toString + "/t"
    // eight row groups; k's filters and s's interleaved, s's small: k's are read in one go
    spark.range(0, 80000, 1, 1)
      .select(sha2(col("id").cast("string"), 256).as("k"), (col("id") % 50).cast("string").as("s"),
        sha2(concat(lit("pad"), col("id").cast("string")), 512).as("pad"))
      .write.option("parquet.block.size", 1024 * 1024).option("bloom_filter_columns", "k,s")
      .option("parquet.enable.dictionary", "false").parquet(path)
    val file = ParquetFiles.dataFiles(path).head
    val chunks = ParquetFiles.chunks(file)
    val rowGroups = chunks.map(_.rowGroup).distinct
    assert(rowGroups.size >= 4, s"${rowGroups.size} row groups")
    val bytes = Files.readAllBytes(file.toPath)
    val status = new FileStatus(bytes.length.toLong, false, 1, 1L, 1L, new Path(file.toURI))
    // k's filter bytes, as its footer gives them (bloom_filter_length)
    val kLengths = OpenedFile.using(status, new Configuration(), cache = None) { opened =>
      opened.footer.rowGroups.flatMap(_.columns.get("k")).map(_.filterLength.toLong)
    }
    val kFilters = kLengths.sum
    val footer = FooterReader.footerBytes(new RangeReadStream(new CountingStream(bytes), bytes.length), bytes.length)
    val sizing = new TailSizing
    def probe(): CountingStream = {
      val counting = new CountingStream(bytes)
      val opener = new FileOpener {
        def open(s: FileStatus, c: Configuration): SeekableInputStream = counting
        def immutableFiles: Boolean = false
      }
      OpenedFile.using(status, new Configuration(), cache = None, opener, sizing) { opened =>
        rowGroups.foreach { rg =>
          val theirs = chunks.find(c => c.rowGroup == rg && c.path == "k").flatMap(_.filter).get
          val bitset = new java.io.ByteArrayOutputStream()
          theirs.writeTo(bitset)
          opened.filter(rg, "k") match {
            case FilterLookup.Present(ours) => assert(ours.toBitset.sameElements(bitset.toByteArray), s"row group $rg")
            case other => fail(s"row group $rg: $other")
          }
        }
      }
      counting
    }
    val footerRead = if (footer > InitialTailBytes) 1 else 0
    if (kLengths.forall(_ == -1)) {
      // parquet-java before 1.14 (Spark 3.5's) writes no bloom_filter_length: each filter is
      // read at its offset, as the reader asks for it, its header (at most 256 bytes) first
      val bitsets = chunks.filter(_.path == "k").flatMap(_.filter).map(f => f.getBitsetSize.toLong).sum
      val first = probe()
      assert(first.reads == 1 + footerRead + 2 * rowGroups.size, (first.reads, footer, rowGroups.size))
      assert(first.bytesRead <= InitialTailBytes + footer + bitsets + 256 * rowGroups.size,
        (first.bytesRead, footer, bitsets))
    } else {
      assert(kLengths.forall(_ > 0), kLengths)
      val first = probe()
      assert(first.reads == 2 + footerRead, s"the tail, the rest of a footer of $footer bytes, then k's filters")
      assert(first.bytesRead <= InitialTailBytes + footer + 1.5 * kFilters, (first.bytesRead, footer, kFilters))
      val second = probe()
      assert(second.reads == 1, "the learned tail holds the footer and k's filters")
      assert(second.bytesRead <= 1.5 * (footer + kFilters), (second.bytesRead, footer, kFilters))
    }
  }
}
