// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

/**
 * Removes duplicate 64-bit hashes in place, cache-friendly: the values are first spread by
 * their top 8 bits into 256 runs (two sequential passes), then each run, small enough to
 * stay in the core's first-level cache, is sorted and deduplicated. The hashes are XXH64
 * values, uniform in every bit, so the runs are even. Sorting a row group's hashes whole,
 * or a hash table the size of a row group's distinct values, missed the caches on nearly
 * every value, and was most of what writing filters added to a write (the write benchmark,
 * bench/README.md "Writes", 2026-11-22).
 */
private[sparkbloom] final class DistinctHashes {
  private var scratch = Array.emptyLongArray
  private val runStarts = new Array[Int](257)

  /** Moves the distinct values among `values(0 until n)` to its front, ascending (unsigned); returns their count. */
  def compact(values: Array[Long], n: Int): Int = {
    if (n < 1024) return sortedDistinct(values, 0, n, values, 0)
    if (scratch.length < n) scratch = new Array[Long](values.length)
    java.util.Arrays.fill(runStarts, 0)
    var i = 0
    while (i < n) { runStarts((values(i) >>> 56).toInt + 1) += 1; i += 1 }
    var run = 0
    while (run < 256) { runStarts(run + 1) += runStarts(run); run += 1 }
    // runStarts(r) is now where run r begins; fill it, advancing a cursor per run.
    val cursor = java.util.Arrays.copyOf(runStarts, 256)
    i = 0
    while (i < n) {
      val r = (values(i) >>> 56).toInt
      scratch(cursor(r)) = values(i)
      cursor(r) += 1
      i += 1
    }
    var distinct = 0
    run = 0
    while (run < 256) {
      distinct = sortedDistinct(scratch, runStarts(run), runStarts(run + 1), values, distinct)
      run += 1
    }
    distinct
  }

  /** Sorts `from(start until end)` and appends its distinct values to `to` at `at`; returns the new end. */
  private def sortedDistinct(from: Array[Long], start: Int, end: Int, to: Array[Long], at: Int): Int = {
    java.util.Arrays.sort(from, start, end)
    var out = at
    var i = start
    while (i < end) {
      if (i == start || from(i) != from(i - 1)) { to(out) = from(i); out += 1 }
      i += 1
    }
    out
  }
}
