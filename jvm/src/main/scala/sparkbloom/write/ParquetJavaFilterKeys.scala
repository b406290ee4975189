// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import scala.util.Try

import sparkbloom.sbbf.FilterSizing

/**
 * parquet-java's own Hadoop settings that make its writer add split block Bloom filters,
 * for writers sparkbloom cannot replace (Delta Lake's, which passes a table's properties to
 * parquet-java). The filters are the same format sparkbloom reads, sized by parquet-java:
 * always a power of two of bytes; from parquet-java 1.14 (Spark 4) adaptively, by the
 * distinct values each row group really has; before that, by the ndv hint or else at
 * `bloom_filter_max_bytes`.
 */
private[sparkbloom] object ParquetJavaFilterKeys {

  /** Whether this parquet-java sizes filters by what it sees (1.14 and later). */
  lazy val adaptiveSizing: Boolean = Try(Class.forName(
      "org.apache.parquet.column.values.bloomfilter.AdaptiveBlockSplitBloomFilter")).isSuccess

  /**
   * The settings for `spec`, each column under its path in the files (`filePath`).
   * Dictionary encoding is switched off for those columns: parquet-java drops the filter of
   * a column chunk whose pages are all dictionary-encoded, which a row group of up to a few
   * ten thousand distinct keys usually is.
   */
  def of(spec: BloomWriteSpec, filePath: Seq[String] => Seq[String], rowGroupBytes: Long): Map[String, String] = {
    // Without adaptive sizing parquet-java sizes a filter without an ndv hint at the ceiling
    // itself, so the ceiling that follows the row group applies only where it adapts.
    val maxBytes = spec.maxBytes.getOrElse(
      if (adaptiveSizing) FilterSizing.rowGroupCeiling(rowGroupBytes) else FilterSizing.MinDefaultCeiling)
    // Adaptive sizing is one switch for the whole file in parquet-java: used only when no
    // column has a hint. It tries filters from max.bytes down by halves; enough candidates
    // that the smallest is 4 KiB, so that small row groups get small filters.
    val adaptive = adaptiveSizing && spec.columns.forall(_.ndvHint.isEmpty)
    val candidates = Integer.numberOfTrailingZeros(Integer.highestOneBit(maxBytes) / MinAdaptiveBytes max 1) + 1
    val perColumn = spec.columns.flatMap { c =>
      val p = filePath(c.path).mkString(".")
      Seq(s"parquet.bloom.filter.enabled#$p" -> "true", s"parquet.bloom.filter.fpp#$p" -> c.fpp.toString,
        s"parquet.enable.dictionary#$p" -> "false") ++
        c.ndvHint.map(n => s"parquet.bloom.filter.expected.ndv#$p" -> n.toString) ++
        (if (adaptive) Seq(s"parquet.bloom.filter.candidates.number#$p" -> candidates.toString) else Nil)
    }
    (perColumn ++ Seq("parquet.bloom.filter.max.bytes" -> maxBytes.toString) ++
      (if (adaptive) Seq("parquet.bloom.filter.adaptive.enabled" -> "true") else Nil)).toMap
  }

  private val MinAdaptiveBytes = 4096

  def isDerived(key: String): Boolean =
    key.startsWith("parquet.bloom.filter.") || key.startsWith("parquet.enable.dictionary#")
}
