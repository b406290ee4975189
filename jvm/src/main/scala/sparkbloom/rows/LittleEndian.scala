// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

/** Numbers as Parquet's plain encoding stores them: little-endian, read where they lie in a page's bytes. */
private[rows] object LittleEndian {

  def int(bytes: Array[Byte], at: Int): Int =
    (bytes(at) & 0xff) | (bytes(at + 1) & 0xff) << 8 | (bytes(at + 2) & 0xff) << 16 | (bytes(at + 3) & 0xff) << 24

  def long(bytes: Array[Byte], at: Int): Long = (int(bytes, at) & 0xffffffffL) | int(bytes, at + 4).toLong << 32
}
