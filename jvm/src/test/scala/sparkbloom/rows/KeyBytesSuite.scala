// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import scala.util.Random

import org.apache.parquet.io.api.Binary
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.sbbf.XxHash64

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

  test("keys that are not byte arrays, or too many bytes of them, are not sent; each value once") {
    assert(KeyBytes.of(Seq(Binary.fromString("a"), Long.box(1L))).isEmpty)
    def halves(n: Int) =
      (1 to n).map(b => Binary.fromConstantByteArray(Array.fill(KeyBytes.MaxTotalBytes / 2)(b.toByte)))
    assert(KeyBytes.of(halves(2)).nonEmpty && KeyBytes.of(halves(3)).isEmpty)
    assert(KeyBytes.of(Seq("a", "b", "a").map(Binary.fromString)).get.values.length == 2)
    assert(KeyBytes.union(Seq(KeyBytes.of(Seq(Binary.fromString("a"))), None)).isEmpty)
    assert(KeyBytes.union(Seq(KeyBytes.of(Seq(Binary.fromString("a"))), KeyBytes.of(Seq(Binary.fromString("b")))))
      .get.values.map(_.toSeq).toSet == Set("a", "b").map(_.getBytes.toSeq))
  }

  test("rows are compared by value only with values that account for every hash, in a usable table") {
    def keys(hashed: Seq[String], values: Seq[String]) =
      RowKeys("k", hashed.map(v => XxHash64.hashBytes(v.getBytes)).toArray,
        values = KeyBytes.of(values.map(Binary.fromString)))
    assert(keys(Seq("a", "b"), Seq("a", "b")).byValue.nonEmpty)
    assert(keys(Seq("a", "b"), Seq("b", "a", "c")).byValue.nonEmpty)
    assert(keys(Seq("a", "b"), Seq("a")).byValue.isEmpty) // "b" would be missed
    assert(keys(Seq("a"), Nil).byValue.isEmpty)
    val crowded = (0 until 20).map(i => f"aaaaaaaaa$i%06dbbbbbbbbb")
    assert(keys(crowded, crowded).byValue.isEmpty)
  }
}
