// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import java.nio.{ByteBuffer, ByteOrder}

/**
 * A Parquet split block Bloom filter: `numBlocks` blocks of eight 32-bit words.
 *
 * Bit-compatible with the Parquet spec and parquet-java's `BlockSplitBloomFilter`: the
 * block is chosen by the high 32 bits of the hash, `((h >>> 32) * numBlocks) >>> 32`,
 * and the low 32 bits set one bit in each of the block's words through eight odd salts.
 * Any block count up to what the header's i32 `numBytes` can describe is allowed here;
 * writes keep to powers of two (as parquet-java does) unless asked for exact sizes, as Arrow
 * C++ and Velox reject other lengths (parquet-java, DuckDB and arrow-rs read any).
 *
 * Not thread-safe for `insert`; `mightContain` may run from many threads once filled.
 */
private[sparkbloom] final class SplitBlockBloomFilter private (private[sbbf] val words: Array[Int]) {
  import SplitBlockBloomFilter._

  val numBlocks: Int = words.length >>> 3

  def numBytes: Int = words.length * 4

  def insert(hash: Long): Unit = {
    val base = blockIndex(hash, numBlocks) << 3
    val key = hash.toInt
    // Unrolled: the JIT keeps the eight salts in registers and the words in one cache line.
    words(base) |= 1 << ((key * Salt0) >>> 27)
    words(base + 1) |= 1 << ((key * Salt1) >>> 27)
    words(base + 2) |= 1 << ((key * Salt2) >>> 27)
    words(base + 3) |= 1 << ((key * Salt3) >>> 27)
    words(base + 4) |= 1 << ((key * Salt4) >>> 27)
    words(base + 5) |= 1 << ((key * Salt5) >>> 27)
    words(base + 6) |= 1 << ((key * Salt6) >>> 27)
    words(base + 7) |= 1 << ((key * Salt7) >>> 27)
  }

  /** False only when the value whose hash is `hash` was certainly never inserted. */
  def mightContain(hash: Long): Boolean = {
    val base = blockIndex(hash, numBlocks) << 3
    val key = hash.toInt
    // Stops at the first missing bit: most probes in pruning are for absent values.
    (words(base) & (1 << ((key * Salt0) >>> 27))) != 0 &&
    (words(base + 1) & (1 << ((key * Salt1) >>> 27))) != 0 &&
    (words(base + 2) & (1 << ((key * Salt2) >>> 27))) != 0 &&
    (words(base + 3) & (1 << ((key * Salt3) >>> 27))) != 0 &&
    (words(base + 4) & (1 << ((key * Salt4) >>> 27))) != 0 &&
    (words(base + 5) & (1 << ((key * Salt5) >>> 27))) != 0 &&
    (words(base + 6) & (1 << ((key * Salt6) >>> 27))) != 0 &&
    (words(base + 7) & (1 << ((key * Salt7) >>> 27))) != 0
  }

  /**
   * This filter at `targetBlocks` blocks, a power-of-two multiple or divisor of its own
   * count: smaller by folding ([[foldTo]]), larger by repeating each block `c` times,
   * which is exact for the same reason folding is: block `b` of `z * c` blocks is block
   * `b / c` of `z` blocks. A table index lines up filters of many sizes this way.
   */
  def resizedTo(targetBlocks: Int): SplitBlockBloomFilter =
    if (targetBlocks <= numBlocks) foldTo(targetBlocks)
    else {
      require(targetBlocks % numBlocks == 0, s"cannot resize $numBlocks blocks to $targetBlocks: it must be a multiple")
      val factor = targetBlocks / numBlocks
      val grown = new Array[Int](targetBlocks * WordsPerBlock)
      for (block <- 0 until targetBlocks)
        System.arraycopy(words, (block / factor) << 3, grown, block << 3, WordsPerBlock)
      new SplitBlockBloomFilter(grown)
    }

  /**
   * This filter folded to `targetBlocks` blocks, which must divide `numBlocks`. Block `b` of
   * `z` blocks lands in block `b / c` of `z / c` blocks, because
   * `floor(floor(x * z / 2^32) / c) == floor(x * (z / c) / 2^32)`. So OR-ing each run of
   * `c` consecutive blocks gives exactly the filter that inserting the same hashes into
   * `z / c` blocks would give: folding loses nothing a smaller filter would have kept.
   */
  def foldTo(targetBlocks: Int): SplitBlockBloomFilter = {
    require(targetBlocks >= 1 && numBlocks % targetBlocks == 0,
      s"cannot fold $numBlocks blocks to $targetBlocks: it must divide the block count")
    if (targetBlocks == numBlocks) return new SplitBlockBloomFilter(words.clone())
    val factor = numBlocks / targetBlocks
    val folded = new Array[Int](targetBlocks * WordsPerBlock)
    var block = 0
    while (block < numBlocks) {
      val from = block << 3
      val to = (block / factor) << 3
      var w = 0
      while (w < WordsPerBlock) { folded(to + w) |= words(from + w); w += 1 }
      block += 1
    }
    new SplitBlockBloomFilter(folded)
  }

  /**
   * The smallest fold to a divisor of the block count within `[minBlocks, maxBlocks]` whose
   * fpp, measured on its own bits, is at most `targetFpp`; else the largest allowed fold (the
   * ceiling wins over the fpp, as in parquet-java). This filter itself when no fold is smaller.
   */
  def foldedToFpp(targetFpp: Double, minBlocks: Int = 1, maxBlocks: Int = Int.MaxValue): SplitBlockBloomFilter = {
    FilterSizing.requireFpp(targetFpp)
    val allowed = divisors(numBlocks).filter(_ <= maxBlocks)
    val candidates = Some(allowed.filter(_ >= minBlocks)).filter(_.nonEmpty).getOrElse(IndexedSeq(allowed.last))
    // The fpp of a fold grows as the fold gets smaller; binary search over the sorted
    // divisors for the smallest that still meets the target.
    var lo = 0
    var hi = candidates.length - 1 // the largest allowed: the fallback
    // A filter sized for its values rarely folds at all: one look settles that case.
    if (hi > 0) {
      if (FilterEstimates.foldedFpp(this, candidates(hi - 1)) > targetFpp) lo = hi else hi -= 1
    }
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (FilterEstimates.foldedFpp(this, candidates(mid)) <= targetFpp) hi = mid else lo = mid + 1
    }
    if (candidates(hi) == numBlocks) this else foldTo(candidates(hi))
  }

  /** The on-disk bitset: the words in little-endian order, `numBytes` bytes. */
  def toBitset: Array[Byte] = {
    val buffer = ByteBuffer.allocate(numBytes).order(ByteOrder.LITTLE_ENDIAN)
    buffer.asIntBuffer().put(words)
    buffer.array()
  }

  override def equals(other: Any): Boolean = other match {
    case that: SplitBlockBloomFilter => java.util.Arrays.equals(words, that.words)
    case _ => false
  }

  override def hashCode(): Int = java.util.Arrays.hashCode(words)

  override def toString: String = s"SplitBlockBloomFilter($numBlocks blocks, $numBytes bytes)"
}

