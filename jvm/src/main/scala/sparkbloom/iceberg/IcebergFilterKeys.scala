// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import scala.util.Try

import org.apache.spark.sql.types.{DataType, StructType}

import sparkbloom.write.{BloomWriteOptions, BloomWriteSpec}

/**
 * Apache Iceberg's own table properties that make its writer add split block Bloom filters,
 * keyed by each column's full name (Iceberg's dotted path), and their way back to
 * `bloom_filter_*` settings. Iceberg hands them to parquet-java, so the filters are the format
 * sparkbloom and every other reader reads.
 */
private[sparkbloom] object IcebergFilterKeys {
  val EnabledPrefix = "write.parquet.bloom-filter-enabled.column."
  val FppPrefix = "write.parquet.bloom-filter-fpp.column."
  val NdvPrefix = "write.parquet.bloom-filter-ndv.column."
  val DictionaryPrefix = "write.parquet.dict-encoding-enabled.column."
  val MaxBytes = "write.parquet.bloom-filter-max-bytes"
  val Adaptive = "write.parquet.bloom-filter-adaptive-enabled"
  private val columnPrefixes = Seq(EnabledPrefix, FppPrefix, NdvPrefix, DictionaryPrefix)

  private def hasProperty(name: String): Boolean =
    Try(Class.forName("org.apache.iceberg.TableProperties").getField(name)).isSuccess

  /** Whether the Iceberg in use sizes filters by the values it sees (1.12 and later). */
  lazy val adaptiveAvailable: Boolean = hasProperty("PARQUET_BLOOM_FILTER_ADAPTIVE_ENABLED")

  /** Whether the Iceberg in use can switch dictionary encoding off per column (1.12 and later). */
  lazy val perColumnDictionary: Boolean = hasProperty("PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX")

  /**
   * The properties for `spec`. Adaptive sizing is one switch for the whole file in
   * parquet-java, used only when no column has an NDV hint: it tries five filters from the
   * largest (`bloom_filter_max_bytes`, else Iceberg's 1 MiB) down by halves and keeps the
   * smallest that meets the fpp for the values the row group holds. Dictionary encoding is
   * switched off for those columns where Iceberg can: parquet-java writes no filter for a
   * column chunk whose pages are all dictionary-encoded.
   */
  def of(spec: BloomWriteSpec, adaptive: Boolean, perColumnDictionary: Boolean = perColumnDictionary)
      : Map[String, String] = {
    val perColumn = spec.columns.flatMap { c =>
      val name = c.dottedPath
      Seq(EnabledPrefix + name -> "true", FppPrefix + name -> c.fpp.toString) ++
        c.ndvHint.map(n => NdvPrefix + name -> n.toString) ++
        (if (perColumnDictionary) Seq(DictionaryPrefix + name -> "false") else Nil)
    }
    val adapts = adaptive && spec.columns.forall(_.ndvHint.isEmpty)
    (perColumn ++ spec.maxBytes.map(MaxBytes -> _.toString) ++ (if (adapts) Seq(Adaptive -> "true") else Nil)).toMap
  }

  /** The keys [[of]] derives: every one is derived again at each change of the settings. */
  def isFilterKey(key: String): Boolean = columnPrefixes.exists(key.startsWith) || key == MaxBytes || key == Adaptive

  def isColumnEnabledKey(key: String): Boolean = key.startsWith(EnabledPrefix)

  /**
   * The `bloom_filter_*` settings `properties` stand for: the columns with filters enabled
   * that `schema` still has, each named by its path in backticks, and their fpp, NDV and the
   * size ceiling.
   */
  def settingsOf(properties: Map[String, String], schema: StructType): Map[String, String] = {
    val byName = leafPaths(schema).map(p => p.mkString(".") -> p.map(n => s"`${n.replace("`", "``")}`").mkString("."))
      .toMap
    def columns(prefix: String): Seq[(String, String)] =
      properties.toSeq.collect {
        case (k, v) if k.startsWith(prefix) && byName.contains(k.stripPrefix(prefix)) =>
          byName(k.stripPrefix(prefix)) -> v.trim
      }
    val enabled = columns(EnabledPrefix).collect { case (name, v) if v.equalsIgnoreCase("true") => name }.sorted
    if (enabled.isEmpty) Map.empty
    else {
      Map(BloomWriteOptions.Columns -> enabled.mkString(",")) ++
        columns(FppPrefix).filter(c => enabled.contains(c._1)).map { case (n, v) =>
          s"${BloomWriteOptions.Fpp}.$n" -> v
        } ++
        columns(NdvPrefix).filter(c => enabled.contains(c._1)).map { case (n, v) =>
          s"${BloomWriteOptions.Ndv}.$n" -> v
        } ++
        properties.get(MaxBytes).map(BloomWriteOptions.MaxBytes -> _)
    }
  }

  /** The column keys of `column` and of the fields under it. */
  def columnKeys(properties: Map[String, String], column: String): Seq[String] =
    properties.keys.filter(k => columnPrefixes.exists(p => k.startsWith(p) && under(k.stripPrefix(p), column)))
      .toSeq.sorted

  /** The column keys of `from` (and the fields under it) as they are named once it is renamed `to`. */
  def renamed(properties: Map[String, String], from: String, to: String): Map[String, String] =
    columnKeys(properties, from).map { k =>
      val prefix = columnPrefixes.find(k.startsWith).get
      prefix + to + k.stripPrefix(prefix).stripPrefix(from) -> properties(k)
    }.toMap

  private def under(name: String, column: String): Boolean = name == column || name.startsWith(column + ".")

  private def leafPaths(t: DataType): Seq[Seq[String]] = t match {
    case s: StructType => s.fields.toSeq.flatMap(f =>
        leafPaths(f.dataType) match {
          case Seq() => Seq(Seq(f.name))
          case nested => nested.map(f.name +: _)
        })
    case _ => Nil
  }
}
