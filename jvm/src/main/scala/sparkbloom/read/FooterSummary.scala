// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, ParquetMetadata}
import org.apache.parquet.hadoop.metadata.FileMetaData.EncryptionType
import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import sparkbloom.shims.SparkShims

/**
 * A file as the cache knows it: a rewritten file differs in a [[FileIdentity]] field.
 *
 * @param scope "" for what anyone may read; otherwise the reader that decrypted it
 *              ([[ProbeCache.scopeOf]]): what one session decrypted never serves another
 * @param immutable a table format's data file, never written twice ([[FileOpener.immutableFiles]]):
 *                  its path and length are its version
 */
private[sparkbloom] final case class FileKey(path: String, length: Long, modificationTime: Long, etag: String = "",
    scope: String = "", changeTime: Long = -1L, immutable: Boolean = false)

private[sparkbloom] object FileKey {
  def of(status: org.apache.hadoop.fs.FileStatus, scope: String, immutable: Boolean = false): FileKey = {
    val id = FileIdentity.of(status)
    FileKey(status.getPath.toString, id.length, id.modificationTime, id.etag, scope, id.changeTime, immutable)
  }
}

/**
 * What one column chunk's footer entry says that pruning can use.
 *
 * @param min, max      the chunk's statistics in parquet-java's value classes, only when
 *                      they are trustworthy for equality (never for floating point, whose
 *                      NaN and -0.0 make them unsafe)
 * @param filterOffset  `bloom_filter_offset`, or -1 without a filter
 * @param filterLength  `bloom_filter_length`, or -1 for files written before it existed
 * @param dictionaryOnly every data page is dictionary-encoded (parquet-java then writes no
 *                      filter of its own; the dictionary answers membership exactly)
 * @param nonNullValues whether the chunk holds a value that is not null, where its statistics say
 * @param dictionaryBytes the dictionary page's bytes with its header, or -1 without one
 */
private[sparkbloom] final case class ChunkSummary(primitiveType: PrimitiveType, valueCount: Long, min: Option[Any],
    max: Option[Any], filterOffset: Long, filterLength: Int, encrypted: Boolean, dictionaryOnly: Boolean,
    nonNullValues: Option[Boolean] = None, dictionaryBytes: Long = -1) {
  def hasFilter: Boolean = filterOffset >= 0
}

/**
 * One row group and its column chunks, in the footer's order, by dotted path.
 *
 * `columns` leaves out paths that name two chunks: a top-level name with a dot ("a.b") and a
 * nested field (a -> b) share one, so neither may ever be judged by the other's filter.
 */
private[sparkbloom] final case class RowGroupSummary(ordinal: Int, rowCount: Long,
    chunks: IndexedSeq[(String, ChunkSummary)]) {
  lazy val columns: Map[String, ChunkSummary] =
    chunks.groupBy(_._1).collect { case (path, Seq((_, single))) => path -> single }
}

/**
 * The part of a footer that pruning needs, small enough to cache for many files.
 *
 * @param splitMidpoints per row group, the offset by which parquet-java gives it to one
 *                       split (see [[FooterReader]]); None when unknown
 */
private[sparkbloom] final case class FooterSummary(rowGroups: IndexedSeq[RowGroupSummary],
    keyValueMetadata: Map[String, String], createdBy: String, splitMidpoints: Option[IndexedSeq[Long]]) {

  /** Spark 2.x files and files written in LEGACY rebase mode store rebased dates. */
  def writtenWithLegacyCalendar: Boolean =
    keyValueMetadata.contains(FooterSummary.LegacyDateTimeKey) ||
      keyValueMetadata.get(FooterSummary.SparkVersionKey).exists(_.startsWith("2."))

  /** Rough heap size, for the cache's byte budget. */
  def estimatedBytes: Long = 256L + rowGroups.map(rg => 72L + rg.chunks.size * 200L).sum +
    keyValueMetadata.map { case (k, v) => 2L * (k.length + v.length) }.sum
}

