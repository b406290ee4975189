// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

/**
 * What a filter's bits alone say about it: how many distinct values went in and how
 * often it will answer "maybe" for a value that did not.
 */
private[sparkbloom] object FilterEstimates {
  import SplitBlockBloomFilter.WordsPerBlock

  /**
   * The false-positive probability of the filter as it is: a random absent hash picks a
   * block uniformly and then one bit per word uniformly, so it is the average over blocks
   * of the product over words of `popcount / 32`. Exact for the bits, not a model.
   */
  def fpp(filter: SplitBlockBloomFilter): Double = foldedFpp(filter, filter.numBlocks)

  /**
   * [[fpp]] from at most `blocks` blocks spread evenly over the filter (exact for smaller
   * filters): a probe of every block of a 1 MiB filter costs about as much as reading it,
   * and the average over a few hundred blocks already tells 0.0001 from 0.01 and a saturated
   * filter from a sound one. Deterministic: the same filter always gets the same estimate.
   */
  def sampledFpp(filter: SplitBlockBloomFilter, blocks: Int = 256): Double =
    if (filter.numBlocks <= blocks) fpp(filter)
    else {
      val stride = filter.numBlocks.toDouble / blocks
      var total = 0.0
      var i = 0
      while (i < blocks) {
        total += blockFpp(filter, (i * stride).toInt)
        i += 1
      }
      total / blocks
    }

  private def blockFpp(filter: SplitBlockBloomFilter, block: Int): Double = {
    var product = 1.0
    var w = 0
    while (w < WordsPerBlock) { product *= Integer.bitCount(filter.words((block << 3) + w)) / 32.0; w += 1 }
    product
  }

  /** Whether no bit is set (stops at the first set word: a filter that holds anything answers at once). */
  def empty(filter: SplitBlockBloomFilter): Boolean = !filter.words.exists(_ != 0)

  /** [[fpp]] of `filter.foldTo(targetBlocks)`, without building the folded filter. */
  def foldedFpp(filter: SplitBlockBloomFilter, targetBlocks: Int): Double = {
    val factor = filter.numBlocks / targetBlocks
    var total = 0.0
    var target = 0
    while (target < targetBlocks) {
      var product = 1.0
      var w = 0
      while (w < WordsPerBlock) {
        var word = 0
        var source = target * factor
        while (source < (target + 1) * factor) { word |= filter.words((source << 3) + w); source += 1 }
        product *= Integer.bitCount(word) / 32.0
        w += 1
      }
      total += product
      target += 1
    }
    total / targetBlocks
  }

  /**
   * Estimated number of distinct values inserted. Each insert sets one uniformly chosen
   * bit in every word of its block, so a block with `s` of its 256 bits set has seen about
   * `ln(1 - s/256) / ln(31/32)` values; the estimate sums that over blocks. A full block
   * is counted as if one bit were still clear: the filter cannot tell more.
   */
  def distinctValues(filter: SplitBlockBloomFilter): Double = {
    val logMiss = math.log(31.0 / 32.0)
    var total = 0.0
    var block = 0
    while (block < filter.numBlocks) {
      var bits = 0
      var w = 0
      while (w < WordsPerBlock) { bits += Integer.bitCount(filter.words((block << 3) + w)); w += 1 }
      val fill = math.min(bits, 255.5) / 256.0
      total += math.log(1 - fill) / logMiss
      block += 1
    }
    total
  }
}
