// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.ByteBuffer

import org.apache.parquet.io.SeekableInputStream

/**
 * A file's stream that fetches its last `windowBytes` in one read the first time a read
 * falls wholly inside them, and serves every later read there from memory. Parquet keeps the
 * footer at the end, and parquet-java and sparkbloom write Bloom filters just before it
 * (after the page indexes): on an object store, where every read is a round trip, a footer
 * and the filters next to it then cost one ranged GET instead of one per read. A read that
 * starts before the window goes to the file as it is.
 */
private[sparkbloom] final class TailReadStream(file: SeekableInputStream, length: Long, windowBytes: Int)
    extends SeekableInputStream {

  private val windowStart = math.max(0L, length - windowBytes)
  private var window: Array[Byte] = _
  private var position = 0L

  private def tail: Array[Byte] = {
    if (window == null) {
      val bytes = new Array[Byte]((length - windowStart).toInt)
      file.seek(windowStart)
      file.readFully(bytes)
      window = bytes
    }
    window
  }

  override def getPos: Long = position

  override def seek(newPosition: Long): Unit = position = newPosition

  override def readFully(bytes: Array[Byte]): Unit = readFully(bytes, 0, bytes.length)

  override def readFully(bytes: Array[Byte], offset: Int, count: Int): Unit = {
    if (position >= windowStart && position + count <= length) {
      System.arraycopy(tail, (position - windowStart).toInt, bytes, offset, count)
    } else {
      file.seek(position)
      file.readFully(bytes, offset, count)
    }
    position += count
  }

  override def read(): Int = {
    if (position >= length) return -1
    val one = new Array[Byte](1)
    readFully(one)
    one(0) & 0xff
  }

  override def read(bytes: Array[Byte], offset: Int, count: Int): Int =
    if (count == 0) 0
    else if (position >= length) -1
    else {
      val n = math.min(count.toLong, length - position).toInt
      readFully(bytes, offset, n)
      n
    }

  override def read(buffer: ByteBuffer): Int =
    if (position >= length) -1
    else {
      val n = math.min(buffer.remaining.toLong, length - position).toInt
      val bytes = new Array[Byte](n)
      readFully(bytes)
      buffer.put(bytes)
      n
    }

  override def readFully(buffer: ByteBuffer): Unit = {
    val bytes = new Array[Byte](buffer.remaining)
    readFully(bytes)
    buffer.put(bytes)
  }

  override def close(): Unit = file.close()
}
