package sparkbloom.read

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, ParquetMetadata}
import org.apache.parquet.schema.PrimitiveType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

/** A file as the cache knows it: a rewritten file has another length or modification time. */
final case class FileKey(path: String, length: Long, modificationTime: Long)

/**
 * What one column chunk's footer entry says that pruning can use.
 *
 * @param min, max      the chunk's statistics in parquet-java's value classes, only when
 *                      they are trustworthy for equality (never for floating point, whose
 *                      NaN and -0.0 make them unsafe)
 * @param filterOffset  `bloom_filter_offset`, or -1 without a filter
 * @param filterLength  `bloom_filter_length`, or -1 for files written before it existed
 */
final case class ChunkSummary(
    primitiveType: PrimitiveType,
    min: Option[Any],
    max: Option[Any],
    filterOffset: Long,
    filterLength: Int,
    encrypted: Boolean) {
  def hasFilter: Boolean = filterOffset >= 0
}

/**
 * One row group: its columns, and the byte range `[startingPos, startingPos + compressedSize)`
 * whose midpoint parquet-java uses to assign it to exactly one split of the file.
 */
final case class RowGroupSummary(
    ordinal: Int,
    rowCount: Long,
    startingPos: Long,
    compressedSize: Long,
    columns: Map[String, ChunkSummary])

/** The part of a footer that pruning needs, small enough to cache for many files. */
final case class FooterSummary(
    rowGroups: IndexedSeq[RowGroupSummary],
    keyValueMetadata: Map[String, String],
    createdBy: String) {

  /**
   * Whether a task may be given byte ranges that hold exactly the chosen row groups.
   * parquet-java assigns a row group to a range by a midpoint computed from the raw
   * footer (first column's dictionary or data page offset, the row group's total size);
   * that midpoint lies inside the row group's own bytes for files of writers known to
   * write consistent offsets, which is all this trusts: parquet-java 1.12.2 and later (so
   * every Spark 3.3+ file), arrow-rs, Arrow C++ and DuckDB. Other files are read whole.
   */
  def rowGroupRangesTrusted: Boolean = {
    val ordered = rowGroups.sortBy(_.startingPos)
    val disjoint = ordered.zip(ordered.drop(1)).forall { case (a, b) => a.startingPos + a.compressedSize <= b.startingPos }
    disjoint && ordered.headOption.forall(_.startingPos >= 4) && FooterSummary.trustedWriter(createdBy)
  }

  /** Rough heap size, for the cache's byte budget. */
  def estimatedBytes: Long = 256L + rowGroups.map(rg => 64L + rg.columns.size * 160L).sum +
    keyValueMetadata.map { case (k, v) => 2L * (k.length + v.length) }.sum
}

object FooterSummary {

  /** Key-value metadata Spark writes that changes what dates and timestamps mean. */
  val SparkVersionKey = "org.apache.spark.version"
  val LegacyDateTimeKey = "org.apache.spark.legacyDateTime"

  def apply(footer: ParquetMetadata): FooterSummary = {
    val rowGroups = footer.getBlocks.asScala.toIndexedSeq.zipWithIndex.map { case (block, i) =>
      // A top-level name with a dot ("a.b") and a nested field (a -> b) share a dotted path:
      // such columns are left out, so neither is ever judged by the other's filter.
      val byPath = block.getColumns.asScala.toSeq.groupBy(_.getPath.toDotString)
      RowGroupSummary(i, block.getRowCount, block.getStartingPos, block.getCompressedSize,
        byPath.collect { case (path, Seq(single)) => path -> chunk(single) })
    }
    val kv = Option(footer.getFileMetaData.getKeyValueMetaData).map(_.asScala.toMap).getOrElse(Map.empty)
    // Only the keys pruning reads are kept: Spark's schema JSON can be large.
    FooterSummary(rowGroups, kv.filter { case (k, _) => k == SparkVersionKey || k == LegacyDateTimeKey },
      Option(footer.getFileMetaData.getCreatedBy).getOrElse(""))
  }

  private val ParquetJava = """parquet-(?:mr|java) version (\d+)\.(\d+)\.(\d+).*""".r

  private[read] def trustedWriter(createdBy: String): Boolean = createdBy match {
    case ParquetJava(major, minor, patch) =>
      val (a, b, c) = (major.toInt, minor.toInt, patch.toInt)
      a > 1 || (a == 1 && (b > 12 || (b == 12 && c >= 2)))
    case other =>
      other.startsWith("parquet-rs version") || other.startsWith("parquet-cpp-arrow version") ||
        other.startsWith("DuckDB")
  }

  private def chunk(c: ColumnChunkMetaData): ChunkSummary = {
    val primitive = c.getPrimitiveType
    val stats = Option(c.getStatistics)
      .filter(s => !s.isEmpty && s.hasNonNullValue && s.isSmallerThan(4096))
      .filter(_ => primitive.getPrimitiveTypeName match {
        case PrimitiveTypeName.FLOAT | PrimitiveTypeName.DOUBLE | PrimitiveTypeName.INT96 |
            PrimitiveTypeName.BOOLEAN => false
        case _ => true
      })
    ChunkSummary(
      primitive,
      stats.map(_.genericGetMin),
      stats.map(_.genericGetMax),
      c.getBloomFilterOffset,
      c.getBloomFilterLength,
      c.isEncrypted)
  }
}
