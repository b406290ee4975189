// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

/**
 * Sizing under the exact model of a split block Bloom filter.
 *
 * With `n` distinct values hashed into `z` blocks, the number of values landing in one
 * block is Poisson(`n / z`); a block holding `k` values answers a random absent value
 * "maybe" with probability `(1 - (31/32)^k)^8` (each of the 8 words has `k` of its 32 bits
 * chosen at random). The filter's false-positive probability is the Poisson average of
 * that. The spec's closed formula `-8 / ln(1 - p^(1/8))` ignores the uneven block loads and
 * undershoots (9.7 instead of 10.5 bits per value at 1 %), so it is not used for sizing.
 */
private[sparkbloom] object FilterSizing {
  import SplitBlockBloomFilter.{BytesPerBlock, MaxBytes, MinBytes}

  private val LogMissPerWord = math.log(31.0 / 32.0)

  def falsePositiveProbability(distinctValues: Long, numBlocks: Long): Double = {
    require(distinctValues >= 0, s"distinct values must be >= 0, got $distinctValues")
    require(numBlocks >= 1, s"block count must be >= 1, got $numBlocks")
    if (distinctValues == 0) return 0.0
    poissonAverage(distinctValues.toDouble / numBlocks, k => math.pow(1 - math.exp(k * LogMissPerWord), 8))
  }

  /** `sum_k Poisson(k; lambda) * f(k)`, summed outwards from the mode until terms vanish. */
  private def poissonAverage(lambda: Double, f: Double => Double): Double = {
    // Blocks this full answer "maybe" to everything (f is 1 within 9 sd of the mode), and past
    // 2^53 a step k + 1 would not move k: such loads come only from sizes far too small.
    if (lambda > 1e9) return f(lambda)
    val mode = math.floor(lambda)
    val pmfAtMode = math.exp(-lambda + mode * math.log(lambda) - logFactorial(mode))
    var sum = pmfAtMode * f(mode)
    var mass = pmfAtMode
    // Upwards: pmf(k+1) = pmf(k) * lambda / (k+1).
    var k = mode
    var pmf = pmfAtMode
    while (pmf > 1e-17 * mass || k < lambda + 1) {
      pmf *= lambda / (k + 1); k += 1
      sum += pmf * f(k); mass += pmf
    }
    // Downwards: pmf(k-1) = pmf(k) * k / lambda.
    k = mode
    pmf = pmfAtMode
    while (k > 0 && pmf > 1e-17 * mass) {
      pmf *= k / lambda; k -= 1
      sum += pmf * f(k); mass += pmf
    }
    sum / mass // mass is 1 up to rounding; dividing removes the truncation bias
  }

  /** ln(k!) exactly by summation for small k, Stirling's series beyond. */
  private def logFactorial(k: Double): Double =
    if (k < 32) (2 to k.toInt).foldLeft(0.0)((acc, i) => acc + math.log(i))
    else {
      val n = k + 1 // ln Gamma(n)
      (n - 0.5) * math.log(n) - n + 0.5 * math.log(2 * math.Pi) +
        1.0 / (12 * n) - 1.0 / (360 * n * n * n) + 1.0 / (1260 * math.pow(n, 5))
    }

  /** More blocks than any filter has (at most 2^26): where sizing stops counting. */
  val BeyondAnyFilter: Long = 1L << 40

  /**
   * The smallest whole number of blocks whose fpp for `distinctValues` is at most `fpp`;
   * [[BeyondAnyFilter]] when that is more than half of it (an fpp far below any filter's
   * reach, such as 1e-40, which every caller clamps to its ceiling: counting on would
   * overflow a Long).
   */
  def optimalNumBlocks(distinctValues: Long, fpp: Double): Long = {
    requireFpp(fpp)
    require(distinctValues >= 0, s"distinct values must be >= 0, got $distinctValues")
    if (distinctValues == 0) return 1L
    // fpp falls as blocks are added: double until the target is met, then bisect.
    var hi = math.min(doublingStart(distinctValues, fpp), BeyondAnyFilter)
    while (hi < BeyondAnyFilter && falsePositiveProbability(distinctValues, hi) > fpp) hi *= 2
    if (hi == BeyondAnyFilter) return BeyondAnyFilter
    var lo = hi / 2 + 1
    while (lo < hi) {
      val mid = lo + (hi - lo) / 2
      if (falsePositiveProbability(distinctValues, mid) <= fpp) hi = mid else lo = mid + 1
    }
    hi
  }

  /**
   * Where doubling may start: twice a power of two below the spec's closed-form estimate
   * that still misses `fpp` (doubling from 1 passes through it, so the result is the same,
   * and the bisection's lower bound stays a size known to miss), or 1. Sizes far below the
   * answer hold many values a block, whose Poisson sums are long: skipping them makes sizing
   * a row group's filter ~7x cheaper.
   */
  private def doublingStart(distinctValues: Long, fpp: Double): Long = {
    val closedFormBlocks = distinctValues * (-8 / math.log(1 - math.pow(fpp, 1.0 / 8))) / 256
    if (closedFormBlocks < 8) 1L
    else {
      val start = largestPowerOfTwoAtMost(math.min(closedFormBlocks / 4, BeyondAnyFilter.toDouble).toLong)
      if (falsePositiveProbability(distinctValues, start) > fpp) 2 * start else 1L
    }
  }

  /** [[optimalNumBlocks]] in bytes, clamped to `[minBytes, maxBytes]` (whole blocks). */
  def optimalNumBytes(distinctValues: Long, fpp: Double, minBytes: Int = MinBytes, maxBytes: Int = MaxBytes): Int = {
    require(minBytes >= MinBytes && maxBytes <= MaxBytes && minBytes <= maxBytes,
      s"size bounds must satisfy $MinBytes <= min ($minBytes) <= max ($maxBytes) <= $MaxBytes")
    val maxBlocks = maxBytes / BytesPerBlock
    val minBlocks = (minBytes + BytesPerBlock - 1) / BytesPerBlock
    val blocks = math.max(minBlocks.toLong, math.min(maxBlocks.toLong, optimalNumBlocks(distinctValues, fpp)))
    (blocks * BytesPerBlock).toInt
  }

  /**
   * The smallest power-of-two block count whose fpp for `distinctValues` is at most `fpp`.
   * fpp only falls as blocks are added, so it is [[optimalNumBlocks]] rounded up to a
   * power of two. Arrow C++ (`BlockSplitBloomFilter::Init`) and Velox refuse any other
   * bitset length, so this is what writes produce unless exact sizes are asked for.
   */
  def optimalPowerOfTwoBlocks(distinctValues: Long, fpp: Double): Long =
    nextPowerOfTwo(optimalNumBlocks(distinctValues, fpp))

  /**
   * [[optimalPowerOfTwoBlocks]] in bytes, within `[minBytes, maxBytes]`: the bounds are
   * narrowed to the powers of two inside them (`maxBytes` becomes the largest power of two
   * at most `maxBytes`; the ceiling wins when no power of two of blocks fits both bounds).
   */
  def optimalPowerOfTwoBytes(distinctValues: Long, fpp: Double, minBytes: Int, maxBytes: Int): Int = {
    require(minBytes >= MinBytes && maxBytes <= MaxBytes && minBytes <= maxBytes,
      s"size bounds must satisfy $MinBytes <= min ($minBytes) <= max ($maxBytes) <= $MaxBytes")
    val maxBlocks = largestPowerOfTwoAtMost(maxBytes / BytesPerBlock)
    val minBlocks = nextPowerOfTwo((minBytes + BytesPerBlock - 1) / BytesPerBlock)
    val blocks = math.min(maxBlocks, math.max(minBlocks, optimalPowerOfTwoBlocks(distinctValues, fpp)))
    (blocks * BytesPerBlock).toInt
  }

  /** The floor of the default ceiling: what small row groups may still use. */
  val MinDefaultCeiling: Int = 1024 * 1024

  /**
   * The default ceiling of one column chunk's filter in a row group of `rowGroupBytes`:
   * 1/16 of the row group, a power of two, at least 1 MiB and at most the largest filter every
   * reader reads. Spark's default 128 MB row groups get 8 MiB, room for the 1.25 M distinct
   * keys such a row group holds at fpp 0.0001 (4 MiB) while a filter never adds more than
   * ~6 % to its row group (bench/README.md, "Row groups of 128 MB: the default ceiling").
   */
  def rowGroupCeiling(rowGroupBytes: Long): Int = {
    val share = largestPowerOfTwoAtMost(math.max(1L, rowGroupBytes / 16))
    math.min(math.max(share, MinDefaultCeiling.toLong), 128L * 1024 * 1024).toInt
  }

  private[sparkbloom] def nextPowerOfTwo(n: Long): Long = {
    require(n >= 1 && n <= (1L << 62), s"no power of two to round $n up to")
    if (java.lang.Long.bitCount(n) == 1) n else java.lang.Long.highestOneBit(n) << 1
  }

  private[sparkbloom] def largestPowerOfTwoAtMost(n: Long): Long = {
    require(n >= 1, s"no power of two is at most $n")
    java.lang.Long.highestOneBit(n)
  }

  private[sparkbloom] def requireFpp(fpp: Double): Unit =
    require(fpp > 0 && fpp < 1, s"fpp must be strictly between 0 and 1, got $fpp")
}
