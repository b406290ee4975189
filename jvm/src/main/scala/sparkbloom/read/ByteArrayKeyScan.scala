// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.parquet.bytes.{ByteBufferInputStream, BytesUtils}
import org.apache.parquet.column.{ColumnDescriptor, Encoding, ValuesType}
import org.apache.parquet.column.page.{DataPage, DataPageV1, DataPageV2, PageReadStore}
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import sparkbloom.sbbf.XxHash64

/**
 * The rows of a string or binary key chunk whose value hashes into [[RowKeys]], read from
 * its pages directly: PLAIN values are hashed where they lie in the page, a dictionary's
 * entries once each. parquet-java's column reader (what [[sparkbloom.hashing.ColumnValueHashes]]
 * uses for every other type) makes an object per value, which for the common string key
 * cost twice this scan and ate what reading fewer rows saved.
 */
private[read] object ByteArrayKeyScan {
  // by name: two of them are deprecated (still written by parquet-java's v1 writer)
  private val levelsAndValues = Set("PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "RLE", "BIT_PACKED")

  /** A BYTE_ARRAY column outside any list whose pages use only encodings this scan reads. */
  def applies(column: ColumnDescriptor, chunk: ColumnChunkMetaData): Boolean =
    column.getPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY && column.getMaxRepetitionLevel == 0 &&
      chunk.getEncodings.asScala.forall(e => levelsAndValues.contains(e.name))

  /** Calls `each(row)` for every row of the chunk whose value's hash is one of `keys`. */
  def foreachMatch(pages: PageReadStore, column: ColumnDescriptor, keys: RowKeys)(each: Int => Unit): Unit = {
    val reader = pages.getPageReader(column)
    val dictionaryPage = reader.readDictionaryPage()
    val dictionary =
      if (dictionaryPage == null) null else dictionaryPage.getEncoding.initDictionary(column, dictionaryPage)
    lazy val matchingIds = Array.tabulate(dictionary.getMaxId + 1) { id =>
      keys.contains(XxHash64.hashBytes(dictionary.decodeToBinary(id).toByteBuffer))
    }
    val maxDefinition = column.getMaxDefinitionLevel
    var firstRow = 0
    var page: DataPage = reader.readPage()
    while (page != null) {
      val count = page.getValueCount
      val (definitionLevel, values, encoding) = levelsOf(page, column, count)
      def defined(): Boolean = maxDefinition == 0 || definitionLevel() == maxDefinition
      if (encoding == Encoding.PLAIN) {
        val buffer = heap(values.slice(values.available()))
        val bytes = buffer.array()
        var at = buffer.arrayOffset() + buffer.position()
        var i = 0
        while (i < count) {
          if (defined()) {
            val length = (bytes(at) & 0xff) | (bytes(at + 1) & 0xff) << 8 | (bytes(at + 2) & 0xff) << 16 |
              (bytes(at + 3) & 0xff) << 24
            if (keys.contains(XxHash64.hashBytes(bytes, at + 4, length))) each(firstRow + i)
            at += 4 + length
          }
          i += 1
        }
      } else {
        if (dictionary == null)
          throw new java.io.IOException(s"a dictionary-encoded page without a dictionary in $column")
        val ids = encoding.getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary)
        ids.initFromPage(count, values)
        var i = 0
        while (i < count) {
          if (defined() && matchingIds(ids.readValueDictionaryId())) each(firstRow + i)
          i += 1
        }
      }
      firstRow += count
      page = reader.readPage()
    }
  }

  /** A page's definition levels (read one by one) and its values, positioned at the first value. */
  private def levelsOf(
      page: DataPage, column: ColumnDescriptor, count: Int): (() => Int, ByteBufferInputStream, Encoding) = page match {
    case v1: DataPageV1 =>
      val in = v1.getBytes.toInputStream
      val levels = v1.getDlEncoding.getValuesReader(column, ValuesType.DEFINITION_LEVEL)
      levels.initFromPage(count, in) // also steps `in` over the levels
      (() => levels.readInteger(), in, v1.getValueEncoding)
    case v2: DataPageV2 =>
      val levels = new RunLengthBitPackingHybridDecoder(BytesUtils.getWidthFromMaxInt(column.getMaxDefinitionLevel),
        v2.getDefinitionLevels.toInputStream)
      (() => levels.readInt(), v2.getData.toInputStream, v2.getDataEncoding)
  }

  private def heap(buffer: ByteBuffer): ByteBuffer =
    if (buffer.hasArray) buffer
    else {
      val copy = new Array[Byte](buffer.remaining)
      buffer.duplicate().get(copy)
      ByteBuffer.wrap(copy)
    }

}
