// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.hashing.LiteralProbe

class KeyNumbersSuite extends AnyFunSuite {

  private def numbers(stored: Any*): KeyNumbers = KeyNumbers.of(stored).get

  test("values compare as the bits a page stores them in, sign-extended for four bytes") {
    val ints = numbers(Int.box(-7), Int.box(42))
    assert(ints.width == 4 && ints.contains(-7L) && ints.contains(42L) && !ints.contains(0L))
    assert(!ints.contains(0xfffffff9L), "-7 is read from a page as a sign-extended int")
    val doubles = numbers(Double.box(-0.0), Double.box(1.5))
    assert(doubles.width == 8)
    assert(doubles.contains(java.lang.Double.doubleToRawLongBits(-0.0)))
    assert(!doubles.contains(java.lang.Double.doubleToRawLongBits(0.0)), "0.0 is not the stored form -0.0")
    val floats = numbers(Float.box(2.5f))
    assert(floats.contains(java.lang.Float.floatToRawIntBits(2.5f).toLong))
  }

  test("many keys are searched, few scanned: both find every key and nothing else") {
    Seq(3, 8, 9, 100).foreach { n =>
      val keys = (0 until n).map(i => Long.box(i * 1000003L - 77))
      val set = numbers(keys: _*)
      assert(keys.forall(k => set.contains(k)), n)
      assert((0 until n).forall(i => !set.contains(i * 1000003L - 76)), n)
    }
  }

  test("only numbers of one width; the hashes they cover are those of the probe's stored forms") {
    assert(KeyNumbers.of(Nil).isEmpty)
    assert(KeyNumbers.of(Seq(Int.box(1), Long.box(1L))).isEmpty)
    assert(KeyNumbers.of(Seq(Long.box(1L), org.apache.parquet.io.api.Binary.fromString("1"))).isEmpty)
    val stored = Seq(Long.box(5L), Double.box(2.0)) // same width: bits of both
    val set = KeyNumbers.of(stored).get
    assert(set.cover(stored.map(LiteralProbe.hashStored).toArray))
    assert(!set.cover(Array(LiteralProbe.hashStored(Long.box(6L)))), "a hash without its number: compare no row")
    assert(numbers(Int.box(3)).cover(Array(LiteralProbe.hashStored(Float.box(java.lang.Float.intBitsToFloat(3))))))
  }

  test("the keys of OR branches: their union, if every branch has numbers of one width") {
    val union = KeyNumbers.union(Seq(Some(numbers(Long.box(1L))), Some(numbers(Long.box(2L), Long.box(1L))))).get
    assert(union.bits.toSeq == Seq(1L, 2L))
    assert(KeyNumbers.union(Seq(Some(numbers(Long.box(1L))), None)).isEmpty)
    assert(KeyNumbers.union(Seq(Some(numbers(Long.box(1L))), Some(numbers(Int.box(1))))).isEmpty)
    assert(KeyNumbers.union(Nil).isEmpty)
  }

  test("rows keys compare numbers only where they account for every hash") {
    val stored = Seq(Long.box(10L), Long.box(20L))
    val hashes = stored.map(LiteralProbe.hashStored).toArray
    assert(RowKeys("k", hashes, numbers = KeyNumbers.of(stored)).byNumber.isDefined)
    assert(RowKeys("k", hashes :+ LiteralProbe.hashStored(Long.box(30L)), numbers = KeyNumbers.of(stored)).byNumber.isEmpty)
  }
}
