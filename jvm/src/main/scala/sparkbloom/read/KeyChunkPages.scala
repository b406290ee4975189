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
 * string key took ~30 ms more of a ~0.27 s lookup (measured 2026-11-24, commit 354fa88). Only SNAPPY and
 * uncompressed chunks that are not encrypted are read here; the others go through
 * parquet-java as before. A data page is valid until the next one is read.
 *
 * Pages are taken as parquet-java takes them: from the chunk's starting position for its
 * total size, until the footer's count of values is read. Anything else (fewer or more
 * values, a page past the chunk's end, sizes that disagree) is an error, never fewer rows.
 */
private[read] final class KeyChunkPages private (chunk: ColumnChunkMetaData, raw: Array[Byte]) extends PageReader {
  private val cursor = new ByteArrayInputStream(raw)
  private var buffer = new Array[Byte](0)
  private var pending: Option[PageHeader] = None
  private var valuesRead = 0L

  private def position: Int = raw.length - cursor.available()

  private def fail(problem: String): Nothing = throw new IOException(s"$problem in the column chunk $chunk")

  /** The next page's header; none once the chunk's values are all read (bytes after them are not pages). */
  private def nextHeader(): Option[PageHeader] = {
    val next =
      if (pending.isDefined) pending
      else if (valuesRead == chunk.getValueCount) None
      else if (cursor.available() > 0) Some(Util.readPageHeader(cursor))
      else fail(s"pages holding $valuesRead values, not ${chunk.getValueCount},")
    pending = None
    next
  }

  /** Counts a data page's values, which must not take the chunk past its footer's count. */
  private def count(values: Int): Unit = {
    valuesRead += values
    if (values < 0 || valuesRead > chunk.getValueCount) fail(s"more values than ${chunk.getValueCount}")
  }

  /** Where the page's `length` bytes start; the cursor moves past them. */
  private def body(length: Int): Int = {
    val at = position
    if (length < 0 || length > cursor.available()) fail("a page running past the chunk's end")
    cursor.skip(length)
    at
  }

  /**
   * The `expected` bytes that the `length` bytes at `at` hold, decompressed into the reused
   * buffer if `reuse` (else into their own array: a dictionary outlives the data pages).
   */
  private def pageBytes(at: Int, length: Int, expected: Int, reuse: Boolean): BytesInput =
    chunk.getCodec match {
      case CompressionCodecName.UNCOMPRESSED =>
        if (length != expected) fail(s"an uncompressed page of $length bytes said to hold $expected")
        BytesInput.from(raw, at, length)
      case CompressionCodecName.SNAPPY =>
        // checked before decompressing: snappy-java does not check the room left in its output
        if (expected < 0 || Snappy.uncompressedLength(raw, at, length) != expected)
          fail(s"a page not decompressing to the $expected bytes its header gives")
        val out = if (reuse && buffer.length >= expected) buffer else new Array[Byte](expected)
        if (reuse) buffer = out
        if (Snappy.uncompress(raw, at, length, out, 0) != expected) fail("a page decompressing to other sizes")
        BytesInput.from(out, 0, expected)
      case other => fail(s"a page compressed with $other")
    }

  override def readDictionaryPage(): DictionaryPage = nextHeader() match {
    case Some(h) if h.getType == PageType.DICTIONARY_PAGE =>
      val dictionary = h.getDictionary_page_header
      val at = body(h.getCompressed_page_size)
      new DictionaryPage(pageBytes(at, h.getCompressed_page_size, h.getUncompressed_page_size, reuse = false),
        dictionary.getNum_values, encoding(dictionary.getEncoding))
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
      count(page.getNum_values)
      new DataPageV1(pageBytes(at, h.getCompressed_page_size, h.getUncompressed_page_size, reuse = true),
        page.getNum_values, h.getUncompressed_page_size, null, encoding(page.getRepetition_level_encoding),
        encoding(page.getDefinition_level_encoding), encoding(page.getEncoding))
    case Some(h) if h.getType == PageType.DATA_PAGE_V2 =>
      val page = h.getData_page_header_v2
      val at = body(h.getCompressed_page_size)
      count(page.getNum_values)
      val repetitionLength = page.getRepetition_levels_byte_length
      val definitionLength = page.getDefinition_levels_byte_length
      val levels = repetitionLength.toLong + definitionLength
      if (repetitionLength < 0 || definitionLength < 0 || levels > h.getCompressed_page_size ||
        levels > h.getUncompressed_page_size) fail("a page whose levels run past it")
      // levels are never compressed; the values are unless the header says otherwise
      val dataAt = at + levels.toInt
      val storedLength = h.getCompressed_page_size - levels.toInt
      val dataLength = h.getUncompressed_page_size - levels.toInt
      val data =
        if (page.isIs_compressed) pageBytes(dataAt, storedLength, dataLength, reuse = true)
        else if (storedLength != dataLength) fail("an uncompressed page giving two sizes")
        else BytesInput.from(raw, dataAt, dataLength)
      DataPageV2.uncompressed(page.getNum_rows, page.getNum_nulls, page.getNum_values,
        BytesInput.from(raw, at, repetitionLength), BytesInput.from(raw, at + repetitionLength, definitionLength),
        encoding(page.getEncoding), data, null)
    case Some(h) if h.getType == PageType.INDEX_PAGE =>
      body(h.getCompressed_page_size) // nothing to scan
      readPage()
    case Some(h) => fail(s"a ${h.getType} page among the data pages")
  }

  private def encoding(e: org.apache.parquet.format.Encoding): Encoding = Encoding.valueOf(e.name)
}

private[read] object KeyChunkPages {

  /**
   * Chunks above this are left to parquet-java, which reads them in slabs: one array this
   * large is already 2.7 times a 128 MB row group's uuid chunk.
   */
  private val MaxChunkBytes = 128L * 1024 * 1024

  /** The pages of `chunk` read from `in`, if this reads them: a SNAPPY or uncompressed chunk, not encrypted. */
  def read(in: SeekableInputStream, chunk: ColumnChunkMetaData): Option[PageReader] =
    // encryption first: asking an encrypted chunk for its codec decrypts its metadata
    if (chunk.isEncrypted || chunk.getTotalSize > MaxChunkBytes ||
      !Set(CompressionCodecName.SNAPPY, CompressionCodecName.UNCOMPRESSED).contains(chunk.getCodec)) None
    else {
      val raw = new Array[Byte](chunk.getTotalSize.toInt)
      in.seek(chunk.getStartingPos)
      in.readFully(raw)
      Some(new KeyChunkPages(chunk, raw))
    }
}
