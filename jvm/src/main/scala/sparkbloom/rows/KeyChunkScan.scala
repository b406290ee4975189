// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import java.nio.ByteBuffer

import scala.jdk.CollectionConverters._

import org.apache.parquet.bytes.{ByteBufferInputStream, BytesUtils}
import org.apache.parquet.column.{ColumnDescriptor, Dictionary, Encoding, ValuesType}
import org.apache.parquet.column.page.{DataPage, DataPageV1, DataPageV2, PageReader}
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._

import sparkbloom.sbbf.XxHash64

/**
 * The rows of a key column chunk whose value hashes into [[RowKeys]], read from its pages
 * directly: PLAIN values are hashed where they lie in the page (their bytes are the plain
 * encoding the filters hash), or compared with the keys' bytes ([[KeyBytes]]) or bits
 * ([[KeyNumbers]]) when the keys came with them; a dictionary's entries are hashed once each.
 * parquet-java's column reader (what [[sparkbloom.hashing.ColumnValueHashes]] uses for other
 * encodings) costs an object per string and a few calls per value, which made this scan cost
 * twice as much and ate what reading fewer rows saved. A page without nulls reads no level.
 */
private[rows] object KeyChunkScan {
  // by name: two of them are deprecated (still written by parquet-java's v1 writer)
  private val levelsAndValues = Set("PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "RLE", "BIT_PACKED")
  private val scannedTypes = Set(INT32, INT64, FLOAT, DOUBLE, BINARY, FIXED_LEN_BYTE_ARRAY)

  /** A column outside any list, of a type with filters, whose pages use only encodings this scan reads. */
  def applies(column: ColumnDescriptor, chunk: ColumnChunkMetaData): Boolean =
    scannedTypes.contains(column.getPrimitiveType.getPrimitiveTypeName) && column.getMaxRepetitionLevel == 0 &&
      chunk.getEncodings.asScala.forall(e => levelsAndValues.contains(e.name))

  /** Calls `each(row)` for every row of the chunk whose pages `reader` reads and whose value's hash is one of `keys`. */
  def foreachMatch(reader: PageReader, column: ColumnDescriptor, keys: RowKeys)(each: Int => Unit): Unit = {
    val typeName = column.getPrimitiveType.getPrimitiveTypeName
    val dictionary = Option(reader.readDictionaryPage()).map(p => p.getEncoding.initDictionary(column, p)).orNull
    lazy val matchingIds =
      Array.tabulate(dictionary.getMaxId + 1)(id => keys.contains(entryHash(dictionary, typeName, id)))
    // a PLAIN value's bytes: a number's 4 or 8 (hashed as that int or long, which is the
    // hash of those bytes; a float's or double's raw bits, as stored), or a length prefix (-1)
    val (width, number) = typeName match {
      case INT32 | FLOAT => (4, true)
      case INT64 | DOUBLE => (8, true)
      case FIXED_LEN_BYTE_ARRAY => (column.getPrimitiveType.getTypeLength, false)
      case _ => (-1, false)
    }
    // where the keys came with their bytes (byte arrays) or bits (numbers), values are compared with those
    val byValue = if (number) null else keys.byValue.orNull
    val byNumber = if (number) keys.byNumber.filter(_.width == width).orNull else null
    val maxDefinition = column.getMaxDefinitionLevel
    var firstRow = 0
    var page: DataPage = reader.readPage()
    while (page != null) {
      val count = page.getValueCount
      val (definitionLevel, values, encoding, everyDefined) = levelsOf(page, column, count)
      def defined(): Boolean = everyDefined || definitionLevel() == maxDefinition
      if (encoding == Encoding.PLAIN) {
        val buffer = heap(values.slice(values.available()))
        val bytes = buffer.array()
        var at = buffer.arrayOffset() + buffer.position()
        var i = 0
        while (i < count) {
          if (defined()) {
            val length = if (width >= 0) width else { at += 4; LittleEndian.int(bytes, at - 4) }
            val matches =
              if (byValue != null) byValue.contains(bytes, at, length)
              else if (byNumber != null)
                byNumber.contains(if (length == 4) LittleEndian.int(bytes, at).toLong else LittleEndian.long(bytes, at))
              else if (!number) keys.contains(XxHash64.hashBytes(bytes, at, length))
              else if (length == 4) keys.contains(XxHash64.hashInt(LittleEndian.int(bytes, at)))
              else keys.contains(XxHash64.hashLong(LittleEndian.long(bytes, at)))
            if (matches) each(firstRow + i)
            at += length
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

  private def entryHash(dictionary: Dictionary, typeName: PrimitiveTypeName, id: Int): Long = typeName match {
    case INT32 => XxHash64.hashInt(dictionary.decodeToInt(id))
    case INT64 => XxHash64.hashLong(dictionary.decodeToLong(id))
    case FLOAT => XxHash64.hashFloat(dictionary.decodeToFloat(id))
    case DOUBLE => XxHash64.hashDouble(dictionary.decodeToDouble(id))
    case _ => XxHash64.hashBytes(dictionary.decodeToBinary(id).toByteBuffer)
  }

  /**
   * A page's definition levels (read one by one), its values positioned at the first value,
   * their encoding, and whether every value is defined (then no level need be read): a
   * required column, or levels that open with one run of the maximum level as long as the page.
   * Each page's bytes are taken once: parquet-java's may come from a stream.
   */
  private def levelsOf(page: DataPage, column: ColumnDescriptor,
      count: Int): (() => Int, ByteBufferInputStream, Encoding, Boolean) = {
    val maxDefinition = column.getMaxDefinitionLevel
    page match {
      case v1: DataPageV1 =>
        val bytes = v1.getBytes.toByteBuffer
        val every = maxDefinition == 0 || everyDefinedV1(bytes, v1.getDlEncoding, maxDefinition, count)
        val in = ByteBufferInputStream.wrap(bytes)
        val levels = v1.getDlEncoding.getValuesReader(column, ValuesType.DEFINITION_LEVEL)
        levels.initFromPage(count, in) // also steps `in` over the levels
        (() => levels.readInteger(), in, v1.getValueEncoding, every)
      case v2: DataPageV2 =>
        val bytes = v2.getDefinitionLevels.toByteBuffer
        val every = maxDefinition == 0 || opensWithRunOf(bytes.duplicate(), maxDefinition, count)
        val levels = new RunLengthBitPackingHybridDecoder(BytesUtils.getWidthFromMaxInt(maxDefinition),
          ByteBufferInputStream.wrap(bytes))
        (() => levels.readInt(), v2.getData.toInputStream, v2.getDataEncoding, every)
    }
  }

  /**
   * Whether a v1 page's `count` values, whose bytes are `page` (from its position on), are all
   * defined at `maxDefinition`: its levels, prefixed by their length, open with such a run within it.
   */
  private[rows] def everyDefinedV1(page: ByteBuffer, encoding: Encoding, maxDefinition: Int, count: Int): Boolean =
    encoding == Encoding.RLE && page.remaining >= 4 && {
      val length = page.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt
      val start = page.position() + 4
      length >= 0 && length <= page.remaining - 4 && {
        val levels = page.duplicate()
        levels.position(start)
        levels.limit(start + length)
        opensWithRunOf(levels, maxDefinition, count)
      }
    }

  /**
   * Whether the RLE/bit-packed hybrid levels at `levels`' position open with a repeated run of
   * `level` at least `count` long (a run header: varint `length << 1`, then the value in the
   * level's bytes, little-endian). Anything else, or too few bytes, says no: levels are then
   * read one by one.
   */
  private[rows] def opensWithRunOf(levels: ByteBuffer, level: Int, count: Int): Boolean = {
    var header = 0L
    var shift = 0
    var more = true
    while (more && shift < 35 && levels.hasRemaining) {
      val b = levels.get()
      header |= (b & 0x7fL) << shift
      shift += 7
      more = (b & 0x80) != 0
    }
    val width = (BytesUtils.getWidthFromMaxInt(level) + 7) / 8
    // parquet-java reads the header as a 32-bit int: a longer one is not one it reads as we do
    if (more || header > 0xffffffffL || (header & 1) != 0 || (header >>> 1) < count || levels.remaining < width) false
    else {
      var value = 0
      var i = 0
      while (i < width) { value |= (levels.get() & 0xff) << (8 * i); i += 1 }
      value == level
    }
  }

  private def heap(buffer: ByteBuffer): ByteBuffer =
    if (buffer.hasArray) buffer
    else {
      val copy = new Array[Byte](buffer.remaining)
      buffer.duplicate().get(copy)
      ByteBuffer.wrap(copy)
    }
}
