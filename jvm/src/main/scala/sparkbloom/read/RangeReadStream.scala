// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.ByteBuffer

import org.apache.parquet.io.SeekableInputStream

/** `length` bytes of a file from `offset`. */
private[sparkbloom] final case class ByteRange(offset: Long, length: Int) {
  def end: Long = offset + length
  def covers(other: ByteRange): Boolean = offset <= other.offset && other.end <= end
}

/**
 * A file's stream that serves reads from the ranges fetched ahead ([[fetch]]: one read each),
 * and sends any other read to the file as it is. On an object store every read is a round
 * trip: a prober fetches the file's tail (its footer) and then the filters it needs in as few
 * reads as [[ProbeReadPlan]] allows, and parquet-java's and sparkbloom's many small reads of
 * them (a length, a header, a bitset) then cost none.
 */
private[sparkbloom] final class RangeReadStream(file: SeekableInputStream, length: Long) extends SeekableInputStream {

  private var held = Vector.empty[(ByteRange, Array[Byte])]
  private var position = 0L
  private var bytesFromFile = 0L

  /** Bytes read from the file so far: fetched ranges and reads outside them. */
  def bytesRead: Long = bytesFromFile

  def holds(range: ByteRange): Boolean = held.exists(_._1.covers(range))

  /** Reads each of `ranges` that is not yet held, clipped to the file, in one read each. */
  def fetch(ranges: Seq[ByteRange]): Unit = ranges.foreach { wanted =>
    val start = math.max(0L, wanted.offset)
    val range = ByteRange(start, math.max(0L, math.min(wanted.end, length) - start).toInt)
    if (range.length > 0 && !holds(range)) {
      val bytes = new Array[Byte](range.length)
      file.seek(range.offset)
      file.readFully(bytes)
      bytesFromFile += bytes.length
      held :+= range -> bytes
    }
  }

  override def getPos: Long = position

  override def seek(newPosition: Long): Unit = position = newPosition

  override def readFully(bytes: Array[Byte]): Unit = readFully(bytes, 0, bytes.length)

  override def readFully(bytes: Array[Byte], offset: Int, count: Int): Unit = {
    val wanted = ByteRange(position, count)
    held.find(_._1.covers(wanted)) match {
      case Some((range, buffer)) => System.arraycopy(buffer, (position - range.offset).toInt, bytes, offset, count)
      case None =>
        file.seek(position)
        file.readFully(bytes, offset, count)
        bytesFromFile += count
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
