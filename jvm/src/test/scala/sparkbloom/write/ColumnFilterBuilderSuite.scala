// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.sbbf.{FilterEstimates, FilterSizing, SplitBlockBloomFilter}

/**
 * Both ways the builder sizes a row group's filter (exact from buffered hashes, or
 * collected and folded), in both size modes: powers of two (the default) and exact sizes.
 */
class ColumnFilterBuilderSuite extends AnyFunSuite {

  private val column = BloomColumn(Seq("k"), fpp = 0.001, ndvHint = None)
  private val maxBytes = 1 << 20

  private def build(distinct: Int, copies: Int, seed: Long, exactSize: Boolean, col: BloomColumn = column,
      ceiling: Int = maxBytes): (SplitBlockBloomFilter, Seq[Long]) = {
    val rnd = new Random(seed)
    val hashes = Seq.fill(distinct)(rnd.nextLong())
    val builder = new ColumnFilterBuilder(col, ceiling, exactSize)
    for (_ <- 1 to copies; h <- hashes) builder.insert(h)
    (builder.finish(), hashes)
  }

  private def measuredFpp(filter: SplitBlockBloomFilter, seed: Long): Double = {
    val rnd = new Random(seed)
    val probes = 200000
    (0 until probes).count(_ => filter.mightContain(rnd.nextLong())).toDouble / probes
  }

  private def isPowerOfTwo(n: Int): Boolean = n > 0 && Integer.bitCount(n) == 1

  test("exact sizes: up to the buffer's size, duplicates included, the filter has exactly the optimal size") {
    for ((distinct, copies) <- Seq(1 -> 1, 100 -> 50, 20000 -> 3, ColumnFilterBuilder.BufferedHashes / 2 -> 2)) {
      val (filter, hashes) = build(distinct, copies, seed = distinct, exactSize = true)
      assert(filter.numBytes == FilterSizing.optimalNumBytes(distinct, column.fpp), s"$distinct distinct")
      assert(hashes.forall(filter.mightContain), s"$distinct distinct: a hash was lost")
      assert(measuredFpp(filter, 7) <= 2 * column.fpp, s"$distinct distinct")
    }
    // An exact size is what it says: 100 values at 0.001 take 7 blocks, not a power of two.
    assert(build(100, 1, 1, exactSize = true)._1.numBytes == 7 * 32)
  }

  test(
    "powers of two: from buffered hashes, the smallest power of two whose bits meet the fpp, for many counts and fpps") {
    for (fpp <- Seq(0.1, 0.01, 0.001, 0.0001); distinct <- Seq(1, 2, 3, 7, 50, 100, 333, 1000, 4097, 20000, 65536)) {
      val col = column.copy(fpp = fpp)
      val where = s"$distinct at $fpp"
      // Every value twice: the buffered count (2x distinct) sizes the start, folding finds the size.
      val (filter, hashes) = build(distinct, copies = 2, seed = distinct, exactSize = false, col = col)
      val blocks = filter.numBlocks.toLong
      assert(isPowerOfTwo(filter.numBytes), s"$where: ${filter.numBytes} bytes")
      // Its own bits meet the fpp, and those of half of it would not.
      assert(FilterEstimates.fpp(filter) <= fpp, where)
      if (blocks > 1) assert(FilterEstimates.foldedFpp(filter, filter.numBlocks / 2) > fpp, where)
      // So it is the exact model's power of two, or by chance of the bits one step off.
      val model = FilterSizing.optimalPowerOfTwoBlocks(distinct, fpp)
      assert(Seq(model / 2, model, model * 2).contains(blocks), s"$where: $blocks blocks, model $model")
      assert(hashes.forall(filter.mightContain), s"$where: a hash was lost")
    }
    // The measured fpp of a few of them, on the filters' own bits and on random probes.
    for ((distinct, fpp) <- Seq(1000 -> 0.01, 20000 -> 0.001, 65536 -> 0.0001)) {
      val (filter, _) = build(distinct, copies = 1, seed = 11, exactSize = false, col = column.copy(fpp = fpp))
      assert(FilterEstimates.fpp(filter) <= fpp * 1.1, s"$distinct at $fpp")
      assert(measuredFpp(filter, 13) <= 1.5 * fpp + 2.0 / 200000, s"$distinct at $fpp")
    }
    // 100 values at 0.001: 7 blocks exactly, 8 as a power of two.
    assert(build(100, 1, 1, exactSize = false)._1.numBytes == 8 * 32)
  }

