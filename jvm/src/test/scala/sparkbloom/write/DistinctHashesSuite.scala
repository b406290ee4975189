// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class DistinctHashesSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  test("keeps exactly the distinct values, short or long, skewed or not, reusing its scratch space") {
    // Small ranges repeat values; shifted ones share their top bits (one run takes them all).
    val value = Gen.oneOf(Gen.long, Gen.choose(-3L, 3L), Gen.choose(0L, 50L).map(_ << 56), Gen.choose(0L, 9L))
    val lengths = Gen.oneOf(Gen.choose(0, 40), Gen.choose(1000, 5000))
    val dedup = new DistinctHashes
    forAll(lengths.flatMap(n => Gen.listOfN(n, value))) { values =>
      val array = (values ++ Seq.fill(7)(0L)).toArray
      val kept = dedup.compact(array, values.length)
      assert(array.take(kept).toSeq.sorted == values.distinct.sorted)
      assert(array.take(kept).distinct.length == kept)
    }
  }

  test("a row group of many distinct hashes is counted exactly") {
    val rnd = new scala.util.Random(3)
    val hashes = Array.fill(100000)(rnd.nextLong())
    val withRepeats = hashes ++ hashes.take(5000)
    assert(new DistinctHashes().compact(withRepeats, withRepeats.length) == hashes.distinct.length)
  }
}
