// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.column.EncodingStats
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile

import sparkbloom.sbbf.FilterEstimates
import sparkbloom.shims.SparkShims
import sparkbloom.write.CeilingBound

/**
 * One column chunk's filter as `sparkbloom.inspect` shows it.
 *
 * @param estimatedNdv  distinct values the filter's bits suggest (NaN without a filter)
 * @param estimatedFpp  the filter's false-positive probability, exact for its bits
 * @param dictionaryOnly every data page is dictionary-encoded (parquet-java then drops its
 *                      own filter; the dictionary answers membership exactly)
 * @param ceilingBound  sparkbloom wrote the filter at its size ceiling, above the fpp asked for
 * @param problem       why a claimed filter could not be used, if it could not
 */
private[sparkbloom] final case class ChunkReport(
    file: String,
    rowGroup: Int,
    column: String,
    physicalType: String,
    numValues: Long,
    hasFilter: Boolean,
    filterOffset: Long,
    filterBytes: Long,
    hasLength: Boolean,
    estimatedNdv: Double,
    estimatedFpp: Double,
    dictionaryOnly: Boolean,
    ceilingBound: Boolean,
    problem: String)

/** Reads every column chunk's footer entry and filter of a Parquet file, whoever wrote it. */
private[sparkbloom] object FileInspector {

  def inspect(path: String, columns: Set[String], conf: Configuration): Seq[ChunkReport] = {
    val input = HadoopInputFile.fromPath(new Path(path), conf)
    val stream = input.newStream()
    try {
      val footer = ParquetFileReader.readFooter(input, HadoopReadOptions.builder(conf).build(), stream)
      val summary = FooterSummary(footer, None)
      val bound = CeilingBound.decode(
        Option(footer.getFileMetaData.getKeyValueMetaData).map(_.asScala.toMap).getOrElse(Map.empty))
      footer.getBlocks.asScala.toSeq.zipWithIndex.flatMap { case (block, rowGroup) =>
        block.getColumns.asScala.toSeq
          .filter(c => columns.isEmpty || columns.contains(c.getPath.toDotString))
          .map { meta =>
            val column = meta.getPath.toDotString
            val chunk = summary.rowGroups(rowGroup).columns.get(column)
            val lookup = chunk.map(BloomFilterIO.read(stream, input.getLength, _).lookup)
              .getOrElse(FilterLookup.Broken("another column has the same dotted path"))
            val (ndv, fpp, bytes, problem) = lookup match {
              case FilterLookup.Present(f) =>
                (FilterEstimates.distinctValues(f), FilterEstimates.fpp(f), f.numBytes.toLong, "")
              case FilterLookup.Missing =>
                (Double.NaN, Double.NaN, 0L, if (chunk.exists(_.encrypted)) "encrypted" else "")
              case FilterLookup.Broken(reason) => (Double.NaN, Double.NaN, 0L, reason)
            }
            ChunkReport(path, rowGroup, column, meta.getPrimitiveType.getPrimitiveTypeName.name, meta.getValueCount,
              lookup.isInstanceOf[FilterLookup.Present], meta.getBloomFilterOffset, bytes,
              SparkShims.bloomFilterLength(meta) > 0, ndv, fpp, dictionaryOnly(meta.getEncodingStats),
              bound.get(column).exists(_.contains(rowGroup)), problem)
          }
      }
    } finally stream.close()
  }

  private def dictionaryOnly(stats: EncodingStats): Boolean =
    stats != null && stats.hasDictionaryPages && !stats.hasNonDictionaryEncodedPages

}
