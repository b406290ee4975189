// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayInputStream, EOFException}

import scala.util.control.NonFatal

import org.apache.parquet.format.BloomFilterHeader
import org.apache.parquet.io.SeekableInputStream
import shaded.parquet.org.apache.thrift.TConfiguration
import shaded.parquet.org.apache.thrift.protocol.TCompactProtocol
import shaded.parquet.org.apache.thrift.transport.TIOStreamTransport

import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * Reads one column chunk's filter from a file: one read when `bloom_filter_length` is
 * present, two (header, then bitset) for files written before it existed. Every size comes
 * from the file, so each is checked against the file's length and a ceiling before
 * anything is allocated; a filter that does not add up is [[FilterLookup.Broken]].
 */
private[sparkbloom] object BloomFilterIO {

  /** The largest filter read: parquet-java's own ceiling for a filter, plus a header. */
  val MaxFilterBytes: Int = SplitBlockBloomFilter.DefaultMaxBytes + 4096

  /**
   * The most bytes a header may take: every writer's is ~15. Also the most Thrift is ever
   * given, so that its recursion over nested unknown fields stays shallow.
   */
  private val HeaderProbeBytes = 256

  final case class Result(lookup: FilterLookup, bytesRead: Long)

  /** A header that names a filter sparkbloom can use: `numBytes` of bitset follow its `length` bytes. */
  final case class Header(numBytes: Int, length: Int)

  /**
   * The header at `bytes[offset, offset + length)`, or why it is no filter to use. Not through
   * `Util.readBloomFilterHeader`: its transport lets a field claim up to 100 MB, which Thrift
   * allocates before it finds the input ends; here the message size is the bytes given.
   */
  def decodeHeader(bytes: Array[Byte], offset: Int, length: Int): Either[String, Header] = {
    val n = math.max(0, math.min(math.min(length, HeaderProbeBytes), bytes.length - offset))
    val in = new ByteArrayInputStream(bytes, offset, n)
    val header = new BloomFilterHeader()
    try header.read(new TCompactProtocol(new TIOStreamTransport(new TConfiguration(n, n, 64), in)))
    catch { case NonFatal(e) => return Left(s"unreadable header: $e") }
    val numBytes = header.getNumBytes
    if (numBytes < SplitBlockBloomFilter.BytesPerBlock || numBytes % SplitBlockBloomFilter.BytesPerBlock != 0)
      Left(s"numBytes $numBytes is not a positive multiple of ${SplitBlockBloomFilter.BytesPerBlock}")
    else if (!header.getAlgorithm.isSetBLOCK) Left(s"unknown algorithm ${header.getAlgorithm}, only BLOCK is known")
    else if (!header.getHash.isSetXXHASH) Left(s"unknown hash ${header.getHash}, only XXHASH is known")
    else if (!header.getCompression.isSetUNCOMPRESSED)
      Left(s"unknown compression ${header.getCompression}, only UNCOMPRESSED is known")
    else Right(Header(numBytes, n - in.available()))
  }

  def read(in: SeekableInputStream, fileLength: Long, chunk: ChunkSummary): Result = {
    // Encrypted filters are AES-GCM modules: only parquet-java, with the key, reads them.
    if (!chunk.hasFilter || chunk.encrypted) return Result(FilterLookup.Missing, 0)
    val offset = chunk.filterOffset
    if (offset >= fileLength)
      return broken(s"bloom_filter_offset $offset is past the end of the file ($fileLength bytes)")
    try {
      if (chunk.filterLength > 0) readWithLength(in, fileLength, offset, chunk.filterLength)
      else readWithoutLength(in, fileLength, offset)
    } catch {
      case e: EOFException => broken(s"the file ends inside the filter: ${e.getMessage}")
    }
  }

  private def broken(reason: String, bytesRead: Long = 0) = Result(FilterLookup.Broken(reason), bytesRead)

  private[read] def readFully(in: SeekableInputStream, offset: Long, length: Int): Array[Byte] = {
    val bytes = new Array[Byte](length)
    in.seek(offset)
    in.readFully(bytes)
    bytes
  }

  private def readWithLength(in: SeekableInputStream, fileLength: Long, offset: Long, length: Int): Result = {
    if (length > MaxFilterBytes) return broken(s"bloom_filter_length $length is larger than $MaxFilterBytes")
    if (offset + length > fileLength) return broken(s"bloom_filter_length $length runs past the end of the file")
    val bytes = readFully(in, offset, length)
    decodeHeader(bytes, 0, length) match {
      case Left(reason) => broken(reason, length)
      case Right(header) if header.length.toLong + header.numBytes != length =>
        broken(s"bloom_filter_length $length disagrees with the header " +
            s"(${header.length} header bytes + numBytes ${header.numBytes})", length)
      case Right(header) =>
        Result(FilterLookup.Present(SplitBlockBloomFilter.fromBitset(bytes, header.length, header.numBytes)), length)
    }
  }

  private def readWithoutLength(in: SeekableInputStream, fileLength: Long, offset: Long): Result = {
    val probe = math.min(HeaderProbeBytes.toLong, fileLength - offset).toInt
    val head = readFully(in, offset, probe)
    decodeHeader(head, 0, probe) match {
      case Left(reason) => broken(reason, probe)
      case Right(header) =>
        val end = offset + header.length + header.numBytes
        if (header.numBytes > MaxFilterBytes)
          broken(s"numBytes ${header.numBytes} is larger than $MaxFilterBytes", probe)
        else if (end > fileLength) broken(s"numBytes ${header.numBytes} runs past the end of the file", probe)
        else {
          // The bitset may already be in the probe (small filters); otherwise a second read.
          val inHead = probe - header.length
          val filter =
            if (inHead >= header.numBytes) SplitBlockBloomFilter.fromBitset(head, header.length, header.numBytes)
            else {
              val bitset = new Array[Byte](header.numBytes)
              System.arraycopy(head, header.length, bitset, 0, inHead)
              in.seek(offset + probe)
              in.readFully(bitset, inHead, header.numBytes - inHead)
              SplitBlockBloomFilter.fromBitset(bitset)
            }
          Result(FilterLookup.Present(filter), probe.toLong + math.max(0, header.numBytes - inHead))
        }
    }
  }
}
