// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.rows

import java.lang.reflect.{Field, InvocationHandler, Method, Proxy}

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ColumnChunkMetaData}
import org.apache.parquet.internal.column.columnindex.OffsetIndex
import org.apache.parquet.internal.filter2.columnindex.RowRanges
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.execution.datasources.parquet.{SpecificParquetRecordReaderBase, VectorizedParquetRecordReader}
import org.slf4j.LoggerFactory

import sparkbloom.hashing.ColumnValueHashes
import sparkbloom.shims.SparkShims
import sparkbloom.warnings.WarnOnce

/**
 * Late materialization for Spark's vectorized Parquet reader: before the first batch, each
 * row group the reader will return has its key column ([[RowKeys]]) read alone, and the
 * reader is then given only the rows whose key may match, through the same row-range
 * mechanism parquet-java's column-index filtering uses (Spark's reader decodes only those
 * rows, and pages without one are not even read). A row group in which no row passes is
 * not read at all: that is the Bloom filter's false positive, caught.
 *
 * Spark offers no hook for this, so the reader's row-group source is replaced by
 * reflection, on fields that are the same on every Spark line sparkbloom supports. Whenever
 * anything does not fit (another reader, a file without offset indexes, a nested or
 * repeated key column, a failure), the reader is left exactly as Spark made it.
 *
 * [[narrow]] is the one way in, so late materialization can be turned off, reviewed or
 * removed in one place. `sparkbloom.read` builds the [[RowKeys]]; nothing here depends on it.
 */
