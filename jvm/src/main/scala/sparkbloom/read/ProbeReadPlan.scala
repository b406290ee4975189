// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.util.concurrent.atomic.AtomicLong

/**
 * How a prober reads a file: its tail first, sized by what the files judged before it
 * needed, then the filters of a column, in reads that hold little else. On an object store
 * a read costs a round trip (tens of ms) plus its bytes: reading a few KB more to save a
 * round trip pays, reading a whole object to find a footer does not. Bounds: the bytes read
 * stay within 1.5 times the bytes needed, plus one small gap per read.
 *
 * The tail is learned per scan ([[TailSizing]]): the files of one scan were mostly written
 * alike, so from the second wave on a file is read in two reads (its footer, then its
 * filters), or in one where its filters lie next to the footer and fill that tail (parquet-java
 * writes every filter of a file together, just before the footer).
 */
private[sparkbloom] object ProbeReadPlan {

  /** The tail read before anything is known of the files: the footers of most narrow tables fit. */
  val InitialTailBytes: Int = 8 * 1024

  /** The most a tail read fetches, however large a footer and its filters were. */
  val MaxTailBytes: Int = 4 * 1024 * 1024

  /** A gap this small is read rather than paid for with a round trip. */
  val SmallGapBytes: Int = 4 * 1024

  /**
   * `wanted` in fewer reads: neighbours are merged while the merged read holds at most half
   * as many bytes again as it is wanted for, or the gap between them is small.
   */
  def coalesce(wanted: Seq[ByteRange]): Seq[ByteRange] = {
    val sorted = wanted.filter(_.length > 0).sortBy(_.offset)
    val merged = IndexedSeq.newBuilder[ByteRange]
    var current: Option[(ByteRange, Long)] = None // the read, and the wanted bytes it holds
    sorted.foreach { next =>
      current = current match {
        case Some((read, inside)) if next.offset <= read.end => // overlapping: one read
          Some(ByteRange(read.offset, (math.max(read.end, next.end) - read.offset).toInt) ->
            (inside + math.max(0L, next.end - read.end)))
        case Some((read, inside)) =>
          val joined = ByteRange(read.offset, (next.end - read.offset).toInt)
          val gap = next.offset - read.end
          if (gap <= SmallGapBytes || 2L * joined.length <= 3L * (inside + next.length)) {
            Some(joined -> (inside + next.length))
          } else {
            merged += read
            Some(next -> next.length.toLong)
          }
        case None => Some(next -> next.length.toLong)
      }
    }
    current.foreach(merged += _._1)
    merged.result()
  }

  /** What one file needed: its footer (with its 8-byte tail) and the filters it read. */
  final case class Needed(fileLength: Long, footerBytes: Long, filters: Seq[ByteRange])

  /**
   * The tail to read first from each file of one scan, learned from the files read before:
   * their footers and filters in one read where that read would have held at most half as
   * much again as each of them needed, else their footers alone (the filters then take a
   * read of their own). Filter sizes jump by powers of two between files of one table, so
   * the longest tail seen is taken only when the shortest need seen fills two thirds of it.
   */
  final class TailSizing {
    private val longestFooter = new AtomicLong(0)
    private val longestSpan = new AtomicLong(0)
    private val leastNeeded = new AtomicLong(Long.MaxValue)

    def tailBytes(fileLength: Long): ByteRange = {
      val footer = longestFooter.get
      val span = longestSpan.get
      val learned =
        if (footer == 0) InitialTailBytes.toLong
        else if (3L * leastNeeded.get >= 2L * span) span
        else footer + footer / 16 // the next file's footer may be a little longer
      val size = math.min(fileLength, math.min(MaxTailBytes.toLong, learned))
      ByteRange(fileLength - size, size.toInt)
    }

    def learn(needed: Needed): Unit = {
      val inFilters = needed.filters.map(_.length.toLong).sum
      val span =
        if (needed.filters.isEmpty) needed.footerBytes
        else math.max(needed.footerBytes, needed.fileLength - needed.filters.map(_.offset).min)
      longestFooter.accumulateAndGet(needed.footerBytes, (a, b) => math.max(a, b))
      longestSpan.accumulateAndGet(span, (a, b) => math.max(a, b))
      leastNeeded.accumulateAndGet(needed.footerBytes + inFilters, (a, b) => math.min(a, b))
    }
  }
}
