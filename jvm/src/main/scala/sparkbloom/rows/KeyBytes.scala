// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

/**
 * The byte values a key column's rows are looked up by (the plain encodings of `BINARY` or
 * `FIXED_LEN_BYTE_ARRAY` probe values, without length prefix), asked of values where they lie
 * in a page. Comparing bytes costs ~6 ns a 36-byte value where hashing it costs ~35 (measured
 * 2026-11-24, commit dafbc8c): on a 128 MB row group, most of what hashing the key column took.
 *
 * Values are found by a table indexed by their length and their first and last eight bytes,
 * so a value of the page usually costs one table read. Keys that crowd one slot (values that
 * differ only in their middle bytes) make it [[usable]] no more, and rows are then tested by
 * hash as before.
 */
private[sparkbloom] final class KeyBytes(val values: Array[Array[Byte]]) extends Serializable {
  import KeyBytes._

  private val bits = 32 - Integer.numberOfLeadingZeros(math.max(1, values.length * 4 - 1))

  @transient private lazy val table: Array[Array[Array[Byte]]] = {
    val slots = new Array[Array[Array[Byte]]](1 << bits)
    values.foreach { v =>
      val i = slot(v, 0, v.length, bits)
      slots(i) = if (slots(i) == null) Array(v) else slots(i) :+ v
    }
    slots
  }

  /** Whether looking values up here stays one or a few comparisons a value, whatever the page holds. */
  def usable: Boolean = table.forall(s => s == null || s.length <= MaxPerSlot)

  def contains(bytes: Array[Byte], at: Int, length: Int): Boolean = {
    val candidates = table(slot(bytes, at, length, bits))
    var found = false
    if (candidates != null) {
      var i = 0
      while (!found && i < candidates.length) {
        val v = candidates(i)
        found = v.length == length && java.util.Arrays.equals(v, 0, length, bytes, at, at + length)
        i += 1
      }
    }
    found
  }
}

private[sparkbloom] object KeyBytes {
  private val MaxPerSlot = 8

  /** At most this many bytes of values go with each file to the tasks, beside their hashes. */
  val MaxTotalBytes: Int = 64 * 1024

  /** The stored probe values, if they are all byte arrays and not too many bytes to ship with each file. */
  def of(stored: Seq[Any]): Option[KeyBytes] = {
    val bytes = stored.collect { case b: org.apache.parquet.io.api.Binary => b.getBytes }
    if (bytes.size == stored.size) ofBytes(bytes) else None
  }

  /** The values of all `sets`, if each has them (`k = 'a' OR k = 'b'`). */
  def union(sets: Seq[Option[KeyBytes]]): Option[KeyBytes] =
    if (sets.forall(_.isDefined)) ofBytes(sets.flatMap(_.get.values)) else None

  /** Each value once (overlapping branches of an OR repeat theirs), if they fit in [[MaxTotalBytes]]. */
  private def ofBytes(bytes: Seq[Array[Byte]]): Option[KeyBytes] = {
    val distinct = bytes.map(java.nio.ByteBuffer.wrap).distinct.map(_.array)
    if (distinct.iterator.map(_.length.toLong).sum > MaxTotalBytes) None else Some(new KeyBytes(distinct.toArray))
  }

  /** Whether `values` hold a value for each of `hashes` (else a row could be missed by comparing values). */
  def cover(values: KeyBytes, hashes: Array[Long]): Boolean = {
    val hashed = values.values.map(v => sparkbloom.sbbf.XxHash64.hashBytes(v)).toSet
    hashes.forall(hashed.contains)
  }

  private def slot(bytes: Array[Byte], at: Int, length: Int, bits: Int): Int = {
    val mixed =
      if (length >= 8) {
        LittleEndian.long(bytes, at) * 0xc2b2ae3d27d4eb4fL + LittleEndian.long(bytes, at + length - 8)
      } else {
        var v = 0L
        var i = 0
        while (i < length) { v = v << 8 | (bytes(at + i) & 0xffL); i += 1 }
        v
      }
    ((mixed + length) * 0x9e3779b97f4a7c15L >>> (64 - bits)).toInt
  }
}
