// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import java.io.{ByteArrayInputStream, ByteArrayOutputStream}

import org.apache.parquet.format._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class BloomFilterHeaderCodecSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def parquetHeader(numBytes: Int): Array[Byte] = {
    val header = new BloomFilterHeader(numBytes, BloomFilterAlgorithm.BLOCK(new SplitBlockAlgorithm()),
      BloomFilterHash.XXHASH(new XxHash()), BloomFilterCompression.UNCOMPRESSED(new Uncompressed()))
    val out = new ByteArrayOutputStream()
    Util.writeBloomFilterHeader(header, out)
    out.toByteArray
  }

  test("our header is byte-identical to parquet-format's and both read each other") {
    forAll(Gen.choose(1, Int.MaxValue / 32)) { blocks =>
      val numBytes = blocks * 32
      val ours = BloomFilterHeaderCodec.encode(numBytes)
      assert(ours sameElements parquetHeader(numBytes))
      assert(Util.readBloomFilterHeader(new ByteArrayInputStream(ours)).getNumBytes == numBytes)
      assert(BloomFilterHeaderCodec.decode(ours) == Right(BloomFilterHeaderCodec.Header(numBytes, ours.length)))
    }
  }

  test("a header followed by its bitset decodes to the header's length") {
    val bytes = BloomFilterHeaderCodec.encode(64) ++ new Array[Byte](64)
    assert(BloomFilterHeaderCodec.decode(bytes).map(_.headerLength) == Right(bytes.length - 64))
  }

  test("every truncation is rejected, never thrown") {
    val full = BloomFilterHeaderCodec.encode(1 << 20)
    for (n <- 0 until full.length) {
      assert(BloomFilterHeaderCodec.decode(full.take(n)).isLeft, s"prefix of $n bytes")
    }
  }

  test("numBytes negative, zero, not a multiple of 32, or 2^31-1 is rejected") {
    for (bad <- Seq(-32, -1, 0, 31, 33, 100, Int.MaxValue, Int.MinValue)) {
      val result = BloomFilterHeaderCodec.decode(parquetHeader(bad))
      assert(result.isLeft, s"numBytes $bad: $result")
    }
  }

  test("unknown algorithm, hash or compression is rejected") {
    val valid = BloomFilterHeaderCodec.encode(32)
    // Each union's member struct follows a 0x1c 0x1c pair; member id 2 is delta 2: 0x2c.
    val unionStarts = valid.indices.filter(i => i + 1 < valid.length && valid(i) == 0x1c && valid(i + 1) == 0x1c)
    assert(unionStarts.size == 3)
    for ((start, what) <- unionStarts.zip(Seq("algorithm", "hash", "compression"))) {
      val changed = valid.clone()
      changed(start + 1) = 0x2c
      val result = BloomFilterHeaderCodec.decode(changed)
      assert(result.left.exists(_.reason.contains(what)), s"$what: $result")
    }
  }

  test("unknown fields are skipped as thrift requires") {
    // field 5: binary "hi", field 6: list of two i32 -- then the usual stop.
    val valid = BloomFilterHeaderCodec.encode(96)
    val extra = Array[Byte](0x18, 2, 'h', 'i', 0x19, 0x25, 2, 4)
    val withExtra = valid.dropRight(1) ++ extra ++ Array[Byte](0)
    assert(BloomFilterHeaderCodec.decode(withExtra).map(_.numBytes) == Right(96))
  }

  test("random garbage never throws") {
    forAll(Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue))) { bytes =>
      BloomFilterHeaderCodec.decode(bytes.toArray) // Left or Right, no exception
      val mutated = BloomFilterHeaderCodec.encode(4096) ++ bytes
      assert(BloomFilterHeaderCodec.decode(mutated).isRight)
    }
    forAll(Gen.choose(0, 20), Gen.choose(Byte.MinValue, Byte.MaxValue)) { (at, b) =>
      val header = BloomFilterHeaderCodec.encode(4096)
      if (at < header.length) {
        header(at) = b
        BloomFilterHeaderCodec.decode(header) match {
          case Right(h) => assert(h.numBytes >= 32 && h.numBytes % 32 == 0)
          case Left(_) => ()
        }
      }
    }
  }
}
