// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/** Lining filters up to one block count, as a table index does, loses no value. */
class ResizeSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  private val powers = Gen.choose(0, 10).map(1 << _)

  test("resizing to any power of two keeps every value; shrinking equals building smaller") {
    forAll(powers, powers, Gen.listOf(Gen.long)) { (from, to, hashes) =>
      val filter = SplitBlockBloomFilter.withBlocks(from)
      hashes.foreach(filter.insert)
      val resized = filter.resizedTo(to)
      assert(resized.numBlocks == to)
      hashes.foreach(h => assert(resized.mightContain(h)))
      if (to <= from) {
        val direct = SplitBlockBloomFilter.withBlocks(to)
        hashes.foreach(direct.insert)
        assert(resized == direct)
      } else {
        // growing repeats blocks: the false-positive probability is the same
        assert(math.abs(FilterEstimates.fpp(resized) - FilterEstimates.fpp(filter)) < 1e-12)
      }
    }
  }

  test("a block checked in place answers as the filter does") {
    forAll(powers, Gen.listOf(Gen.long), Gen.listOf(Gen.long)) { (blocks, inserted, probed) =>
      val filter = SplitBlockBloomFilter.withBlocks(blocks)
      inserted.foreach(filter.insert)
      val bits = filter.toBitset
      (inserted ++ probed).foreach { h =>
        val block = SplitBlockBloomFilter.blockIndex(h, blocks)
        assert(SplitBlockBloomFilter.blockMightContain(bits, block * 32, h) == filter.mightContain(h))
      }
    }
  }

  test("sizes that are not a multiple are refused") {
    intercept[IllegalArgumentException](SplitBlockBloomFilter.withBlocks(3).resizedTo(4))
  }
}
