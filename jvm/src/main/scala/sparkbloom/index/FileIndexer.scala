// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.util.Locale

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.schema.{MessageType, PrimitiveType, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import sparkbloom.hashing.ColumnValueHashes
import sparkbloom.read.{FileIdentity, FileOpener, FilterLookup, FooterSummary, OpenedFile}
import sparkbloom.sbbf.{FilterEstimates, FilterSizing, SplitBlockBloomFilter}

/**
 * Indexes one Parquet file, in a task: reads only the wanted columns, hashes every stored
 * value as the format's filters do (XXH64 of the plain encoding), and returns compact
 * filters. Whoever wrote the file, the filters answer exactly as an in-file filter would.
 */
private[sparkbloom] object FileIndexer {

  /**
   * One column of one file: a filter per unit, each the smallest power of two meeting the
   * fpp for the unit's distinct values (they are lined up to one size on the driver).
   */
  final case class IndexedColumn(entry: IndexLayout.ColumnEntry, bitsets: IndexedSeq[Array[Byte]])

  final case class Result(file: IndexLayout.IndexedFile, columns: IndexedSeq[IndexedColumn])

  /**
   * A file's own filter is good enough, and the index keeps one filter for the whole file,
   * when every row group has one for the column whose fpp, measured on its bits, is at most
   * this many times the index's target (parquet-java's 1 MiB default filters over a large
   * row group, or DuckDB's, which skips high-cardinality columns, are not).
   */
  private val OwnFilterSlack = 2.0

  def index(
      status: FileStatus,
      relativePath: String,
      columns: Seq[String],
      fieldIds: Option[Seq[Int]],
      caseSensitive: Boolean,
      fpp: Double,
      maxBytes: Int,
      conf: Configuration,
      opener: FileOpener = FileOpener.HadoopFileSystem): Result = {
    val identity = FileIdentity.of(status)
    // Footer and filters as the pruner reads them; the values through parquet-java's reader.
    OpenedFile.using(status, conf, cache = None, opener) { opened =>
      val footer = opened.footer
      val reader = opened.parquetReader
      val schema = reader.getFooter.getFileMetaData.getSchema
      val leaves = schema.getColumns.asScala.toIndexedSeq
      // Encrypted columns are not indexed: the index is plaintext, and would tell anyone
      // without the key which values a file holds.
      val resolved = columns.indices.map(c =>
        resolve(leaves, columns(c), fieldIds.map(_(c)), caseSensitive).filterNot { leaf =>
          footer.rowGroups.exists(_.columns.get(leaf.getPath.mkString(".")).forall(_.encrypted))
        })
      val wanted = resolved.flatten.distinct
      // per column path: per row group of the footer, in order: distinct hashes
      val hashes = readHashes(reader, schema, wanted, footer.rowGroups.map(_.rowCount))
      val file = IndexLayout.IndexedFile(relativePath, identity, footer.rowGroups.size, footer.splitMidpoints,
        footer.writtenWithLegacyCalendar)
      val indexed = resolved.map {
        case None => IndexedColumn(IndexLayout.ColumnEntry.NotCovered, IndexedSeq.empty)
        case Some(leaf) =>
          val dotted = leaf.getPath.mkString(".")
          val perRowGroup = hashes(dotted)
          val ambiguous =
            leaves.count(_.getPath.mkString(".").toLowerCase(Locale.ROOT) == dotted.toLowerCase(Locale.ROOT)) > 1
          val fileLevel = footer.rowGroups.nonEmpty && hasOwnFilters(opened, footer, dotted, fpp)
          val units = if (fileLevel) IndexedSeq(distinct(perRowGroup.flatten.toArray)) else perRowGroup
          val entry =
            IndexLayout.ColumnEntry(dotted, ambiguous, typeText(leaf.getPrimitiveType), 0, units.size, fileLevel)
          IndexedColumn(entry, units.map(u => filterOf(u, fpp, maxBytes).toBitset))
      }
      Result(file, indexed.toIndexedSeq)
    }
  }

  /**
   * The file's leaf for a column path, found as pruning finds it: by its field id if it has
   * one, else by its path, exactly, or case-insensitively when the match is unique. Repeated
   * leaves, booleans and INT96 are not indexed: no equality on them can be judged by a filter.
   */
  private def resolve(leaves: IndexedSeq[ColumnDescriptor], column: String, fieldId: Option[Int],
      caseSensitive: Boolean): Option[ColumnDescriptor] = {
    val matching =
      if (fieldId.isDefined) leaves.filter(l => Option(l.getPrimitiveType.getId).map(_.intValue) == fieldId)
      else if (caseSensitive) leaves.filter(_.getPath.mkString(".") == column)
      else leaves.filter(_.getPath.mkString(".").toLowerCase(Locale.ROOT) == column.toLowerCase(Locale.ROOT))
    val unindexable = Set(PrimitiveTypeName.BOOLEAN, PrimitiveTypeName.INT96)
    matching match {
      case Seq(leaf) if leaf.getMaxRepetitionLevel == 0 && !unindexable(leaf.getPrimitiveType.getPrimitiveTypeName) =>
        Some(leaf)
      case _ => None
    }
  }

  private def hasOwnFilters(file: OpenedFile, footer: FooterSummary, column: String, fpp: Double): Boolean =
    footer.rowGroups.forall { rg =>
      file.filter(rg.ordinal, column) match {
        case FilterLookup.Present(filter) => FilterEstimates.fpp(filter) <= fpp * OwnFilterSlack
        case _ => false
      }
    }

  /**
   * A column's Parquet type as the index stores it: under a fixed name, since the parser
   * that reads it back does not quote names (`sum(x)`, `my col`).
   */
  private def typeText(t: PrimitiveType): String = {
    var builder = Types.primitive(t.getPrimitiveTypeName, t.getRepetition)
    if (t.getPrimitiveTypeName == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) builder = builder.length(t.getTypeLength)
    if (t.getLogicalTypeAnnotation != null) builder = builder.as(t.getLogicalTypeAnnotation)
    if (t.getId != null) builder = builder.id(t.getId.intValue)
    builder.named("value").toString
  }

  /**
   * Row groups are read in the footer's order, one unit each: parquet-java's reader skips
   * row groups without rows, which get no values here, so unit `i` is always row group `i`.
   */
  private def readHashes(reader: ParquetFileReader, schema: MessageType,
      wanted: Seq[ColumnDescriptor], rowCounts: IndexedSeq[Long]): Map[String, IndexedSeq[Array[Long]]] = {
    if (wanted.isEmpty) return Map.empty
    val requested = wanted.map(ColumnValueHashes.projection(schema, _)).reduce((a, b) => a.union(b))
    reader.setRequestedSchema(requested)
    val createdBy = Option(reader.getFooter.getFileMetaData.getCreatedBy).getOrElse("")
    val result = wanted.map(d => d.getPath.mkString(".") -> IndexedSeq.newBuilder[Array[Long]]).toMap
    rowCounts.foreach { rows =>
      if (rows == 0) wanted.foreach(d => result(d.getPath.mkString(".")) += Array.emptyLongArray)
      else {
        val pages = reader.readNextRowGroup()
        if (pages == null || pages.getRowCount != rows) {
          throw new java.io.IOException("the row groups read do not line up with the footer's")
        }
        wanted.foreach { d =>
          val hashes = new mutable.ArrayBuilder.ofLong
          ColumnValueHashes.foreach(pages, requested, d, createdBy)((_, hash) => hashes += hash)
          result(d.getPath.mkString(".")) += distinct(hashes.result())
        }
      }
    }
    if (reader.readNextRowGroup() != null) throw new java.io.IOException("more row groups than the footer's")
    result.map { case (k, v) => k -> v.result() }
  }

  private def distinct(hashes: Array[Long]): Array[Long] = {
    java.util.Arrays.sort(hashes)
    var n = 0
    var i = 0
    while (i < hashes.length) {
      if (n == 0 || hashes(i) != hashes(n - 1)) { hashes(n) = hashes(i); n += 1 }
      i += 1
    }
    java.util.Arrays.copyOf(hashes, n)
  }

  private def filterOf(distinctHashes: Array[Long], fpp: Double, maxBytes: Int): SplitBlockBloomFilter = {
    val ceiling =
      FilterSizing.largestPowerOfTwoAtMost(math.max(maxBytes, SplitBlockBloomFilter.BytesPerBlock).toLong).toInt
    val filter = SplitBlockBloomFilter.powerOfTwoForDistinctValues(math.max(distinctHashes.length, 1).toLong, fpp,
      maxBytes = ceiling)
    distinctHashes.foreach(filter.insert)
    filter
  }
}