private[sparkbloom] object MatchingRowsReader {
  private val log = LoggerFactory.getLogger(getClass)

  /** Above this share of matching rows, a row group is read whole: ranges would not pay. */
  private val MaxMatchingShare = 0.5

  /**
   * Makes the vectorized reader inside `reading` (Spark's row iterator or partition reader
   * over one split, not yet read from) return only rows whose `keys` column may match.
   */
  def narrow(reading: AnyRef, keys: RowKeys, file: String): Unit =
    try internals.foreach(spark => vectorizedReaderIn(spark, reading).foreach(narrowReader(spark, _, keys)))
    catch {
      case NonFatal(e) =>
        WarnOnce(log, s"late|$file", s"sparkbloom reads every row of the kept row groups of $file: $e")
    }

  /** Spark's reader internals, if this Spark has the ones we know (else nothing is narrowed, ever). */
  private lazy val internals: Option[Internals] =
    try Some(new Internals)
    catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        log.warn(s"sparkbloom cannot narrow rows in this Spark's Parquet reader; row groups are read whole: $e")
        None
    }

  private def narrowReader(spark: Internals, reader: VectorizedParquetRecordReader, keys: RowKeys): Unit =
    spark.rowGroups.get(reader) match {
      case impl if spark.isSparksRowGroupReader(impl) =>
        val fileReader = spark.fileReader.get(impl).asInstanceOf[ParquetFileReader]
        val requested = spark.requestedSchema.get(reader).asInstanceOf[MessageType]
        plan(fileReader, requested, keys).foreach { ranges =>
          spark.rowGroups.set(reader, spark.rowGroupReader(fileReader, ranges))
          spark.totalRowCount.setLong(reader, ranges.iterator.map(_.fold(0L)(_.rowCount)).sum)
        }
      case _ => // already narrowed, or a reader Spark did not make
    }

  /**
   * Per row group the reader would return, the rows to read (None: skip it; all of them
   * for a row group too small to pay, see [[RowKeys.minRowGroupBytes]]); None when no row
   * group is large enough or the file does not allow it (no offset index for a requested
   * column, or an encoding whose values this Spark's reader cannot skip; a key column that is
   * missing, ambiguous, nested in a list or of a type without filters).
   */
  private def plan(fileReader: ParquetFileReader, requested: MessageType,
      keys: RowKeys): Option[IndexedSeq[Option[RowRanges]]] = {
    val fileSchema = fileReader.getFileMetaData.getSchema
    val blocks = fileReader.getRowGroups.asScala.toIndexedSeq
    val requestedPaths = requested.getColumns.asScala.map(_.getPath.toSeq).toSet
    val key = fileSchema.getColumns.asScala.filter(_.getPath.mkString(".") == keys.column).toSeq match {
      case Seq(single)
          if single.getMaxRepetitionLevel == 0 && single.getPrimitiveType.getPrimitiveTypeName != INT96 &&
            single.getPrimitiveType.getPrimitiveTypeName != BOOLEAN => Some(single)
      case _ => None
    }
    // Spark's reader skips the other rows of every column it reads, which needs an offset
    // index and encodings whose values this Spark skips correctly (a chunk that lists none
    // is trusted with nothing)
    def skippable(chunk: ColumnChunkMetaData): Boolean = {
      val encodings = chunk.getEncodings.asScala
      chunk.getOffsetIndexReference != null && encodings.nonEmpty &&
      encodings.forall(SparkShims.readerSkips(_, chunk.getPrimitiveType.getPrimitiveTypeName))
    }
    val readable = blocks.forall { block =>
      block.getRowCount <= Int.MaxValue && block.getColumns.asScala.forall { chunk =>
        !requestedPaths.contains(chunk.getPath.toArray.toSeq) || skippable(chunk)
      }
    }
    def requestedBytes(block: BlockMetaData): Long = block.getColumns.asScala
      .filter(chunk => requestedPaths.contains(chunk.getPath.toArray.toSeq)).map(_.getTotalUncompressedSize).sum
    val worth = blocks.map(requestedBytes(_) >= keys.minRowGroupBytes)
    key.filter(_ => readable && worth.contains(true)).map { column =>
      val createdBy = Option(fileReader.getFileMetaData.getCreatedBy).getOrElse("")
      val keyOnly = ColumnValueHashes.projection(fileSchema, column)
      fileReader.setRequestedSchema(keyOnly)
      try blocks.indices.map { i =>
          if (!worth(i)) Some(RowRanges.createSingle(blocks(i).getRowCount))
          else {
            val chunk = blocks(i).getColumns.asScala.find(_.getPath.toArray.sameElements(column.getPath))
            // only the key chunk is read (the requested schema): the other columns wait for the rows that pass
            val pages = fileReader.readRowGroup(i)
            val rows = new RowList
            if (chunk.exists(KeyChunkScan.applies(column, _)))
              KeyChunkScan.foreachMatch(pages.getPageReader(column), column, keys)(rows += _)
            else
              ColumnValueHashes.foreach(pages, keyOnly, column, createdBy) { (row, hash) =>
                if (keys.contains(hash)) rows += row.toInt
              }
            rowsToRead(blocks(i).getRowCount, rows)
          }
        }
      finally fileReader.setRequestedSchema(requested)
    }
  }

  private def rowsToRead(rowCount: Long, matching: RowList): Option[RowRanges] =
    if (matching.size == 0) None
    else if (matching.size > rowCount * MaxMatchingShare) Some(RowRanges.createSingle(rowCount))
    else {
      val rows = matching.result()
      Some(RowRanges.create(rowCount, java.util.stream.IntStream.range(0, rows.length).iterator(),
          new SingleRows(rows)))
    }

  private final class RowList {
    private var rows = new Array[Int](16)
    var size = 0
    def +=(row: Int): Unit = {
      if (size == rows.length) rows = java.util.Arrays.copyOf(rows, size * 2)
      rows(size) = row
      size += 1
    }
    def result(): Array[Int] = java.util.Arrays.copyOf(rows, size)
  }

  /** Rows as an offset index of one-row "pages", which is how parquet-java builds row ranges from a list. */
  private final class SingleRows(rows: Array[Int]) extends OffsetIndex {
    override def getPageCount: Int = rows.length
    override def getOffset(page: Int): Long = throw new UnsupportedOperationException
    override def getCompressedPageSize(page: Int): Int = throw new UnsupportedOperationException
    override def getFirstRowIndex(page: Int): Long = rows(page)
    override def getLastRowIndex(page: Int, rowGroupRowCount: Long): Long = rows(page)
  }

  /**
   * The vectorized reader Spark's iterator or partition reader wraps: a field of it, or of
   * one of Spark's own readers it wraps (V2 adds partition values around its row reader).
   */
  private def vectorizedReaderIn(spark: Internals, reading: AnyRef,
      depth: Int = 3): Option[VectorizedParquetRecordReader] =
    reading match {
      case r: VectorizedParquetRecordReader => Some(r)
      case _ if depth == 0 || reading == null || !reading.getClass.getName.startsWith("org.apache.spark.sql.") => None
      case _ =>
        spark.fieldsOf(reading.getClass).iterator
          .filter(f => !f.getType.isArray && !f.getName.contains("outer"))
          .map(f => vectorizedReaderIn(spark, f.get(reading), depth - 1)).collectFirst { case Some(r) => r }
    }

  /** Spark's reader fields, the same on 3.5 to 4.3 (checked by the tests on every line). */
  private final class Internals {
    private val base = classOf[SpecificParquetRecordReaderBase[_]]
    private def field(owner: Class[_], name: String): Field = {
      val f = owner.getDeclaredField(name)
      f.setAccessible(true)
      f
    }
    val rowGroups: Field = field(base, "reader")
    val totalRowCount: Field = field(base, "totalRowCount")
    val requestedSchema: Field = field(base, "requestedSchema")
    private val rowGroupReaderType = Class.forName(base.getName + "$ParquetRowGroupReader")
    private val sparksImpl = Class.forName(base.getName + "$ParquetRowGroupReaderImpl")
    val fileReader: Field = field(sparksImpl, "reader")

    def isSparksRowGroupReader(r: AnyRef): Boolean = r != null && r.getClass == sparksImpl

    def fieldsOf(c: Class[_]): Seq[Field] =
      Iterator.iterate[Class[_]](c)(_.getSuperclass).takeWhile(_ != null).flatMap(_.getDeclaredFields)
        .filter(f => !java.lang.reflect.Modifier.isStatic(f.getModifiers) && !f.getType.isPrimitive)
        .map { f => f.setAccessible(true); f }.toSeq

    /** A row-group source that returns, in order, each row group to read, with its rows. */
    def rowGroupReader(fileReader: ParquetFileReader, ranges: IndexedSeq[Option[RowRanges]]): AnyRef =
      Proxy.newProxyInstance(rowGroupReaderType.getClassLoader, Array(rowGroupReaderType),
        new InvocationHandler {
          private var next = 0
          override def invoke(proxy: Any, method: Method, args: Array[AnyRef]): AnyRef = method.getName match {
            case "readNextRowGroup" =>
              while (next < ranges.length && ranges(next).isEmpty) next += 1
              if (next >= ranges.length) null
              else { next += 1; fileReader.readFilteredRowGroup(next - 1, ranges(next - 1).get) }
            case "close" => fileReader.close(); null
            case "hashCode" => Int.box(System.identityHashCode(proxy))
            case "equals" => Boolean.box(proxy.asInstanceOf[AnyRef] eq args(0))
            case "toString" => "sparkbloom matching-rows reader"
            case other => throw new UnsupportedOperationException(other)
          }
        })
  }
}
