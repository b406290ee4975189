// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.EOFException

import org.apache.parquet.io.SeekableInputStream

import sparkbloom.sbbf.{BloomFilterHeaderCodec, SplitBlockBloomFilter}

/**
 * Reads one column chunk's filter from a file: one read when `bloom_filter_length` is
 * present, two (header, then bitset) for files written before it existed. Every size comes
 * from the file, so each is checked against the file's length and a ceiling before
 * anything is allocated; a filter that does not add up is [[FilterLookup.Broken]].
 */
private[sparkbloom] object BloomFilterIO {

  /** The largest filter read: parquet-java's own ceiling for a filter, plus a header. */
  val MaxFilterBytes: Int = SplitBlockBloomFilter.DefaultMaxBytes + 4096

  /** Bytes to read for a header when its length is not known: headers are ~15 bytes. */
  private val HeaderProbeBytes = 256

  final case class Result(lookup: FilterLookup, bytesRead: Long)

  def read(in: SeekableInputStream, fileLength: Long, chunk: ChunkSummary): Result = {
    if (!chunk.hasFilter) return Result(FilterLookup.Missing, 0)
    // Encrypted filters are AES-GCM modules: only parquet-java, with the key, reads them.
    if (chunk.encrypted) return Result(FilterLookup.Missing, 0)
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

  private def readFully(in: SeekableInputStream, offset: Long, length: Int): Array[Byte] = {
    val bytes = new Array[Byte](length)
    in.seek(offset)
    in.readFully(bytes)
    bytes
  }

  private def readWithLength(in: SeekableInputStream, fileLength: Long, offset: Long, length: Int): Result = {
    if (length > MaxFilterBytes) return broken(s"bloom_filter_length $length is larger than $MaxFilterBytes")
    if (offset + length > fileLength) return broken(s"bloom_filter_length $length runs past the end of the file")
    val bytes = readFully(in, offset, length)
    BloomFilterHeaderCodec.decode(bytes) match {
      case Left(invalid) => broken(invalid.reason, length)
      case Right(header) if header.headerLength.toLong + header.numBytes != length =>
        broken(s"bloom_filter_length $length disagrees with the header " +
            s"(${header.headerLength} header bytes + numBytes ${header.numBytes})", length)
      case Right(header) =>
        Result(FilterLookup.Present(SplitBlockBloomFilter.fromBitset(bytes, header.headerLength, header.numBytes)),
          length)
    }
  }

  private def readWithoutLength(in: SeekableInputStream, fileLength: Long, offset: Long): Result = {
    val probe = math.min(HeaderProbeBytes.toLong, fileLength - offset).toInt
    val head = readFully(in, offset, probe)
    BloomFilterHeaderCodec.decode(head) match {
      case Left(invalid) => broken(invalid.reason, probe)
      case Right(header) =>
        val end = offset + header.headerLength + header.numBytes
        if (header.numBytes > MaxFilterBytes)
          broken(s"numBytes ${header.numBytes} is larger than $MaxFilterBytes", probe)
        else if (end > fileLength) broken(s"numBytes ${header.numBytes} runs past the end of the file", probe)
        else {
          // The bitset may already be in the probe (small filters); otherwise a second read.
          val inHead = probe - header.headerLength
          val filter =
            if (inHead >= header.numBytes) SplitBlockBloomFilter.fromBitset(head, header.headerLength, header.numBytes)
            else {
              val bitset = new Array[Byte](header.numBytes)
              System.arraycopy(head, header.headerLength, bitset, 0, inHead)
              in.seek(offset + probe)
              in.readFully(bitset, inHead, header.numBytes - inHead)
              SplitBlockBloomFilter.fromBitset(bitset)
            }
          Result(FilterLookup.Present(filter), probe.toLong + math.max(0, header.numBytes - inHead))
        }
    }
  }
}
