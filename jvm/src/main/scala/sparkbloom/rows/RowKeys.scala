// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

/**
 * What a row of one judged file must hold to match the scan's point predicate: in file
 * column `column` (a dotted path, as the driver's judge resolved it), a value whose
 * plain-encoding hash is one of `hashes` (those the judge probed the column's filters for).
 * It is the filters' own test, asked of one row instead of a row group, so a task may read
 * that column first and decode the others only for the rows that pass ([[MatchingRowsReader]]),
 * in row groups whose requested columns hold at least `minRowGroupBytes` uncompressed bytes.
 * For byte-array columns `values`, for number columns `numbers`, may hold the probed values
 * themselves (whose hashes are `hashes`), so that a row's value is compared rather than hashed.
 */
private[sparkbloom] final case class RowKeys(column: String, hashes: Array[Long], minRowGroupBytes: Long = 0,
    values: Option[KeyBytes] = None, numbers: Option[KeyNumbers] = None) {
  private val sorted = hashes.sorted

  def contains(hash: Long): Boolean = java.util.Arrays.binarySearch(sorted, hash) >= 0

  /**
   * The values to compare a row's bytes with instead of hashing them: only if looking them up
   * stays fast and they account for every hash: then comparing finds every row whose value is
   * a key (a value that only shares a key's hash is not one).
   */
  @transient lazy val byValue: Option[KeyBytes] = values.filter(v => v.usable && KeyBytes.cover(v, hashes))

  /** The same for numbers: compared as the bits a page stores, if they account for every hash. */
  @transient lazy val byNumber: Option[KeyNumbers] = numbers.filter(_.cover(hashes))
}

private[sparkbloom] object RowKeys {

  /** More hashes than this are not sent with each file to the tasks (a join's keys can be thousands). */
  val MaxHashes = 1024
}
