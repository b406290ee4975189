// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayInputStream, IOException}

import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.column.Encoding
import org.apache.parquet.column.page.{DataPage, DataPageV1, DataPageV2, DictionaryPage, PageReader}
import org.apache.parquet.format.{PageHeader, PageType, Util}
import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, CompressionCodecName}
import org.apache.parquet.io.SeekableInputStream
import org.xerial.snappy.Snappy

/**
 * The pages of a key column chunk ([[KeyChunkScan]]), read in one piece and decompressed
 * into one buffer that each data page reuses. parquet-java's page reader decompresses each
 * page through a stream it builds for it and copies the result, which on a 128 MB row group's
 * string key took ~90 ms where this takes ~60 (bench/README.md). Only SNAPPY and
 * uncompressed chunks that are not encrypted are read here; the others go through
 * parquet-java as before. A data page is valid until the next one is read.
 */
private[read] final class KeyChunkPages private (chunk: ColumnChunkMetaData, raw: Array[Byte]) extends PageReader {
  private val headers = new ByteArrayInputStream(raw)
  private var buffer = new Array[Byte](0)
  private var pending: Option[PageHeader] = None
  private var valuesRead = 0L

  private def position: Int = raw.length - headers.available()

  /**
   * The next page's header; none once the chunk's values are all read (as parquet-java, bytes
   * after them are not pages), and an error if its pages hold fewer values than it.
   */
  private def nextHeader(): Option[PageHeader] = {
    val next =
      if (pending.isDefined) pending
      else if (valuesRead >= chunk.getValueCount) None
      else if (headers.available() > 0) Some(Util.readPageHeader(headers))
      else throw new IOException(s"the pages of $chunk hold $valuesRead values, not ${chunk.getValueCount}")
    pending = None
    next
  }

  /** `length` bytes at the current position as the page's bytes, and the position moved past them. */
  private def body(length: Int): Int = {
    val at = position
    if (length < 0 || length > headers.available()) throw new IOException(s"a page runs past its column chunk $chunk")
    headers.skip(length)
    at
  }

  /** Decompresses `length` bytes at `at` into `into` (grown to fit), checking they are `expected` bytes. */
  private def decompress(at: Int, length: Int, expected: Int, into: Array[Byte]): Array[Byte] = {
    val out = if (into.length >= expected) into else new Array[Byte](expected)
    val produced = chunk.getCodec match {
      case CompressionCodecName.SNAPPY =>
        if (Snappy.uncompressedLength(raw, at, length) != expected)
          throw new IOException(s"a page of $chunk does not decompress to the size its header gives")
        Snappy.uncompress(raw, at, length, out, 0)
      case _ =>
        System.arraycopy(raw, at, out, 0, length)
        length
    }
    if (produced != expected) throw new IOException(s"a page of $chunk holds $produced bytes, not $expected")
    out
  }

  override def readDictionaryPage(): DictionaryPage = nextHeader() match {
    case Some(h) if h.getType == PageType.DICTIONARY_PAGE =>
      val dictionary = h.getDictionary_page_header
      val bytes =
        decompress(body(h.getCompressed_page_size), h.getCompressed_page_size, h.getUncompressed_page_size, Array.empty)
      new DictionaryPage(BytesInput.from(bytes, 0, h.getUncompressed_page_size), dictionary.getNum_values,
        encoding(dictionary.getEncoding))
    case other =>
      pending = other
      null
  }

  override def getTotalValueCount: Long = chunk.getValueCount

  override def readPage(): DataPage = nextHeader() match {
    case None => null
    case Some(h) if h.getType == PageType.DATA_PAGE =>
      val page = h.getData_page_header
      val at = body(h.getCompressed_page_size)
      buffer = decompress(at, h.getCompressed_page_size, h.getUncompressed_page_size, buffer)
      valuesRead += page.getNum_values
      new DataPageV1(BytesInput.from(buffer, 0, h.getUncompressed_page_size), page.getNum_values,
        h.getUncompressed_page_size, null, encoding(page.getRepetition_level_encoding),
        encoding(page.getDefinition_level_encoding), encoding(page.getEncoding))
    case Some(h) if h.getType == PageType.DATA_PAGE_V2 =>
      val page = h.getData_page_header_v2
      val at = body(h.getCompressed_page_size)
      val levels = page.getRepetition_levels_byte_length + page.getDefinition_levels_byte_length
      if (levels < 0 || levels > h.getCompressed_page_size)
        throw new IOException(s"a page's levels run past the page in $chunk")
      val dataLength = h.getUncompressed_page_size - levels
      valuesRead += page.getNum_values
      // levels are never compressed; the values are unless the header says otherwise
      buffer =
        if (!page.isSetIs_compressed || page.isIs_compressed)
          decompress(at + levels, h.getCompressed_page_size - levels, dataLength, buffer)
        else if (h.getCompressed_page_size != h.getUncompressed_page_size)
          throw new IOException(s"an uncompressed page of $chunk gives two sizes")
        else java.util.Arrays.copyOfRange(raw, at + levels, at + h.getCompressed_page_size)
      val repetition = BytesInput.from(raw, at, page.getRepetition_levels_byte_length)
      val definition = BytesInput.from(raw, at + page.getRepetition_levels_byte_length,
        page.getDefinition_levels_byte_length)
      DataPageV2.uncompressed(page.getNum_rows, page.getNum_nulls, page.getNum_values, repetition, definition,
        encoding(page.getEncoding), BytesInput.from(buffer, 0, dataLength), null)
    case Some(h) if h.getType == PageType.INDEX_PAGE =>
      body(h.getCompressed_page_size) // nothing to scan
      readPage()
    case Some(h) => throw new IOException(s"a ${h.getType} page among the data pages of $chunk")
  }

  private def encoding(e: org.apache.parquet.format.Encoding): Encoding = Encoding.valueOf(e.name)
}

private[read] object KeyChunkPages {

  /** The pages of `chunk` read from `in`, if this reads them: a SNAPPY or uncompressed chunk, not encrypted. */
  def read(in: SeekableInputStream, chunk: ColumnChunkMetaData): Option[PageReader] = {
    val codec = chunk.getCodec
    if ((codec != CompressionCodecName.SNAPPY && codec != CompressionCodecName.UNCOMPRESSED) || chunk.isEncrypted ||
      chunk.getTotalSize > Int.MaxValue - 16) None
    else {
      val raw = new Array[Byte](chunk.getTotalSize.toInt)
      in.seek(chunk.getStartingPos)
      in.readFully(raw)
      Some(new KeyChunkPages(chunk, raw))
    }
  }
}
