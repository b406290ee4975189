// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import org.scalatest.funsuite.AnyFunSuite

class FilterSizingSuite extends AnyFunSuite {

  // The spec's table: bits per distinct value and the fpp they give.
  private val specTable = Seq(6.0 -> 0.1, 10.5 -> 0.01, 16.9 -> 0.001, 26.4 -> 0.0001)

  test("the exact model reproduces the spec's table") {
    for ((bits, fpp) <- specTable) {
      val n = 1000000L
      val modelled = FilterSizing.falsePositiveProbability(n, math.round(n * bits / 256))
      assert(math.abs(modelled - fpp) / fpp < 0.1, s"$bits bits/value: model says $modelled, table $fpp")
    }
  }

  test("measured fpp on 1,000,000 absent keys is within 20 % of the spec's table") {
    val rnd = new scala.util.Random(2024)
    val n = 200000
    for ((bits, fpp) <- specTable) {
      val filter = SplitBlockBloomFilter.withBlocks(math.round(n * bits / 256).toInt)
      (0 until n).foreach(_ => filter.insert(XxHash64.hashLong(rnd.nextLong())))
      val absent = 1000000
      val hits = (0 until absent).count(_ => filter.mightContain(XxHash64.hashLong(rnd.nextLong())))
      val rate = hits.toDouble / absent
      info(f"$bits%.1f bits/value: measured fpp $rate%.6f (table $fpp), from bits ${FilterEstimates.fpp(filter)}%.6f")
      assert(math.abs(rate - fpp) / fpp < 0.2, s"$bits bits/value measured $rate vs $fpp")
    }
  }

  test("optimal size is the smallest block count meeting the target, not the closed formula") {
    // Wide ranges of both: the search starts near the closed formula's answer, and must
    // still land on the smallest count wherever that start falls.
    for (fpp <- Seq(0.5, 0.1, 0.01, 0.001, 0.0001, 1e-6, 1e-9);
      n <- Seq(1L, 2L, 7L, 50L, 100L, 333L, 10000L, 20000L, 65536L, 1000000L, 50000000L)) {
      val blocks = FilterSizing.optimalNumBlocks(n, fpp)
      assert(FilterSizing.falsePositiveProbability(n, blocks) <= fpp)
      if (blocks > 1) assert(FilterSizing.falsePositiveProbability(n, blocks - 1) > fpp)
    }
    // At 1 % the closed formula's 9.7 bits/value is not enough; the model asks ~10.5.
    def bitsPerValue(fpp: Double): Double = FilterSizing.optimalNumBlocks(1000000L, fpp) * 256.0 / 1000000L
    assert(math.abs(bitsPerValue(0.01) - 10.5) < 0.15)
    assert(math.abs(bitsPerValue(0.001) - 16.9) < 0.2)
  }

  test("sizes are clamped to whole blocks within the bounds") {
    assert(FilterSizing.optimalNumBytes(0, 0.01) == 32)
    assert(FilterSizing.optimalNumBytes(100000000L, 0.01, maxBytes = 1 << 20) == (1 << 20))
    assert(FilterSizing.optimalNumBytes(1000, 0.01, minBytes = 4096) == 4096)
    assert(SplitBlockBloomFilter.forDistinctValues(1000, 0.01).numBytes % 32 == 0)
    assertThrows[IllegalArgumentException](FilterSizing.optimalNumBlocks(10, 0.0))
    assertThrows[IllegalArgumentException](FilterSizing.optimalNumBlocks(10, 1.0))
    assertThrows[IllegalArgumentException](FilterSizing.optimalNumBlocks(10, Double.NaN))
  }

  test("an fpp or ndv beyond any filter's reach sizes to the largest filter, not an overflow") {
    // every fpp in (0, 1) and ndv up to Long.MaxValue is a valid option: 1e-40 used to double
    // the block count past Long.MaxValue and fail the write's tasks, and Long.MaxValue values
    // at 5e-324 to sum a Poisson whose k + 1 no longer moved k, for ever
    for (n <- Seq(1L, 1000L, Long.MaxValue); fpp <- Seq(1e-40, Double.MinPositiveValue)) {
      assert(FilterSizing.optimalNumBlocks(n, fpp) == FilterSizing.BeyondAnyFilter, s"n=$n fpp=$fpp")
      assert(FilterSizing.optimalNumBytes(n, fpp) == SplitBlockBloomFilter.MaxBytes)
      assert(FilterSizing.optimalPowerOfTwoBytes(n, fpp, 32, SplitBlockBloomFilter.MaxBytes) == (1 << 30))
    }
    assert(FilterSizing.optimalNumBlocks(Long.MaxValue, 1e-12) == FilterSizing.BeyondAnyFilter)
    val blocks = FilterSizing.optimalNumBlocks(1, 1e-20)
    assert(blocks < FilterSizing.BeyondAnyFilter && FilterSizing.falsePositiveProbability(1, blocks) <= 1e-20)
    assert(FilterSizing.falsePositiveProbability(1, blocks - 1) > 1e-20)
  }