private[sparkbloom] object SplitBlockBloomFilter {
  val BytesPerBlock: Int = 32
  val WordsPerBlock: Int = 8

  val MinBytes: Int = BytesPerBlock

  /** The largest bitset the header's i32 `numBytes` can describe, in whole blocks. */
  val MaxBytes: Int = Int.MaxValue / BytesPerBlock * BytesPerBlock

  /**
   * The largest bitset every reader takes: parquet-java ignores a filter above 128 MiB
   * (`BlockSplitBloomFilter.UPPER_BOUND_BYTES`) and Arrow C++ and Velox reject one.
   */
  val MaxPortableBytes: Int = 128 * 1024 * 1024

  /** parquet-java's default ceiling, and ours when nothing else is asked for. */
  val DefaultMaxBytes: Int = 128 * 1024 * 1024

  // The spec's eight odd salts, one per word.
  private final val Salt0 = 0x47b6137b
  private final val Salt1 = 0x44974d91
  private final val Salt2 = 0x8824ad5b
  private final val Salt3 = 0xa2b7289d
  private final val Salt4 = 0x705495c7
  private final val Salt5 = 0x2df1424b
  private final val Salt6 = 0x9efc4947
  private final val Salt7 = 0x5c6bfb31

  private val SaltArray: Array[Int] = Array(Salt0, Salt1, Salt2, Salt3, Salt4, Salt5, Salt6, Salt7)

  /** Block of `hash` among `numBlocks`: the spec's multiply-shift of the high 32 bits. */
  @inline def blockIndex(hash: Long, numBlocks: Int): Int =
    (((hash >>> 32) * numBlocks.toLong) >>> 32).toInt

  /** The spec's `mask(x)`: one bit per word, chosen by the salted low 32 bits of the hash. */
  def mask(hash: Long): Array[Int] = {
    val key = hash.toInt
    SaltArray.map(salt => 1 << ((key * salt) >>> 27))
  }

  /** [[mightContain]] for a block already chosen: the 32-byte block at `offset` of on-disk `bytes`. */
  def blockMightContain(bytes: Array[Byte], offset: Int, hash: Long): Boolean = {
    val key = hash.toInt
    var w = 0
    while (w < WordsPerBlock) {
      val at = offset + 4 * w
      val word =
        (bytes(at) & 0xff) | (bytes(at + 1) & 0xff) << 8 | (bytes(at + 2) & 0xff) << 16 | (bytes(at + 3) & 0xff) << 24
      if ((word & (1 << ((key * SaltArray(w)) >>> 27))) == 0) return false
      w += 1
    }
    true
  }

  def withBlocks(numBlocks: Int): SplitBlockBloomFilter = {
    require(numBlocks >= 1 && numBlocks <= MaxBytes / BytesPerBlock,
      s"block count must be between 1 and ${MaxBytes / BytesPerBlock}, got $numBlocks")
    new SplitBlockBloomFilter(new Array[Int](numBlocks * WordsPerBlock))
  }

  /**
   * An empty filter of the smallest size meeting `fpp` for `distinctValues` ([[FilterSizing]]),
   * within `[minBytes, maxBytes]`: any whole number of blocks, or (`powerOfTwo...`) a power of
   * two of blocks, the only sizes every reader accepts (Arrow C++ and Velox reject others).
   */
  def forDistinctValues(distinctValues: Long, fpp: Double, minBytes: Int = MinBytes,
      maxBytes: Int = DefaultMaxBytes): SplitBlockBloomFilter =
    withBlocks(FilterSizing.optimalNumBytes(distinctValues, fpp, minBytes, maxBytes) / BytesPerBlock)

  def powerOfTwoForDistinctValues(distinctValues: Long, fpp: Double, minBytes: Int = MinBytes,
      maxBytes: Int = DefaultMaxBytes): SplitBlockBloomFilter =
    withBlocks(FilterSizing.optimalPowerOfTwoBytes(distinctValues, fpp, minBytes, maxBytes) / BytesPerBlock)

  /**
   * A filter over an on-disk bitset (little-endian words). The length must be a positive
   * multiple of 32 bytes; anything else is not a filter this format can hold.
   */
  def fromBitset(bitset: Array[Byte]): SplitBlockBloomFilter = fromBitset(bitset, 0, bitset.length)

  def fromBitset(bytes: Array[Byte], offset: Int, length: Int): SplitBlockBloomFilter = {
    require(length >= BytesPerBlock && length % BytesPerBlock == 0,
      s"a bitset must be a positive multiple of $BytesPerBlock bytes, got $length")
    val words = new Array[Int](length / 4)
    ByteBuffer.wrap(bytes, offset, length).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(words)
    new SplitBlockBloomFilter(words)
  }

  /** The divisors of `n` in ascending order (the block counts `n` blocks can fold to). */
  private[sbbf] def divisors(n: Int): IndexedSeq[Int] = {
    val small = (1 to math.sqrt(n.toDouble).toInt).filter(n % _ == 0)
    (small ++ small.map(n / _)).distinct.sorted
  }
}
