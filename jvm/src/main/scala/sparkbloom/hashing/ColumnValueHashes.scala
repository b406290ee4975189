// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

import scala.jdk.CollectionConverters._

import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.impl.ColumnReadStoreImpl
import org.apache.parquet.column.page.PageReadStore
import org.apache.parquet.io.api.{Converter, GroupConverter, PrimitiveConverter}
import org.apache.parquet.schema.{GroupType, MessageType, Type}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import sparkbloom.sbbf.XxHash64

/**
 * The hash of each stored value of a column chunk, as the format's Bloom filters hash it
 * (XXH64 of the plain encoding), read from the file's pages by parquet-java: what indexing
 * a file and narrowing a row group to its matching rows both need.
 */
private[sparkbloom] object ColumnValueHashes {

  /** A projection reading only `column`: the top-level field leading to it, every group narrowed to that path. */
  def projection(schema: MessageType, column: ColumnDescriptor): MessageType =
    new MessageType(schema.getName, projected(schema, column.getPath.toList))

  private def projected(group: GroupType, path: List[String]): Type = {
    val field = group.getType(group.getFieldIndex(path.head))
    if (path.tail.isEmpty) field else field.asGroupType().withNewFields(projected(field.asGroupType(), path.tail))
  }

  /**
   * Calls `each(i, hash)` for the i-th value of `column` in `pages` (read with `schema`, a
   * projection holding it), nulls left out; for a column outside any list, value i is row
   * i. BOOLEAN and INT96 columns carry no filter and are not asked for.
   */
  def foreach(pages: PageReadStore, schema: MessageType, column: ColumnDescriptor, createdBy: String)(
      each: (Long, Long) => Unit): Unit = {
    val reader = new ColumnReadStoreImpl(pages, new Ignoring(schema), schema, createdBy).getColumnReader(column)
    val total = reader.getTotalValueCount
    val maxDefinition = column.getMaxDefinitionLevel
    val hash: () => Long = column.getPrimitiveType.getPrimitiveTypeName match {
      case PrimitiveTypeName.INT32 => () => XxHash64.hashInt(reader.getInteger)
      case PrimitiveTypeName.INT64 => () => XxHash64.hashLong(reader.getLong)
      case PrimitiveTypeName.FLOAT => () => XxHash64.hashFloat(reader.getFloat)
      case PrimitiveTypeName.DOUBLE => () => XxHash64.hashDouble(reader.getDouble)
      case _ => () => XxHash64.hashBytes(reader.getBinary.toByteBuffer)
    }
    var i = 0L
    while (i < total) {
      if (reader.getCurrentDefinitionLevel == maxDefinition) each(i, hash())
      reader.consume()
      i += 1
    }
  }

  /** Converters that drop every value: the column readers are read directly. */
  private[sparkbloom] final class Ignoring(group: GroupType) extends GroupConverter {
    private val children: Array[Converter] = group.getFields.asScala.map { f =>
      if (f.isPrimitive) new PrimitiveConverter {}: Converter else new Ignoring(f.asGroupType()): Converter
    }.toArray
    override def getConverter(fieldIndex: Int): Converter = children(fieldIndex)
    override def start(): Unit = ()
    override def end(): Unit = ()
  }
}