  test("beyond the buffer, values are collected into a filter and folded, and none is lost (exact sizes)") {
    val distinct = ColumnFilterBuilder.BufferedHashes * 2
    val (filter, hashes) = build(distinct, copies = 1, seed = 3, exactSize = true)
    assert(hashes.forall(filter.mightContain))
    assert(filter.numBytes <= maxBytes && filter.numBytes >= FilterSizing.optimalNumBytes(distinct, column.fpp) / 2)
    assert(measuredFpp(filter, 9) <= 2 * column.fpp)
  }

  test("powers of two: collected and folded in halves to the smallest power of two whose bits meet the fpp") {
    val distinct = ColumnFilterBuilder.BufferedHashes * 2
    for ((fpp, ceiling) <- Seq(0.1 -> maxBytes, 0.01 -> maxBytes, 0.001 -> (4 << 20), 0.0001 -> (8 << 20))) {
      val col = column.copy(fpp = fpp)
      val (filter, hashes) = build(distinct, copies = 1, seed = 5, exactSize = false, col = col, ceiling = ceiling)
      assert(isPowerOfTwo(filter.numBytes) && filter.numBytes <= ceiling, s"fpp $fpp: ${filter.numBytes} bytes")
      assert(hashes.forall(filter.mightContain), s"fpp $fpp: a hash was lost")
      assert(FilterEstimates.fpp(filter) <= fpp, s"fpp $fpp")
      assert(FilterEstimates.foldedFpp(filter, filter.numBlocks / 2) > fpp, s"fpp $fpp: half the size would do")
      // On its own bits it lands on the model's power of two (or, by chance, one step off).
      val model = FilterSizing.optimalPowerOfTwoBlocks(distinct, fpp)
      assert(Seq(model / 2, model, model * 2).contains(filter.numBlocks.toLong),
        s"fpp $fpp: ${filter.numBlocks} vs $model")
      assert(measuredFpp(filter, 17) <= 1.5 * fpp + 2.0 / 200000, s"fpp $fpp")
    }
  }

  test("a ceiling that is not a power of two means the largest power of two below it, on both paths") {
    val ceiling = 100000 // 3125 blocks; the largest power of two of blocks within it is 2048 (65536 bytes)
    assert(ColumnFilterBuilder.maxBlocks(ceiling, exactSize = false) == 2048)
    assert(ColumnFilterBuilder.maxBlocks(ceiling, exactSize = true) == 3125)
    // buffered: 60,000 values at 0.001 want ~4,000 blocks
    val (buffered, bufferedHashes) = build(60000, 1, 1, exactSize = false, ceiling = ceiling)
    assert(buffered.numBytes == 65536)
    assert(bufferedHashes.forall(buffered.mightContain))
    // folded: 262,144 values want far more
    val (folded, foldedHashes) =
      build(ColumnFilterBuilder.BufferedHashes * 2, 1, 2, exactSize = false, ceiling = ceiling)
    assert(folded.numBytes == 65536)
    assert(foldedHashes.forall(folded.mightContain))
    // exact sizes keep the ceiling itself
    assert(build(60000, 1, 1, exactSize = true, ceiling = ceiling)._1.numBytes == 100000)
    // a ceiling below two blocks still leaves one block
    assert(build(1000, 1, 1, exactSize = false, ceiling = 63)._1.numBytes == 32)
    // and powers of two never exceed what every reader takes (128 MiB), whatever the ceiling
    assert(ColumnFilterBuilder.maxBlocks(SplitBlockBloomFilter.MaxBytes, exactSize = false).toLong * 32 ==
      SplitBlockBloomFilter.MaxPortableBytes)
  }

