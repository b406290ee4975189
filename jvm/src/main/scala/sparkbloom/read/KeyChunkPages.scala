// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayInputStream, IOException}

import org.apache.parquet.bytes.BytesInput
import org.apache.parquet.column.Encoding
import org.apache.parquet.column.page.{DataPage, DataPageV1, DataPageV2, DictionaryPage, PageReader}
import org.apache.parquet.format.{PageHeader, PageType, Util}
import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, CompressionCodecName}
import org.apache.parquet.internal.column.columnindex.OffsetIndex
import org.apache.parquet.io.SeekableInputStream
import org.xerial.snappy.Snappy

/**
 * The pages of a key column chunk ([[KeyChunkScan]]), read in one piece and decompressed
 * into one buffer that each data page reuses. parquet-java's page reader decompresses each
 * page through a stream it builds for it and copies the result, which on a 128 MB row group's
 * string key took ~30 ms more of a ~0.27 s lookup (bench/README.md). Only SNAPPY and
 * uncompressed chunks that are not encrypted are read here; the others go through
 * parquet-java as before. A data page is valid until the next one is read.
 *
 * Pages are taken as parquet-java takes them: from the chunk's starting position for its
 * total size, until the footer's count of values is read. Anything else (fewer or more
 * values, a page past the chunk's end, sizes that disagree) is an error, never fewer rows.
 * Where a split reads a share of a row group's rows, only the data pages holding them are read
 * (after the dictionary), as the chunk's offset index places them, and each must hold the
 * rows the offset index gives it.
 *
 * @param pageValues      the values of each data page to read, if only some are read (else the
 *                        chunk's pages are read until its count of values)
 * @param dictionaryBytes where only some are read, the bytes before them: one dictionary page, or none
 */
private[read] final class KeyChunkPages private (chunk: ColumnChunkMetaData, raw: Array[Byte],
    pageValues: Option[Array[Long]], dictionaryBytes: Int = 0)
    extends PageReader {
  private val cursor = new ByteArrayInputStream(raw)
  private var buffer = new Array[Byte](0)
  private var pending: Option[PageHeader] = None
  private var valuesRead = 0L
  private var pagesRead = 0
  private val valuesToRead = pageValues.fold(chunk.getValueCount)(_.sum)

  private def position: Int = raw.length - cursor.available()

  private def fail(problem: String): Nothing = throw new IOException(s"$problem in the column chunk $chunk")

  /** The next page's header; none once the chunk's values are all read (bytes after them are not pages). */
  private def nextHeader(): Option[PageHeader] = {
    val next =
      if (pending.isDefined) pending
      else if (valuesRead == valuesToRead) None
      else if (cursor.available() > 0) Some(Util.readPageHeader(cursor))
      else fail(s"pages holding $valuesRead values, not $valuesToRead,")
    pending = None
    next
  }

  /** Counts a data page's values, which must not take the chunk past its footer's count (or its offset index's). */
  private def count(values: Int): Unit = {
    valuesRead += values
    if (values < 0 || valuesRead > valuesToRead) fail(s"more values than $valuesToRead")
    pageValues.foreach { expected =>
      if (values != expected(pagesRead))
        fail(s"a page of $values values where the offset index has ${expected(pagesRead)}")
    }
    pagesRead += 1
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

  override def readDictionaryPage(): DictionaryPage =
    if (pageValues.isDefined && dictionaryBytes == 0) null
    else nextHeader() match {
      case Some(h) if h.getType == PageType.DICTIONARY_PAGE =>
        val dictionary = h.getDictionary_page_header
        val at = body(h.getCompressed_page_size)
        // the pages of a share follow the dictionary directly: rows are counted from the first
        if (pageValues.isDefined && position != dictionaryBytes) fail("bytes between the dictionary and the pages")
        new DictionaryPage(pageBytes(at, h.getCompressed_page_size, h.getUncompressed_page_size, reuse = false),
          dictionary.getNum_values, encoding(dictionary.getEncoding))
      case _ if pageValues.isDefined => fail("a page before the offset index's first that is not a dictionary")
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

  /**
   * The pages of `chunk` read from `in`, and the row of its row group the first of them starts
   * at, if this reads them: a SNAPPY or uncompressed chunk, not encrypted. With `share`, only
   * those holding its rows, as the chunk's offset index places them (an index that does not
   * add up: all pages).
   */
  def read(in: SeekableInputStream, chunk: ColumnChunkMetaData,
      share: Option[(RowShare, OffsetIndex)] = None): Option[(PageReader, Int)] =
    // encryption first: asking an encrypted chunk for its codec decrypts its metadata
    if (chunk.isEncrypted || chunk.getTotalSize > MaxChunkBytes ||
      !Set(CompressionCodecName.SNAPPY, CompressionCodecName.UNCOMPRESSED).contains(chunk.getCodec)) None
    else {
      val pages = share.flatMap { case (rows, index) => pagesHolding(chunk, index, rows) }
      pages match {
        case Some(Pages(dictionaryBytes, dataStart, dataBytes, values, firstRow)) =>
          val raw = new Array[Byte]((dictionaryBytes + dataBytes).toInt)
          in.seek(chunk.getStartingPos)
          in.readFully(raw, 0, dictionaryBytes.toInt)
          in.seek(dataStart)
          in.readFully(raw, dictionaryBytes.toInt, dataBytes.toInt)
          Some((new KeyChunkPages(chunk, raw, Some(values), dictionaryBytes.toInt), firstRow.toInt))
        case None =>
          val raw = new Array[Byte](chunk.getTotalSize.toInt)
          in.seek(chunk.getStartingPos)
          in.readFully(raw)
          Some((new KeyChunkPages(chunk, raw, None), 0))
      }
    }

  /** Where the data pages holding a share's rows lie: after the dictionary's bytes, one run of pages. */
  private final case class Pages(dictionaryBytes: Long, dataStart: Long, dataBytes: Long, values: Array[Long],
      firstRow: Long)

  /**
   * The pages of `chunk` holding the rows of `share`, by its offset index: a run of adjacent
   * pages within the chunk, after whatever precedes the first data page (the dictionary).
   * None when the index does not describe the chunk so.
   */
  private def pagesHolding(chunk: ColumnChunkMetaData, index: OffsetIndex, share: RowShare): Option[Pages] = {
    val count = index.getPageCount
    val chunkEnd = chunk.getStartingPos + chunk.getTotalSize
    def first(p: Int) = index.getFirstRowIndex(p)
    def last(p: Int) = if (p + 1 < count) first(p + 1) - 1 else share.rows - 1
    def end(p: Int) = index.getOffset(p) + index.getCompressedPageSize(p)
    val described = count > 0 && first(0) == 0 && index.getOffset(0) >= chunk.getStartingPos &&
      end(count - 1) <= chunkEnd && (0 until count).forall(p => last(p) >= first(p)) &&
      (1 until count).forall(p => index.getOffset(p) == end(p - 1)) && chunk.getValueCount == share.rows
    val from = (0 until count).find(last(_) >= share.from)
    val until = (0 until count).reverse.find(first(_) < share.until)
    for (p0 <- from; p1 <- until if described && p0 <= p1) yield {
      Pages(index.getOffset(0) - chunk.getStartingPos, index.getOffset(p0), end(p1) - index.getOffset(p0),
        (p0 to p1).map(p => last(p) - first(p) + 1).toArray, first(p0))
    }
  }
}
