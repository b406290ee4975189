// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.slf4j.LoggerFactory

import sparkbloom.warnings.WarnOnce

/**
 * Row groups whose filter the size ceiling kept above the fpp the write asked for: said once
 * per column in the writing JVM's log, and recorded in the file's key-value metadata
 * (`sparkbloom.ceiling_bound`: JSON, column path to row group ordinals), which `inspect`
 * shows.
 */
private[sparkbloom] object CeilingBound {
  val MetadataKey = "sparkbloom.ceiling_bound"

  private val Json = new ObjectMapper()
  private val log = LoggerFactory.getLogger(getClass)

  def encode(rowGroups: Map[String, Seq[Int]]): String =
    Json.writeValueAsString(rowGroups.map { case (k, v) => k -> v.map(Int.box).asJava }.asJava)

  /** The recorded row groups per column path; empty when absent or unreadable. */
  def decode(metadata: Map[String, String]): Map[String, Set[Int]] =
    metadata.get(MetadataKey).flatMap { text =>
      scala.util.Try(Json.readTree(text).fields().asScala.map { e =>
        e.getKey -> e.getValue.elements().asScala.map(_.asInt).toSet
      }.toMap).toOption
    }.getOrElse(Map.empty)

  def warnOnce(column: String, ceiling: Int, fpp: Double): Unit =
    WarnOnce(log, s"ceiling|$column|$ceiling|$fpp",
      s"sparkbloom: the Bloom filter of column '$column' reached its ceiling of $ceiling bytes, so it " +
        s"misses the fpp $fpp asked for (row groups with that many distinct values need more). Raise " +
        "bloom_filter_max_bytes, or write smaller row groups (parquet.block.size); `sparkbloom.inspect` shows " +
        "which row groups (ceiling_bound)")

  /** The other limit a filter can miss its fpp by: an ndv hint far below a row group's distinct values. */
  def warnHintTooLow(column: BloomColumn): Unit =
    WarnOnce(log, s"ndv|${column.dottedPath}|${column.ndvHint}|${column.fpp}",
      s"sparkbloom: the Bloom filter of column '${column.dottedPath}' misses the fpp ${column.fpp} asked for: " +
        s"a row group holds far more distinct values than its bloom_filter_ndv hint " +
        s"(${column.ndvHint.getOrElse("none")}), which bounds the filter's size. Raise the hint or leave it out " +
        "(sparkbloom sizes filters from the values themselves); `sparkbloom.inspect` shows each filter's estimated_fpp")
}
