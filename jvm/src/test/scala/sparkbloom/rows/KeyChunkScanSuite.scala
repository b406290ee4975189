// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.parquet.column.Encoding
import org.scalatest.funsuite.AnyFunSuite

/**
 * How [[KeyChunkScan]] tells a page whose values are all defined from its levels alone, on
 * level bytes written here: any doubt must say no (levels are then read one by one), since a
 * page taken for all-defined when it is not would pair rows with other rows' values.
 * MatchingRowsSuite compares whole scans with parquet-java's reader on pages Spark writes.
 */
class KeyChunkScanSuite extends AnyFunSuite {

  private def bytes(values: Int*): ByteBuffer = ByteBuffer.wrap(values.map(_.toByte).toArray)

  /** An RLE run header (varint of length << 1) and its value in `width` bytes. */
  private def run(length: Int, value: Int, width: Int = 1): Seq[Int] = {
    val header = scala.collection.mutable.ArrayBuffer.empty[Int]
    var h = length.toLong << 1
    while (h >= 0x80) { header += ((h & 0x7f) | 0x80).toInt; h >>>= 7 }
    header += h.toInt
    header.toSeq ++ (0 until width).map(i => (value >>> (8 * i)) & 0xff)
  }

  test("one repeated run of the maximum level, as long as the page or longer: every value is defined") {
    assert(KeyChunkScan.opensWithRunOf(bytes(run(20000, 1): _*), 1, 20000))
    assert(KeyChunkScan.opensWithRunOf(bytes(run(20001, 1): _*), 1, 20000))
    assert(KeyChunkScan.opensWithRunOf(bytes(run(3, 2) ++ run(5, 0): _*), 2, 3))
    assert(KeyChunkScan.opensWithRunOf(bytes(run(64, 300, width = 2): _*), 300, 64), "levels of two bytes")
  }

  test("anything else says no") {
    assert(!KeyChunkScan.opensWithRunOf(bytes(run(19999, 1): _*), 1, 20000), "a shorter run: nulls follow")
    assert(!KeyChunkScan.opensWithRunOf(bytes(run(20000, 0): _*), 1, 20000), "a run of nulls")
    assert(!KeyChunkScan.opensWithRunOf(bytes(run(20000, 1): _*), 2, 20000), "a run below the maximum level")
    assert(!KeyChunkScan.opensWithRunOf(bytes(run(300, 1, width = 2): _*), 300, 300), "the value's second byte")
    assert(!KeyChunkScan.opensWithRunOf(bytes(0x03, 0xff), 1, 1), "a bit-packed run")
    assert(!KeyChunkScan.opensWithRunOf(bytes(0x80, 0x80), 1, 1), "a header cut short")
    assert(!KeyChunkScan.opensWithRunOf(bytes(run(8, 1).take(1): _*), 1, 8), "a value cut short")
    assert(!KeyChunkScan.opensWithRunOf(bytes(), 1, 0), "no levels")
    assert(!KeyChunkScan.opensWithRunOf(bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01), 1, 1), "a header too long")
    // bits beyond 32, which parquet-java's 32-bit varint drops (it would read a run of 2)
    assert(!KeyChunkScan.opensWithRunOf(bytes(0x84, 0x80, 0x80, 0x80, 0x10, 0x01), 1, 2), "a header past 32 bits")
  }

  test("v1 pages: the run must lie within the levels' length prefix, and be RLE-encoded") {
    def page(levels: Seq[Int], declared: Int, trailing: Int*): ByteBuffer = {
      val b = ByteBuffer.allocate(4 + levels.size + trailing.size + 3).order(ByteOrder.LITTLE_ENDIAN)
      b.put(Array[Byte](9, 9, 9)) // bytes before the page's own, as in a shared buffer
      b.putInt(declared)
      levels.foreach(v => b.put(v.toByte))
      trailing.foreach(v => b.put(v.toByte))
      b.position(3)
      b
    }
    val levels = run(500, 1)
    assert(KeyChunkScan.everyDefinedV1(page(levels, levels.size, 1, 2, 3), Encoding.RLE, 1, 500))
    assert(!KeyChunkScan.everyDefinedV1(page(levels, levels.size - 1, 1, 2, 3), Encoding.RLE, 1, 500))
    assert(!KeyChunkScan.everyDefinedV1(page(levels, levels.size + 10), Encoding.RLE, 1, 500), "longer than the page")
    assert(!KeyChunkScan.everyDefinedV1(page(levels, -1), Encoding.RLE, 1, 500))
    assert(!KeyChunkScan.everyDefinedV1(page(levels, levels.size), Encoding.BIT_PACKED, 1, 500))
    assert(!KeyChunkScan.everyDefinedV1(ByteBuffer.wrap(Array[Byte](1, 0, 0)), Encoding.RLE, 1, 1))
  }
}
