// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.lang.reflect.{Field, InvocationHandler, Method, Proxy}

import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.page.PageReader
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.BlockMetaData
import org.apache.parquet.internal.column.columnindex.OffsetIndex
import org.apache.parquet.internal.filter2.columnindex.RowRanges
import org.apache.parquet.io.SeekableInputStream
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.execution.datasources.parquet.{ParquetUtils, SpecificParquetRecordReaderBase, VectorizedParquetRecordReader}
import org.apache.spark.sql.types.StructType
import org.slf4j.LoggerFactory

import sparkbloom.hashing.ColumnValueHashes
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
 * repeated key column, a failure), the reader is left exactly as Spark made it; except in a
 * split that reads only a share of a row group ([[RowGroupSelection]]), where reading it
 * whole would return rows another split returns too: there the task fails.
 */
private[sparkbloom] object MatchingRowsReader {
  private val log = LoggerFactory.getLogger(getClass)

  /** Above this share of matching rows, a row group is read whole: ranges would not pay. */
  private val MaxMatchingShare = 0.5

  /**
   * Makes the vectorized reader inside `reading` (Spark's row iterator or partition reader
   * over one split, not yet read from) return only rows whose `keys` column may match, and of
   * each row group in `shares` (by its first row in the file) only the rows of its share.
   * Where this cannot be done the reader is left as Spark made it, unless a share is less than
   * its row group: then reading it whole would read rows another split reads, so that fails.
   */
  def narrow(reading: AnyRef, keys: RowKeys, file: String, shares: Map[Long, RowShare] = Map.empty): Unit = {
    val mustNarrow = shares.values.exists(!_.whole)
    try {
      val narrowed = internals.flatMap(spark =>
        vectorizedReaderIn(spark, reading).map(narrowReader(spark, _, keys, shares, mustNarrow)))
      if (mustNarrow && !narrowed.contains(true)) throw new IllegalStateException("no reader of Spark's to narrow")
    } catch {
      case NonFatal(e) if mustNarrow =>
        throw new java.io.IOException(s"sparkbloom cannot read its share of the row groups of $file: $e", e)
      case NonFatal(e) =>
        WarnOnce(log, s"late|$file", s"sparkbloom reads every row of the kept row groups of $file: $e")
    }
  }

  /**
   * Whether splits of a scan reading `schema` (partition and data columns) may share row
   * groups ([[RowGroupSelection]]): Spark reads it with its vectorized reader, whose rows this
   * narrows. The same test as Spark's Parquet reader makes.
   */
  def sharesRowGroups(conf: org.apache.spark.sql.internal.SQLConf, schema: StructType): Boolean =
    internals.isDefined && ParquetUtils.isBatchReadSupportedForSchema(conf, schema)

  /** Spark's reader internals, if this Spark has the ones we know (else nothing is narrowed, ever). */
  private lazy val internals: Option[Internals] =
    try Some(new Internals)
    catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        log.warn(s"sparkbloom cannot narrow rows in this Spark's Parquet reader; row groups are read whole: $e")
        None
    }

  /** Whether the reader now reads through the rows planned here. */
  private def narrowReader(spark: Internals, reader: VectorizedParquetRecordReader, keys: RowKeys,
      shares: Map[Long, RowShare], mustNarrow: Boolean): Boolean =
    spark.rowGroups.get(reader) match {
      case impl if spark.isSparksRowGroupReader(impl) =>
        val fileReader = spark.fileReader.get(impl).asInstanceOf[ParquetFileReader]
        val requested = spark.requestedSchema.get(reader).asInstanceOf[MessageType]
        val planned = plan(fileReader, spark.ownPagesSource(fileReader), requested, keys, shares, mustNarrow)
        planned.foreach { ranges =>
          spark.rowGroups.set(reader, spark.rowGroupReader(fileReader, ranges))
          spark.totalRowCount.setLong(reader, ranges.iterator.map(_.fold(0L)(_.rowCount)).sum)
        }
        planned.isDefined
      case _ => false // already narrowed, or a reader Spark did not make
    }

  /**
   * Per row group the reader would return, the rows to read (None: skip it; all of them
   * for a row group too small to pay, see [[RowKeys.minRowGroupBytes]]; only those of its
   * share where `shares` has one); None when no row group is large enough or the file does not
   * allow it (no offset index for a requested column, or an encoding whose values this Spark's
   * reader cannot skip; a key column that is missing, ambiguous, nested in a list or of a type
   * without filters), unless `mustNarrow`: then each row group's share is read whatever the
   * key column, or this fails.
   */
  private def plan(fileReader: ParquetFileReader, ownPages: Option[SeekableInputStream], requested: MessageType,
      keys: RowKeys, shares: Map[Long, RowShare], mustNarrow: Boolean): Option[IndexedSeq[Option[RowRanges]]] = {
    val fileSchema = fileReader.getFileMetaData.getSchema
    val blocks = fileReader.getRowGroups.asScala.toIndexedSeq
    val requestedPaths = requested.getColumns.asScala.map(_.getPath.toSeq).toSet
    val key = fileSchema.getColumns.asScala.filter(_.getPath.mkString(".") == keys.column).toSeq match {
      case Seq(single)
          if single.getMaxRepetitionLevel == 0 && single.getPrimitiveType.getPrimitiveTypeName != INT96 &&
            single.getPrimitiveType.getPrimitiveTypeName != BOOLEAN => Some(single)
      case _ => None
    }
    val readable = blocks.map { block =>
      block.getRowCount <= Int.MaxValue && block.getColumns.asScala.forall { chunk =>
        !requestedPaths.contains(chunk.getPath.toArray.toSeq) || FooterSummary.rowsSkippable(chunk)
      }
    }
    // Where this split has only part of a row group, reading it whole would return rows another
    // split returns too: every row group opened must be one it was given (by first row), and
    // the shared ones must let Spark's reader skip rows. Otherwise, as before sharing: all
    // row groups narrowed or none.
    if (mustNarrow) blocks.indices.foreach { i =>
      val share = shares.get(blocks(i).getRowIndexOffset)
      if (share.isEmpty) throw new java.io.IOException(s"a row group at row ${blocks(i).getRowIndexOffset} not given")
      if (!share.get.whole && !readable(i))
        throw new java.io.IOException("a shared row group whose rows cannot be skipped")
    }
    val narrowable = if (mustNarrow) readable else blocks.map(_ => readable.forall(identity))
    def requestedBytes(block: BlockMetaData): Long = block.getColumns.asScala
      .filter(chunk => requestedPaths.contains(chunk.getPath.toArray.toSeq)).map(_.getTotalUncompressedSize).sum
    val worth = blocks.map(requestedBytes(_) >= keys.minRowGroupBytes)
    val scanned = key.filter(_ => blocks.indices.exists(i => narrowable(i) && worth(i)))
    if (scanned.isEmpty && !mustNarrow) None
    else {
      val createdBy = Option(fileReader.getFileMetaData.getCreatedBy).getOrElse("")
      val keyOnly = scanned.map(ColumnValueHashes.projection(fileSchema, _))
      keyOnly.foreach(fileReader.setRequestedSchema)
      try Some(blocks.indices.map { i =>
          val rowCount = blocks(i).getRowCount
          val share = shares.getOrElse(blocks(i).getRowIndexOffset, RowShare(0, rowCount, rowCount))
          if (share.rows != rowCount) throw new java.io.IOException(s"a row group of $rowCount rows, not ${share.rows}")
          if (share.from >= share.until) None
          else if (scanned.isEmpty || !worth(i) || !narrowable(i)) Some(rowsBetween(share, rowCount))
          else {
            val column = scanned.get
            def scan(pages: PageReader, firstRow: Int): RowList = {
              val rows = new RowList
              KeyChunkScan.foreachMatch(pages, column, keys, firstRow) { row =>
                if (row >= share.from && row < share.until) rows += row
              }
              rows
            }
            val chunk = blocks(i).getColumns.asScala.find(_.getPath.toArray.sameElements(column.getPath))
            val rows = chunk.filter(KeyChunkScan.applies(column, _)) match {
              case Some(keyChunk) =>
                // pages our reader cannot take (an old writer's sizes, say) are parquet-java's to judge
                val ours = ownPages.flatMap { in =>
                  try {
                    val part = if (share.whole) None else Option(fileReader.readOffsetIndex(keyChunk)).map(share -> _)
                    KeyChunkPages.read(in, keyChunk, part).map { case (pages, firstRow) => scan(pages, firstRow) }
                  } catch {
                    case NonFatal(e) =>
                      WarnOnce(log, s"pages|${fileReader.getFile}",
                        s"sparkbloom reads key pages of ${fileReader.getFile} through parquet-java: $e")
                      None
                  }
                }
                ours.getOrElse(scan(fileReader.readRowGroup(i).getPageReader(column), 0))
              case None =>
                val rows = new RowList
                ColumnValueHashes.foreach(fileReader.readRowGroup(i), keyOnly.get, column, createdBy) { (row, hash) =>
                  if (row >= share.from && row < share.until && keys.contains(hash)) rows += row.toInt
                }
                rows
            }
            rowsToRead(share, rowCount, rows)
          }
        })
      finally fileReader.setRequestedSchema(requested)
    }
  }

  private def rowsToRead(share: RowShare, rowCount: Long, matching: RowList): Option[RowRanges] =
    if (matching.size == 0) None
    else if (matching.size > (share.until - share.from) * MaxMatchingShare) Some(rowsBetween(share, rowCount))
    else {
      val rows = matching.result()
      Some(RowRanges.create(rowCount, java.util.stream.IntStream.range(0, rows.length).iterator(),
          new RowSpans(rows, rows)))
    }

  /** The rows of `share`, all of them. */
  private def rowsBetween(share: RowShare, rowCount: Long): RowRanges =
    if (share.whole) RowRanges.createSingle(rowCount)
    else RowRanges.create(rowCount, java.util.stream.IntStream.range(0, 1).iterator(),
      new RowSpans(Array(share.from.toInt), Array(share.until.toInt - 1)))

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

  /** Spans of rows `firsts(i)` to `lasts(i)` as the "pages" of an offset index, which is how parquet-java builds row ranges. */
  private final class RowSpans(firsts: Array[Int], lasts: Array[Int]) extends OffsetIndex {
    override def getPageCount: Int = firsts.length
    override def getOffset(page: Int): Long = throw new UnsupportedOperationException
    override def getCompressedPageSize(page: Int): Int = throw new UnsupportedOperationException
    override def getFirstRowIndex(page: Int): Long = firsts(page)
    override def getLastRowIndex(page: Int, rowGroupRowCount: Long): Long = lasts(page)
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

    private val ownPagesFields =
      Try((field(classOf[ParquetFileReader], "f"), field(classOf[ParquetFileReader], "options"))).toOption

    /**
     * The stream parquet-java reads the file from, for [[KeyChunkPages]] to read key chunks
     * from too (no second open); none where the reader verifies page checksums (ours does not).
     */
    def ownPagesSource(fileReader: ParquetFileReader): Option[SeekableInputStream] = ownPagesFields.collect {
      case (stream, options) if !options.get(fileReader).asInstanceOf[ParquetReadOptions].usePageChecksumVerification =>
        stream.get(fileReader).asInstanceOf[SeekableInputStream]
    }.filter(_ != null)

    def isSparksRowGroupReader(r: AnyRef): Boolean = r != null && r.getClass == sparksImpl

    /** The instance fields of `c` and its superclasses that hold objects, made accessible. */
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
