// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.util.Random

import org.apache.parquet.io.api.Binary
import org.scalatest.funsuite.AnyFunSuite

/**
 * [[KeyBytes]] finds exactly its values among bytes at any offset of a page: values of every
 * length around its eight-byte reads, sharing prefixes and suffixes, the empty value; and it
 * says it is no longer usable (its lookups would be slow) when keys crowd one slot.
 */
class KeyBytesSuite extends AnyFunSuite {

  private val random = new Random(20261124)

  /** A value over a small alphabet, so that keys and other values share prefixes and suffixes. */
  private def value(): Array[Byte] = Array.fill(random.nextInt(24))("ab\u0000\u00ff".charAt(random.nextInt(4)).toByte)

  test("contains exactly its values, wherever they lie in a page") {
    (1 to 300).foreach { round =>
      val keys = Seq.fill(1 + random.nextInt(if (round % 10 == 0) 300 else 8))(value()).map(_.toSeq).distinct
      val set = KeyBytes.of(keys.map(k => Binary.fromConstantByteArray(k.toArray))).get
      val probes = Seq.fill(200)(if (random.nextInt(3) == 0) keys(random.nextInt(keys.size)) else value().toSeq)
      probes.foreach { probe =>
        val before = random.nextInt(5)
        val page = Array.fill[Byte](before)(7) ++ probe ++ Array.fill[Byte](random.nextInt(5))(9)
        assert(set.contains(page, before, probe.length) == keys.contains(probe), probe)
      }
    }
  }

  test("usable unless keys crowd one slot") {
    val spread = (0 until 1000).map(i => Binary.fromString(f"user-$i%010d"))
    assert(KeyBytes.of(spread).get.usable)
    // 24 bytes that differ only in the middle: same length, first and last eight bytes
    val middle = (0 until 20).map(i => Binary.fromString(f"aaaaaaaaa$i%06dbbbbbbbbb"))
    assert(!KeyBytes.of(middle).get.usable)
  }

  test("keys that are not byte arrays, or too many bytes of them, are not sent") {
    assert(KeyBytes.of(Seq(Binary.fromString("a"), Long.box(1L))).isEmpty)
    assert(KeyBytes.of(Seq.fill(3)(Binary.fromConstantByteArray(new Array[Byte](KeyBytes.MaxTotalBytes / 2)))).isEmpty)
    assert(KeyBytes.union(Seq(KeyBytes.of(Seq(Binary.fromString("a"))), None)).isEmpty)
    assert(KeyBytes.union(Seq(KeyBytes.of(Seq(Binary.fromString("a"))), KeyBytes.of(Seq(Binary.fromString("b")))))
      .get.values.map(_.toSeq).toSet == Set("a", "b").map(_.getBytes.toSeq))
  }
}
