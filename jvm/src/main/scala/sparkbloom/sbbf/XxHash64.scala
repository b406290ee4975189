// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import java.nio.ByteBuffer

import org.apache.parquet.column.values.bloomfilter.XxHash

/**
 * XXH64 with seed 0 of a value's Parquet plain encoding: the hash the spec prescribes.
 *
 * Byte sequences go to parquet-java's own `XxHash` (zero-allocation-hashing, the code that
 * hashes every value parquet-java writes), so they cannot drift from it. Four- and
 * eight-byte values take the short fixed-length paths of XXH64 written out here: they
 * avoid the ByteBuffer round trip parquet-java's `hash(int)`/`hash(long)` make on every
 * value (see `bench/jmh`), and the property tests pin them to parquet-java bit for bit.
 */
private[sparkbloom] object XxHash64 {
  private final val Prime1 = 0x9e3779b185ebca87L
  private final val Prime2 = 0xc2b2ae3d27d4eb4fL
  private final val Prime3 = 0x165667b19e3779f9L
  private final val Prime4 = 0x85ebca77c2b2ae63L
  private final val Prime5 = 0x27d4eb2f165667c5L

  private val bytesHasher = new XxHash()

  /** Hash of the 4 little-endian bytes of `value` (INT32 and FLOAT plain encoding). */
  def hashInt(value: Int): Long = {
    var h = Prime5 + 4L
    h ^= (value & 0xffffffffL) * Prime1
    h = java.lang.Long.rotateLeft(h, 23) * Prime2 + Prime3
    avalanche(h)
  }

  /** Hash of the 8 little-endian bytes of `value` (INT64 and DOUBLE plain encoding). */
  def hashLong(value: Long): Long = {
    var h = Prime5 + 8L
    h ^= java.lang.Long.rotateLeft(value * Prime2, 31) * Prime1
    h = java.lang.Long.rotateLeft(h, 27) * Prime1 + Prime4
    avalanche(h)
  }

  /** FLOAT: the raw IEEE bits, as parquet-java's `ByteBuffer.putFloat` writes them. */
  def hashFloat(value: Float): Long = hashInt(java.lang.Float.floatToRawIntBits(value))

  /** DOUBLE: the raw IEEE bits, as parquet-java's `ByteBuffer.putDouble` writes them. */
  def hashDouble(value: Double): Long = hashLong(java.lang.Double.doubleToRawLongBits(value))

  /** BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY: the bytes themselves, no length prefix. */
  def hashBytes(bytes: Array[Byte]): Long = bytesHasher.hashBytes(bytes)

  def hashBytes(bytes: Array[Byte], offset: Int, length: Int): Long =
    if (offset == 0 && length == bytes.length) bytesHasher.hashBytes(bytes)
    else bytesHasher.hashByteBuffer(ByteBuffer.wrap(bytes, offset, length))

  def hashBytes(buffer: ByteBuffer): Long = bytesHasher.hashByteBuffer(buffer)

  private def avalanche(hash: Long): Long = {
    var h = hash
    h ^= h >>> 33
    h *= Prime2
    h ^= h >>> 29
    h *= Prime3
    h ^ (h >>> 32)
  }
}
