// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.commands

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus

import sparkbloom.read.{FilterLookup, OpenedFile, ProbeCache}
import sparkbloom.sbbf.FilterEstimates
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

/**
 * Reports every column chunk's footer entry and filter of a Parquet file, whoever wrote it,
 * read as the pruner reads them (one footer reader, one filter reader, one cache).
 */
private[sparkbloom] object FileInspector {

  def inspect(status: FileStatus, columns: Set[String], conf: Configuration,
      cache: Option[ProbeCache.Scoped]): Seq[ChunkReport] =
    OpenedFile.using(status, conf, cache) { file =>
      val footer = file.footer
      val path = status.getPath.toString
      val bound = CeilingBound.decode(footer.keyValueMetadata)
      footer.rowGroups.flatMap { rowGroup =>
        rowGroup.chunks.filter { case (column, _) => columns.isEmpty || columns.contains(column) }.map {
          case (column, chunk) =>
            val lookup =
              if (rowGroup.columns.contains(column)) file.filter(rowGroup.ordinal, column)
              else FilterLookup.Broken("another column has the same dotted path")
            val (ndv, fpp, bytes, problem) = lookup match {
              case FilterLookup.Present(f) =>
                (FilterEstimates.distinctValues(f), FilterEstimates.fpp(f), f.numBytes.toLong, "")
              case FilterLookup.Missing => (Double.NaN, Double.NaN, 0L, "")
              case FilterLookup.Broken(reason) =>
                (Double.NaN, Double.NaN, 0L, if (chunk.encrypted) s"encrypted: $reason" else reason)
            }
            ChunkReport(path, rowGroup.ordinal, column, chunk.primitiveType.getPrimitiveTypeName.name,
              chunk.valueCount, lookup.isInstanceOf[FilterLookup.Present], chunk.filterOffset, bytes,
              chunk.filterLength > 0, ndv, fpp, chunk.dictionaryOnly,
              bound.get(column).exists(_.contains(rowGroup.ordinal)),
              problem)
        }
      }
    }
}