private[sparkbloom] object FooterSummary {

  /** Key-value metadata Spark writes that changes what dates and timestamps mean. */
  val SparkVersionKey = "org.apache.spark.version"
  val LegacyDateTimeKey = "org.apache.spark.legacyDateTime"

  /** The prefix of the key-value metadata sparkbloom writes (inspect shows it). */
  val OwnKeyPrefix = "sparkbloom."

  def apply(footer: ParquetMetadata, splitMidpoints: Option[IndexedSeq[Long]]): FooterSummary = {
    // In a file that uses encryption every column counts as encrypted: parquet-java shows a
    // column encrypted with the footer key as a plain one, yet encrypts its filter, and the
    // table index, which is plaintext, must hold nothing of such a file.
    val fileEncrypted = Option(footer.getFileMetaData.getEncryptionType).exists(_ != EncryptionType.UNENCRYPTED)
    val rowGroups = footer.getBlocks.asScala.toIndexedSeq.zipWithIndex.map { case (block, i) =>
      RowGroupSummary(i, block.getRowCount,
        block.getColumns.asScala.toIndexedSeq.map(c => c.getPath.toDotString -> chunk(c, fileEncrypted)))
    }
    val kv = Option(footer.getFileMetaData.getKeyValueMetaData).map(_.asScala.toMap).getOrElse(Map.empty)
    // Only the keys pruning reads, and sparkbloom's own, are kept: Spark's schema JSON can be large.
    FooterSummary(rowGroups,
      kv.filter { case (k, _) => k == SparkVersionKey || k == LegacyDateTimeKey || k.startsWith(OwnKeyPrefix) },
      Option(footer.getFileMetaData.getCreatedBy).getOrElse(""), splitMidpoints)
  }

  private def chunk(c: ColumnChunkMetaData, fileEncrypted: Boolean): ChunkSummary = {
    val primitive = c.getPrimitiveType
    // Decimal min/max are not trusted: writers have ordered them by bytes or unsigned (Arrow
    // C++ before 4.0, PARQUET-1655; ClickHouse and polars until 2025), parquet-java keeps them,
    // and a key between such a min and max would be ruled out. The filter still answers.
    val stats = Option(c.getStatistics)
      .filter(s => !s.isEmpty && s.hasNonNullValue && s.isSmallerThan(4096))
      .filter(_ =>
        primitive.getPrimitiveTypeName match {
          case PrimitiveTypeName.FLOAT | PrimitiveTypeName.DOUBLE | PrimitiveTypeName.INT96 |
              PrimitiveTypeName.BOOLEAN => false
          case _ => !primitive.getLogicalTypeAnnotation.isInstanceOf[LogicalTypeAnnotation.DecimalLogicalTypeAnnotation]
        })
    ChunkSummary(primitive, c.getValueCount, stats.map(_.genericGetMin), stats.map(_.genericGetMax),
      c.getBloomFilterOffset, SparkShims.bloomFilterLength(c), fileEncrypted || c.isEncrypted,
      Option(c.getEncodingStats).exists(s => s.hasDictionaryPages && !s.hasNonDictionaryEncodedPages),
      nonNullValues(c), dictionaryBytes(c))
  }

  private def nonNullValues(c: ColumnChunkMetaData): Option[Boolean] =
    Option(c.getStatistics).filterNot(_.isEmpty).flatMap { s =>
      if (s.hasNonNullValue) Some(true)
      else if (s.isNumNullsSet) Some(s.getNumNulls < c.getValueCount)
      else None
    }

  private def dictionaryBytes(c: ColumnChunkMetaData): Long = {
    val offset = c.getDictionaryPageOffset
    if (offset > 0 && c.hasDictionaryPage && c.getFirstDataPageOffset > offset) c.getFirstDataPageOffset - offset
    else -1
  }
}
