// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import sparkbloom.sbbf.XxHash64

/**
 * The numbers a key column's rows are looked up by: the plain encodings of `INT32`, `FLOAT`
 * (4 bytes) or `INT64`, `DOUBLE` (8 bytes) probe values, as raw bits, compared with a page's
 * values where they lie. A compare costs ~1 ns a value where hashing one and searching the keys'
 * hashes cost ~8 (measured 2026-11-25, commit 2d56ff7): a third of the key scan on a 128 MB row
 * group of `user_id`s.
 *
 * @param width 4 or 8: the bytes of one value
 * @param bits  each probe value's bits (a 4-byte value sign-extended), ascending
 */
private[sparkbloom] final class KeyNumbers private (val width: Int, val bits: Array[Long]) extends Serializable {

  /** Whether a value of `width` bytes, read as `value` (4 bytes sign-extended), is one of the keys. */
  def contains(value: Long): Boolean =
    if (bits.length <= 8) {
      var i = 0
      while (i < bits.length && bits(i) != value) i += 1
      i < bits.length
    } else java.util.Arrays.binarySearch(bits, value) >= 0

  /** Whether these numbers hold a value for each of `hashes` (else a row could be missed by comparing values). */
  def cover(hashes: Array[Long]): Boolean = {
    val hashed = bits.map(b => if (width == 4) XxHash64.hashInt(b.toInt) else XxHash64.hashLong(b)).toSet
    hashes.forall(hashed.contains)
  }
}

private[sparkbloom] object KeyNumbers {

  /** The stored probe values' bits, if they are all numbers of one width. */
  def of(stored: Seq[Any]): Option[KeyNumbers] = union(stored.map {
    case i: java.lang.Integer => Some(new KeyNumbers(4, Array(i.longValue)))
    case f: java.lang.Float => Some(new KeyNumbers(4, Array(java.lang.Float.floatToRawIntBits(f).toLong)))
    case l: java.lang.Long => Some(new KeyNumbers(8, Array(l.longValue)))
    case d: java.lang.Double => Some(new KeyNumbers(8, Array(java.lang.Double.doubleToRawLongBits(d))))
    case _ => None
  })

  /** The numbers of all `sets`, if each has them and they share a width (`k = 1 OR k = 2`). */
  def union(sets: Seq[Option[KeyNumbers]]): Option[KeyNumbers] =
    if (sets.isEmpty || !sets.forall(_.isDefined) || sets.flatten.map(_.width).distinct.size != 1) None
    else Some(new KeyNumbers(sets.head.get.width, sets.flatMap(_.get.bits).distinct.sorted.toArray))
}