  test("collecting powers of two keeps the memory bound of exact sizes, and respects the ndv hint") {
    for (fpp <- Seq(0.01, 0.0001); ceiling <- Seq(32, 1000, 65536, 100000, 1 << 20, 3 << 20, 64 << 20);
      hint <- Seq(None, Some(10L), Some(100000L), Some(100000000L))) {
      val col = BloomColumn(Seq("k"), fpp, hint)
      val pow2 = ColumnFilterBuilder.startBlocks(col, ceiling, exactSize = false)
      val exact = ColumnFilterBuilder.startBlocks(col, ceiling, exactSize = true)
      val where = s"fpp $fpp, ceiling $ceiling, hint $hint"
      assert(isPowerOfTwo(pow2), where)
      // The bound exact sizes keep: the collecting filter is at most the ceiling, or 4x it
      // up to MaxCollectBytes, and at most 4x the hint's optimal size.
      val bound = math.max(ceiling.toLong, math.min(4L * ceiling, ColumnFilterBuilder.MaxCollectBytes.toLong)) / 32
      assert(pow2 <= math.max(1L, bound) && exact <= math.max(1L, bound), s"$where: $pow2 and $exact blocks vs $bound")
      assert(pow2 <= ColumnFilterBuilder.maxBlocks(ceiling, exactSize = false), where)
      hint.foreach { ndv =>
        val hinted = FilterSizing.optimalNumBlocks(ndv, fpp)
        assert(pow2 <= 4 * hinted, where)
        // the hint's own power-of-two size stays reachable by folding, unless the ceiling is lower
        assert(pow2 >= math.min(FilterSizing.optimalPowerOfTwoBlocks(ndv, fpp),
            ColumnFilterBuilder.maxBlocks(ceiling, exactSize = false)), where)
      }
    }
  }

  test("the ceiling-bound flag: set when the ceiling kept a filter above the fpp, on every path, and only then") {
    var hintBlamed = false
    def flagged(distinct: Int, copies: Int, exactSize: Boolean, ceiling: Int, col: BloomColumn = column)
        : (Boolean, SplitBlockBloomFilter) = {
      val rnd = new Random(distinct.toLong + ceiling)
      val hashes = Seq.fill(distinct)(rnd.nextLong())
      val builder = new ColumnFilterBuilder(col, ceiling, exactSize)
      for (_ <- 1 to copies; h <- hashes) builder.insert(h)
      val filter = builder.finish()
      assert(hashes.forall(filter.mightContain), s"$distinct values, exact $exactSize: a hash was lost")
      hintBlamed = builder.ndvHintTooLow
      (builder.ceilingBound, filter)
    }
    val collected = ColumnFilterBuilder.BufferedHashes * 2
    for (exactSize <- Seq(false, true)) {
      // buffered (20,000 values) and collected (262,144) row groups, each at a ceiling far too small
      for (distinct <- Seq(20000, collected)) {
        val (bound, filter) = flagged(distinct, 1, exactSize, ceiling = 4096)
        assert(bound && !hintBlamed && FilterEstimates.fpp(filter) > column.fpp, s"$distinct values, exact $exactSize")
        // and at a ceiling with room to spare
        val (roomy, fits) = flagged(distinct, 1, exactSize, ceiling = 8 << 20)
        assert(!roomy && !hintBlamed && FilterEstimates.fpp(fits) <= column.fpp * 1.1, s"$distinct, exact $exactSize")
      }
      // a hint far too low starts the collecting filter small: the fpp is missed because of
      // the hint, which is blamed instead of the ceiling (8 MiB)
      val hinted = column.copy(ndvHint = Some(1000L))
      val (blamed, small) = flagged(collected, 1, exactSize, ceiling = 8 << 20, col = hinted)
      assert(!blamed && hintBlamed && FilterEstimates.fpp(small) > column.fpp, s"hinted, exact $exactSize")
      // a right hint is blamed for nothing
      val (rightHint, meets) = flagged(collected, 1, exactSize, ceiling = 8 << 20,
        col = column.copy(ndvHint = Some(
          collected.toLong)))
      assert(!rightHint && !hintBlamed && FilterEstimates.fpp(meets) <= column.fpp * 1.1,
        s"right hint, exact $exactSize")
    }
  }

  test("a buffer that filled with duplicates still gets the small filter its few distinct values want") {
    val copies = 3 * ColumnFilterBuilder.BufferedHashes / 1000 // 393 copies of 1,000 values: the buffer fills
    val (filter, hashes) = build(1000, copies, seed = 21, exactSize = false)
    val model = FilterSizing.optimalPowerOfTwoBlocks(1000, column.fpp)
    assert(Seq(model / 2, model).contains(filter.numBlocks.toLong), s"${filter.numBlocks} blocks, model $model")
    assert(hashes.forall(filter.mightContain))
  }

  test("a row group without values gets the smallest filter, and the builder starts over") {
    for (exactSize <- Seq(true, false)) {
      val builder = new ColumnFilterBuilder(column, maxBytes, exactSize)
      assert(builder.finish().numBytes == SplitBlockBloomFilter.BytesPerBlock)
      builder.insert(42L)
      val first = builder.finish()
      assert(first.mightContain(42L))
      builder.insert(43L)
      val second = builder.finish()
      assert(second.mightContain(43L) && second.numBytes == first.numBytes)
    }
  }
}
