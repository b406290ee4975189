// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import sparkbloom.sbbf.{FilterEstimates, FilterSizing, SplitBlockBloomFilter}

/**
 * Collects one column's hashes for the current row group and produces its right-sized
 * filter when the row group ends, without knowing the distinct count in advance.
 *
 * Sizes are powers of two of blocks by default, because Arrow C++ and Velox refuse any other
 * bitset length (ClickHouse up to 25.8, which reads filters through Arrow C++, fails whole
 * queries on them); with `exactSize` any whole number of blocks, which parquet-java, DuckDB,
 * arrow-rs, ClickHouse 26.9 and sparkbloom were tested to read (docs/compatibility.md).
 *
 * Up to [[ColumnFilterBuilder.BufferedHashes]] hashes are kept ([[DistinctHashes]] drops
 * duplicates when the buffer fills). At the end, exact sizes come from their distinct count;
 * powers of two from their count, which bounds it, and are then folded as below (a buffer
 * already deduplicated is counted first: its duplicates would size a filter far too large).
 * Memory stays at most twice the buffer (1 MiB, and as much scratch space for deduplicating)
 * plus a filter of the buffer's size.
 *
 * A buffer more than half distinct moves the row group to a filter of `startBlocks` blocks,
 * folded at the end to the smallest divisor of `startBlocks` whose own bits meet the fpp
 * (folding is exact: the result equals a filter built at that size from the same hashes);
 * [[ColumnFilterBuilder.startBlocks]] says how the start is chosen.
 */
private[sparkbloom] final class ColumnFilterBuilder(column: BloomColumn, maxBytes: Int, exactSize: Boolean) {
  import ColumnFilterBuilder.BufferedHashes

  private val maxBlocks: Int = ColumnFilterBuilder.maxBlocks(maxBytes, exactSize)
  private val startBlocks: Int = ColumnFilterBuilder.startBlocks(column, maxBytes, exactSize)
  private var hashes: Array[Long] = new Array[Long](1024)
  private var buffered: Int = 0
  private val deduplicator = new DistinctHashes
  private var filter: SplitBlockBloomFilter = null
  private var deduplicated = false
  private var bound = false
  private var hintTooLow = false
  // An ndv hint may start the collecting filter below what the ceiling allows; a filter
  // that then misses the fpp does so because of the hint, not the ceiling.
  private val startLimitedByHint: Boolean = column.ndvHint.isDefined &&
    startBlocks < ColumnFilterBuilder.startBlocks(column.copy(ndvHint = None), maxBytes, exactSize)

  /** Whether the last finished filter misses the fpp because of the ceiling (too many distinct values for it). */
  def ceilingBound: Boolean = bound

  /** Whether the last finished filter misses the fpp because the ndv hint started its collecting filter small. */
  def ndvHintTooLow: Boolean = hintTooLow

  def insert(hash: Long): Unit = {
    if (filter == null && buffered == hashes.length) makeRoom()
    if (filter != null) filter.insert(hash)
    else { hashes(buffered) = hash; buffered += 1 }
  }

  /** Grows the buffer, or drops duplicates, or (too many distinct hashes) moves to a filter. */
  private def makeRoom(): Unit =
    if (hashes.length < BufferedHashes)
      hashes = java.util.Arrays.copyOf(hashes, math.min(BufferedHashes, 2 * hashes.length))
    else {
      buffered = distinctCount()
      deduplicated = true
      if (buffered > BufferedHashes / 2) {
        filter = insertBuffered(SplitBlockBloomFilter.withBlocks(startBlocks), buffered)
        buffered = 0
      }
    }

  /** Removes duplicates from the buffered hashes; returns how many remain. */
  private def distinctCount(): Int = deduplicator.compact(hashes, buffered)

  /** The row group's filter, right-sized; the builder starts over for the next row group. */
  def finish(): SplitBlockBloomFilter = {
    val result =
      if (filter != null)
        foldedToFpp(filter, ceilingLimited = !startLimitedByHint, hintLimited = startLimitedByHint)
      else if (buffered == 0) { bound = false; hintTooLow = false; SplitBlockBloomFilter.withBlocks(1) }
      else if (exactSize) {
        val distinct = distinctCount()
        val ceiling = maxBlocks * SplitBlockBloomFilter.BytesPerBlock
        val sized = SplitBlockBloomFilter.forDistinctValues(distinct, column.fpp, maxBytes = ceiling)
        // Below the ceiling the size met the fpp; only a filter at it may be bound by it.
        bound = sized.numBlocks >= maxBlocks && FilterSizing.optimalNumBlocks(distinct, column.fpp) > maxBlocks
        hintTooLow = false
        insertBuffered(sized, distinct)
      } else {
        // The count bounds the distinct count, so a power of two sized for it meets the fpp;
        // folding then finds the smallest power of two whose bits still meet it, which for
        // unique keys is that same size. No hash is sorted, unless the buffer filled.
        val count = if (deduplicated) distinctCount() else buffered
        val wanted = FilterSizing.optimalPowerOfTwoBlocks(count, column.fpp)
        val start = SplitBlockBloomFilter.withBlocks(math.min(maxBlocks.toLong, wanted).toInt)
        foldedToFpp(insertBuffered(start, count), ceilingLimited = wanted > maxBlocks, hintLimited = false)
      }
    filter = null
    buffered = 0
    deduplicated = false
    result
  }

  private def insertBuffered(target: SplitBlockBloomFilter, count: Int): SplitBlockBloomFilter = {
    var i = 0
    while (i < count) { target.insert(hashes(i)); i += 1 }
    target
  }

  /**
   * The smallest allowed fold of `collected` whose own bits meet the fpp, else the largest,
   * kept small by what limited `collected`: the ceiling (`ceilingLimited`: it was as large
   * as the ceiling let it be) or the ndv hint (`hintLimited`).
   */
  private def foldedToFpp(
      collected: SplitBlockBloomFilter, ceilingLimited: Boolean, hintLimited: Boolean): SplitBlockBloomFilter = {
    val folded = collected.foldedToFpp(column.fpp, maxBlocks = maxBlocks)
    val missed = (ceilingLimited || hintLimited) && FilterEstimates.fpp(folded) > column.fpp
    bound = missed && ceilingLimited
    hintTooLow = missed && hintLimited
    folded
  }
}

