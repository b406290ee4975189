// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}
import java.lang.management.ManagementFactory
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.example.data.simple.SimpleGroupFactory
import org.apache.parquet.format._
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.io.{DelegatingSeekableInputStream, SeekableInputStream}
import org.apache.parquet.schema.{MessageTypeParser, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import sparkbloom.ParquetFiles
import sparkbloom.sbbf.{SplitBlockBloomFilter, XxHash64}

/** Filter headers as read from files: parquet-format's encoding, and every bad one a broken filter. */
class BloomFilterHeaderSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def headerBytes(numBytes: Int): Array[Byte] = {
    val header = new BloomFilterHeader(numBytes, BloomFilterAlgorithm.BLOCK(new SplitBlockAlgorithm()),
      BloomFilterHash.XXHASH(new XxHash()), BloomFilterCompression.UNCOMPRESSED(new Uncompressed()))
    val out = new ByteArrayOutputStream()
    Util.writeBloomFilterHeader(header, out)
    out.toByteArray
  }

  /** A file's bytes, as a stream that seeks. */
  private def streamOf(bytes: Array[Byte]): SeekableInputStream = {
    val in = new ByteArrayInputStream(bytes)
    new DelegatingSeekableInputStream(in) {
      override def getPos: Long = bytes.length - in.available()
      override def seek(position: Long): Unit = { in.reset(); in.skip(position) }
    }
  }

  private def chunkAt(offset: Long, length: Int) = ChunkSummary(Types.required(PrimitiveTypeName.INT64).named("k"),
    1, None, None, offset, length, encrypted = false, dictionaryOnly = false)

  /** The filter at `offset` of a file of `bytes`, with `bloom_filter_length` or without it (-1). */
  private def read(bytes: Array[Byte], offset: Int = 4, length: Int = -1): FilterLookup =
    BloomFilterIO.read(streamOf(bytes), bytes.length, chunkAt(offset, length)).lookup

  /** A file of `content` at offset 4, between the magic and a few bytes standing for data and footer. */
  private def fileWith(content: Array[Byte]): Array[Byte] = "PAR1".getBytes ++ content ++ new Array[Byte](16)

  private def allocatedBy(work: => Unit): Long = {
    val threads = ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
    val before = threads.getCurrentThreadAllocatedBytes
    work
    threads.getCurrentThreadAllocatedBytes - before
  }

  test("a header parquet-format writes is read back at every size, and its length is known") {
    forAll(Gen.choose(1, Int.MaxValue / 32)) { blocks =>
      val header = headerBytes(blocks * 32)
      val expected = Right(BloomFilterIO.Header(blocks * 32, header.length))
      assert(BloomFilterIO.decodeHeader(header, 0, header.length) == expected)
      val withBitset = Array[Byte](9, 9) ++ header ++ new Array[Byte](64)
      assert(BloomFilterIO.decodeHeader(withBitset, 2, withBitset.length - 2) == expected)
    }
  }

  test("a file parquet-java wrote: its header is parquet-format's byte for byte, its filter the one read") {
    val file = Files.createTempDirectory("pj-header").resolve("f.parquet")
    val schema = MessageTypeParser.parseMessageType("message m { required int64 k; }")
    val writer = ExampleParquetWriter.builder(new Path(file.toUri)).withType(schema)
      .withBloomFilterEnabled("k", true).build()
    val groups = new SimpleGroupFactory(schema)
    try { (0L until 5000L).foreach(v => writer.write(groups.newGroup().append("k", v))) }
    finally writer.close()
    val chunk = ParquetFiles.chunks(file.toFile).head
    val theirs = chunk.filter.get
    val bytes = Files.readAllBytes(file)
    val offset = chunk.meta.getBloomFilterOffset.toInt
    val expectedHeader = headerBytes(theirs.getBitsetSize)
    assert(bytes.slice(offset, offset + expectedHeader.length) sameElements expectedHeader)
    assert(BloomFilterIO.decodeHeader(bytes, offset, bytes.length - offset) ==
      Right(BloomFilterIO.Header(theirs.getBitsetSize, expectedHeader.length)))
    val theirBitset = new ByteArrayOutputStream()
    theirs.writeTo(theirBitset)
    for (length <- Seq(-1, expectedHeader.length + theirs.getBitsetSize)) {
      read(bytes, offset, length) match {
        case FilterLookup.Present(filter) =>
          assert(filter.toBitset sameElements theirBitset.toByteArray)
          (0L until 5000L).foreach(v => assert(filter.mightContain(XxHash64.hashLong(v))))
        case other => fail(s"bloom_filter_length $length: $other")
      }
    }
  }

  test("every truncated header is broken, in memory and where the file ends") {
    val full = headerBytes(1 << 20)
    for (n <- 0 until full.length) {
      assert(BloomFilterIO.decodeHeader(full.take(n), 0, n).isLeft, s"prefix of $n bytes")
      assert(read("PAR1".getBytes ++ full.take(n)).isInstanceOf[FilterLookup.Broken], s"file ending after $n bytes")
    }
    // the whole header, the file ending inside the bitset
    val cut = "PAR1".getBytes ++ headerBytes(64) ++ new Array[Byte](63)
    assert(read(cut).isInstanceOf[FilterLookup.Broken])
  }

  test("numBytes outside whole blocks, unknown members and missing fields are broken, never thrown") {
    for (bad <- Seq(-32, -1, 0, 31, 33, 100, Int.MaxValue, Int.MinValue)) {
      val header = headerBytes(bad)
      assert(BloomFilterIO.decodeHeader(header, 0, header.length).left.exists(_.contains("numBytes")), bad)
      assert(read(fileWith(header ++ new Array[Byte](64))).isInstanceOf[FilterLookup.Broken], bad)
    }
    // Each union's member struct follows a 0x1c 0x1c pair; member id 2 is delta 2: 0x2c.
    val valid = headerBytes(32)
    val unionStarts = valid.indices.filter(i => i + 1 < valid.length && valid(i) == 0x1c && valid(i + 1) == 0x1c)
    assert(unionStarts.size == 3)
    for ((start, what) <- unionStarts.zip(Seq("algorithm", "hash", "compression"))) {
      val changed = valid.clone()
      changed(start + 1) = 0x2c
      val result = BloomFilterIO.decodeHeader(changed, 0, changed.length)
      assert(result.left.exists(_.contains(what)), s"$what: $result")
      assert(read(fileWith(changed ++ new Array[Byte](32))).isInstanceOf[FilterLookup.Broken], what)
    }
    // no numBytes (field 1): the three unions from field 2 on
    val noNumBytes = Array[Byte](0x2c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0)
    assert(BloomFilterIO.decodeHeader(noNumBytes, 0, noNumBytes.length).isLeft)
  }

  test("unknown fields are skipped, as Thrift requires") {
    // field 5: binary "hi", field 6: list of two i32, then the header's stop
    val valid = headerBytes(96)
    val withExtra = valid.dropRight(1) ++ Array[Byte](0x18, 2, 'h', 'i', 0x19, 0x25, 2, 4) ++ Array[Byte](0)
    assert(BloomFilterIO.decodeHeader(withExtra, 0, withExtra.length) ==
      Right(BloomFilterIO.Header(96, withExtra.length)))
  }

  test("a header claiming more than the file holds is broken before anything large is allocated") {
    val budget = 1L << 20
    // numBytes beyond the ceiling, or beyond the file's end, with and without bloom_filter_length
    for (numBytes <- Seq(1 << 30, 64 << 20, SplitBlockBloomFilter.MaxBytes)) {
      val header = headerBytes(numBytes)
      val bytes = fileWith(header ++ new Array[Byte](64))
      for (length <- Seq(-1, header.length + numBytes, header.length + 64)) {
        var result: FilterLookup = null
        val allocated = allocatedBy { result = read(bytes, length = length) }
        assert(result.isInstanceOf[FilterLookup.Broken], s"numBytes $numBytes, length $length")
        assert(allocated < budget, s"numBytes $numBytes, length $length: $allocated bytes allocated")
      }
    }
    // an unknown binary field that claims 64 MiB, in a header of 30 bytes
    val claim = headerBytes(64).dropRight(1) ++ Array[Byte](0x18, 0x80.toByte, 0x80.toByte, 0x80.toByte, 0x20) ++
      new Array[Byte](8)
    var decoded: Either[String, BloomFilterIO.Header] = null
    val allocated = allocatedBy { decoded = BloomFilterIO.decodeHeader(claim, 0, claim.length) }
    assert(decoded.isLeft && allocated < budget, s"$decoded, $allocated bytes allocated")
    val byUtil = allocatedBy(scala.util.Try(Util.readBloomFilterHeader(new ByteArrayInputStream(claim))))
    info(s"parquet-format's Util.readBloomFilterHeader allocates $byUtil bytes for the same header")
  }

  test("random bytes never throw, and a header read from them names whole blocks") {
    forAll(Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue))) { list =>
      val bytes = list.toArray
      BloomFilterIO.decodeHeader(bytes, 0, bytes.length) match {
        case Right(h) => assert(h.numBytes >= 32 && h.numBytes % 32 == 0 && h.length <= bytes.length)
        case Left(_) => ()
      }
      val after = headerBytes(4096) ++ bytes
      assert(BloomFilterIO.decodeHeader(after, 0, after.length).isRight)
      assert(read(fileWith(bytes)) != FilterLookup.Missing)
    }
    forAll(Gen.choose(0, 20), Gen.choose(Byte.MinValue, Byte.MaxValue)) { (at, b) =>
      val header = headerBytes(4096)
      if (at < header.length) {
        header(at) = b
        BloomFilterIO.decodeHeader(header, 0, header.length) match {
          case Right(h) => assert(h.numBytes >= 32 && h.numBytes % 32 == 0)
          case Left(_) => ()
        }
      }
    }
  }
}
