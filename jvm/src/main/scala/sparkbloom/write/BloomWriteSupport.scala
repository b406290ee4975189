// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.util.{List => JList, Map => JMap}

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.column.values.bloomfilter.{BlockSplitBloomFilter, BloomFilter}
import org.apache.parquet.hadoop.{ParquetOutputFormat, ParquetWriter}
import org.apache.parquet.hadoop.api.WriteSupport
import org.apache.parquet.io.api.RecordConsumer
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, StructType}

import sparkbloom.hashing.RowValueHasher
import sparkbloom.shims.SparkShims

/**
 * Spark's own `ParquetWriteSupport`, which also hashes the filtered columns of every row
 * it writes, and hands each finished row group's filters to the file writer.
 *
 * parquet-java calls `prepareForWrite` once when the file starts and again after every
 * row group it flushes, and `finalizeWrite` after the last one, always before the file
 * is closed: exactly the moments when a row group's values are complete.
 */
private[sparkbloom] final class BloomWriteSupport extends ParquetWriteSupport {
  // The calendar Spark's writer stores dates and timestamps in, decided as the parent
  // decides it (the task's SQL conf), with Spark's own rebase functions: filters then hold
  // exactly the stored values, and LEGACY rebased dates are found by every reader.
  private val rebase: RowValueHasher.Rebase = {
    val (days, micros) = SparkShims.writeRebase(SQLConf.get)
    RowValueHasher.Rebase(days, micros)
  }
  private var columns: Array[ColumnCollector] = Array.empty
  private var rowGroupFilters: JList[JMap[String, BloomFilter]] = _
  private var rowGroupsAttached = 0
  private var rowsInRowGroup = 0L
  private var ceiling = 0

  /** Per column, the row groups whose filter the ceiling kept above the fpp. */
  private val ceilingBound = scala.collection.mutable.LinkedHashMap.empty[String, List[Int]]

  override def init(configuration: Configuration): WriteSupport.WriteContext = {
    val context = super.init(configuration)
    val spec = BloomWriteSpec.decode(configuration.get(BloomWriteSpec.ConfKey))
    val schema = DataType.fromJson(configuration.get(ParquetWriteSupport.SPARK_ROW_SCHEMA)).asInstanceOf[StructType]
    val timestampOutput = configuration.get(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key, "INT96")
    val legacy = configuration.getBoolean(SQLConf.PARQUET_WRITE_LEGACY_FORMAT.key, false)
    ceiling = spec.ceiling(configuration.getLong(ParquetOutputFormat.BLOCK_SIZE, ParquetWriter.DEFAULT_BLOCK_SIZE))
    columns = spec.columns
      .map(c => ColumnCollector(c, ceiling, spec.exactSize, schema, timestampOutput, legacy, rebase)).toArray
    context
  }

  /** Called once the record writer exists: where finished row groups' filters go. */
  def attach(filters: JList[JMap[String, BloomFilter]]): Unit = rowGroupFilters = filters

  override def prepareForWrite(recordConsumer: RecordConsumer): Unit = {
    attachFinishedRowGroup()
    super.prepareForWrite(recordConsumer)
  }

  override def write(row: InternalRow): Unit = {
    var i = 0
    while (i < columns.length) { columns(i).add(row); i += 1 }
    rowsInRowGroup += 1
    super.write(row)
  }

  override def finalizeWrite(): WriteSupport.FinalizedWriteContext = {
    attachFinishedRowGroup()
    val parent = super.finalizeWrite()
    if (ceilingBound.isEmpty) parent
    else {
      val metadata = new java.util.HashMap[String, String](parent.getExtraMetaData)
      metadata.put(CeilingBound.MetadataKey, CeilingBound.encode(ceilingBound.toMap))
      new WriteSupport.FinalizedWriteContext(metadata)
    }
  }

  private def attachFinishedRowGroup(): Unit = if (rowsInRowGroup > 0) {
    if (rowGroupFilters == null || rowGroupFilters.size != rowGroupsAttached + 1) {
      throw new IllegalStateException(s"sparkbloom expected row group ${rowGroupsAttached + 1} to have ended, " +
        s"parquet-java reports ${Option(rowGroupFilters).map(_.size).getOrElse(0)}")
    }
    val target = rowGroupFilters.get(rowGroupsAttached)
    columns.foreach { c =>
      target.put(c.column.dottedPath, new BlockSplitBloomFilter(c.builder.finish().toBitset))
      if (c.builder.ceilingBound) {
        val path = c.column.dottedPath
        ceilingBound(path) = ceilingBound.getOrElse(path, Nil) :+ rowGroupsAttached
        CeilingBound.warnOnce(path, ceiling, c.column.fpp)
      }
      if (c.builder.ndvHintTooLow) CeilingBound.warnHintTooLow(c.column)
    }
    rowGroupsAttached += 1
    rowsInRowGroup = 0
  }
}

/** One filtered column: how to find its value in a row, and its filter being built. */
private final case class ColumnCollector(column: BloomColumn, builder: ColumnFilterBuilder, hasher: RowValueHasher,
    ordinals: Array[Int], structSizes: Array[Int]) {

  /** Hashes the column's value in `row` into the filter; nulls (at any level) carry nothing. */
  def add(row: InternalRow): Unit = {
    var current: SpecializedGetters = row
    var level = 0
    while (level < ordinals.length - 1) {
      if (current.isNullAt(ordinals(level))) return
      current = current.getStruct(ordinals(level), structSizes(level))
      level += 1
    }
    val leaf = ordinals(level)
    if (!current.isNullAt(leaf)) builder.insert(hasher.hash(current, leaf))
  }
}

private object ColumnCollector {
  def apply(column: BloomColumn, maxBytes: Int, exactSize: Boolean, schema: StructType, timestampOutput: String,
      legacy: Boolean, rebase: RowValueHasher.Rebase): ColumnCollector = {
    // the struct that holds each field of the path, from the top
    val structs = column.path.init.scanLeft(schema)((s, n) => s(s.fieldIndex(n)).dataType.asInstanceOf[StructType])
    val ordinals = structs.zip(column.path).map { case (struct, name) => struct.fieldIndex(name) }.toArray
    val hasher = RowValueHasher.forType(structs.last(ordinals.last).dataType, timestampOutput, legacy, rebase)
      .fold(reason => throw new IllegalStateException(s"${column.dottedPath}: $reason"), identity)
    ColumnCollector(column, new ColumnFilterBuilder(column, maxBytes, exactSize), hasher, ordinals,
      structs.tail.map(_.length).toArray)
  }
}