  test(
    "power-of-two sizes: the smallest power of two of blocks meeting the target, within the powers of two of the bounds") {
    for (fpp <- Seq(0.1, 0.01, 0.001, 0.0001, 0.00001);
      n <- Seq(0L, 1L, 2L, 7L, 100L, 1000L, 12345L, 1000000L, 50000000L)) {
      val blocks = FilterSizing.optimalPowerOfTwoBlocks(n, fpp)
      assert(java.lang.Long.bitCount(blocks) == 1, s"n=$n fpp=$fpp: $blocks")
      assert(FilterSizing.falsePositiveProbability(n, blocks) <= fpp, s"n=$n fpp=$fpp")
      if (blocks > 1) assert(FilterSizing.falsePositiveProbability(n, blocks / 2) > fpp, s"n=$n fpp=$fpp")
      val exact = FilterSizing.optimalNumBlocks(n, fpp)
      assert(blocks >= exact && blocks < 2 * exact || blocks == 1, s"n=$n fpp=$fpp: $blocks vs exact $exact")
      val bytes = FilterSizing.optimalPowerOfTwoBytes(n, fpp, 32, SplitBlockBloomFilter.MaxBytes)
      assert(bytes.toLong == math.min(blocks, 1L << 25) * 32, s"n=$n fpp=$fpp")
    }
    // A ceiling that is not a power of two means the largest power of two below it.
    assert(FilterSizing.optimalPowerOfTwoBytes(100000000L, 0.01, 32, 1000000) == 524288)
    assert(FilterSizing.optimalPowerOfTwoBytes(100000000L, 0.01, 32, 1 << 20) == (1 << 20))
    assert(FilterSizing.optimalPowerOfTwoBytes(100000000L, 0.01, 32, 63) == 32)
    // A floor that is not a power of two rounds up, unless the ceiling forbids it.
    assert(FilterSizing.optimalPowerOfTwoBytes(1, 0.01, 100, 1 << 20) == 128)
    assert(FilterSizing.optimalPowerOfTwoBytes(1, 0.01, 100, 127) == 64)
    assert(SplitBlockBloomFilter.powerOfTwoForDistinctValues(1000, 0.01).numBytes == 2048)
    assert(SplitBlockBloomFilter.forDistinctValues(1000, 0.01).numBytes == 1344)
    assert(
      FilterSizing.nextPowerOfTwo(1) == 1 && FilterSizing.nextPowerOfTwo(5) == 8 && FilterSizing.nextPowerOfTwo(8) == 8)
    assert(FilterSizing.largestPowerOfTwoAtMost(1) == 1 && FilterSizing.largestPowerOfTwoAtMost(3125) == 2048)
  }

  test("estimates from the bits: distinct count and fpp") {
    val rnd = new scala.util.Random(5)
    for (n <- Seq(100, 5000, 50000)) {
      val filter = SplitBlockBloomFilter.forDistinctValues(n, 0.01)
      val hashes = Seq.fill(n)(rnd.nextLong())
      hashes.foreach(filter.insert)
      val estimate = FilterEstimates.distinctValues(filter)
      assert(math.abs(estimate - n) / n < 0.1, s"n=$n estimated $estimate")
      val absent = 200000
      val measured = (0 until absent).count(_ => filter.mightContain(rnd.nextLong())).toDouble / absent
      val fromBits = FilterEstimates.fpp(filter)
      assert(math.abs(measured - fromBits) < 0.25 * fromBits + 0.0005, s"n=$n measured $measured, bits say $fromBits")
    }
    assert(FilterEstimates.distinctValues(SplitBlockBloomFilter.withBlocks(10)) == 0.0)
    assert(FilterEstimates.fpp(SplitBlockBloomFilter.withBlocks(10)) == 0.0)
  }
}
