package sparkbloom.write

import sparkbloom.sbbf.{FilterSizing, SplitBlockBloomFilter}

/**
 * Collects one column's hashes for the current row group and produces its right-sized
 * filter when the row group ends, without knowing the distinct count in advance.
 *
 * Values go into a filter of `startBlocks` blocks; at the end it is folded to the smallest
 * block count that divides `startBlocks` and still meets the fpp, measured on its own bits
 * (folding is exact: the result equals a filter built at that size from the same hashes).
 * `startBlocks` is chosen with many divisors, and up to four times the ceiling, so that
 * the fold can land close to the optimal size (folding only divides the block count, so
 * a start at the ceiling could not land between it and half of it).
 */
final class ColumnFilterBuilder(column: BloomColumn, maxBytes: Int) {
  private val startBlocks: Int = ColumnFilterBuilder.startBlocks(column, maxBytes)
  private val maxBlocks: Int = math.max(1, maxBytes / SplitBlockBloomFilter.BytesPerBlock)
  private var filter: SplitBlockBloomFilter = null
  private var values: Long = 0

  def insert(hash: Long): Unit = {
    if (filter == null) filter = SplitBlockBloomFilter.withBlocks(startBlocks)
    filter.insert(hash)
    values += 1
  }

  /** The row group's filter, right-sized; the builder starts over for the next row group. */
  def finish(): SplitBlockBloomFilter = {
    val result =
      if (filter == null) SplitBlockBloomFilter.withBlocks(1)
      else filter.foldedToFpp(column.fpp, maxBlocks = maxBlocks)
    filter = null
    values = 0
    result
  }
}

object ColumnFilterBuilder {

  /** The most memory one column's filter may take while a row group is written. */
  val MaxCollectBytes: Int = 8 * 1024 * 1024

  /**
   * The block count to collect into: the number with the most divisors (the largest
   * among equals) at or below 4x the ceiling, at most [[MaxCollectBytes]] (but never below
   * the ceiling), and with an ndv hint at most 4x the hint's optimal size.
   */
  def startBlocks(column: BloomColumn, maxBytes: Int): Int = {
    val ceiling = math.max(1L, maxBytes.toLong / SplitBlockBloomFilter.BytesPerBlock)
    val collect = math.max(ceiling, math.min(4 * ceiling, MaxCollectBytes.toLong / SplitBlockBloomFilter.BytesPerBlock))
    val limit = column.ndvHint match {
      case Some(ndv) => math.min(collect, math.max(1L, 4 * FilterSizing.optimalNumBlocks(ndv, column.fpp)))
      case None => collect
    }
    mostDivisible(limit.toInt)
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