private[sparkbloom] object ColumnFilterBuilder {

  /** The most memory one column's filter may take while a row group is written. */
  val MaxCollectBytes: Int = 8 * 1024 * 1024

  /** Distinct hashes kept before collecting into a filter instead (1 MiB of hashes). */
  val BufferedHashes: Int = 128 * 1024

  /**
   * The largest block count a finished filter may have: the ceiling in whole blocks, or
   * for power-of-two sizes the largest power of two of blocks within both the ceiling and
   * [[SplitBlockBloomFilter.MaxPortableBytes]] (which no reader refuses).
   */
  def maxBlocks(maxBytes: Int, exactSize: Boolean): Int = {
    val ceiling = math.max(1L, maxBytes.toLong / SplitBlockBloomFilter.BytesPerBlock)
    if (exactSize) ceiling.toInt
    else FilterSizing.largestPowerOfTwoAtMost(
      math.min(ceiling, SplitBlockBloomFilter.MaxPortableBytes / SplitBlockBloomFilter.BytesPerBlock)).toInt
  }

  /**
   * The block count to collect into once the buffer overflows; folding can only divide it.
   *
   * Power-of-two sizes: the largest power of two at most [[maxBlocks]], and with an ndv
   * hint at most 4x the hint's optimal size: within the bounds exact sizes keep, and since
   * the ceiling is a power of two, folding in halves reaches every allowed size.
   *
   * Exact sizes: the number with the most divisors (the largest among equals) at or below
   * 4x the ceiling, at most [[MaxCollectBytes]] (but never below the ceiling), and with an
   * ndv hint at most 4x the hint's optimal size, so that the fold can land close to the
   * optimal size (a start at the ceiling could not land between it and half of it).
   */
  def startBlocks(column: BloomColumn, maxBytes: Int, exactSize: Boolean): Int = {
    val hinted = column.ndvHint.map(ndv => math.max(1L, 4 * FilterSizing.optimalNumBlocks(ndv, column.fpp)))
    if (!exactSize) {
      val limit = math.min(maxBlocks(maxBytes, exactSize).toLong, hinted.getOrElse(Long.MaxValue))
      FilterSizing.largestPowerOfTwoAtMost(limit).toInt
    } else {
      val ceiling = math.max(1L, maxBytes.toLong / SplitBlockBloomFilter.BytesPerBlock)
      val collect =
        math.max(ceiling, math.min(4 * ceiling, MaxCollectBytes.toLong / SplitBlockBloomFilter.BytesPerBlock))
      mostDivisible(math.min(collect, hinted.getOrElse(Long.MaxValue)).toInt)
    }
  }

  /** Products of small primes, the richest in divisors at or below `limit`. */
  private[write] def mostDivisible(limit: Int): Int = {
    // Candidates 2^a * 3^b * 5^c * 7^d: enough to reach within a few percent of any size.
    val candidates = for {
      a <- 0 to 30; b <- 0 to 19; c <- 0 to 13; d <- 0 to 11
      value = math.pow(2, a) * math.pow(3, b) * math.pow(5, c) * math.pow(7, d)
      if value <= limit
    } yield value.toInt
    candidates.maxBy(v => (divisorCount(v), v))
  }

  private def divisorCount(n: Int): Int = {
    var count = 0
    var i = 1
    while (i.toLong * i <= n) {
      if (n % i == 0) count += (if (i.toLong * i == n) 1 else 2)
      i += 1
    }
    count
  }
}
