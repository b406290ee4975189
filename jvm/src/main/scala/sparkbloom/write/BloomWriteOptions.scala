// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.util.Locale

import scala.util.Try

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

import sparkbloom.errors.SparkBloomException
import sparkbloom.hashing.FilterSupport
import sparkbloom.settings.SparkBloomConf

/**
 * The write options users set, checked against the data being written and turned into a
 * [[BloomWriteSpec]]. Every mistake is a [[SparkBloomException]] naming the option, the
 * column and the rule, raised while the write is planned, before any file exists.
 *
 * Option names are case-insensitive; column names follow `spark.sql.caseSensitive` and
 * are kept in the schema's real case; nested struct fields are named by dotted path
 * (backticks quote a name that contains a dot).
 */
private[sparkbloom] object BloomWriteOptions {
  val Columns = "bloom_filter_columns"
  val Fpp = "bloom_filter_fpp"
  val Ndv = "bloom_filter_ndv"
  val MaxBytes = "bloom_filter_max_bytes"
  val ExactSize = "bloom_filter_exact_size"

  // the values' rules are in the table Python reads too, the options named above among them
  private val known = (Columns +: WriteOptionRules.writeKeys).toSet

  /** True when the options ask for any sparkbloom behaviour (so they must be checked). */
  def mentioned(options: Map[String, String]): Boolean =
    options.keys.exists(k => isOurs(k.toLowerCase(Locale.ROOT)))

  private def isOurs(key: String): Boolean = key.startsWith("bloom_filter_")

  private def isPerColumn(key: String): Boolean = WriteOptionRules.columnKeys.exists(k => key.startsWith(k + "."))

  /**
   * The spec for writing `schema` (the data columns, partition columns excluded) with
   * `options`, or None when no column is named.
   *
   * @param timestampOutput the `spark.sql.parquet.outputTimestampType` the write will use
   *                        (sparkbloom switches INT96 to TIMESTAMP_MICROS when a filtered
   *                        column is a timestamp, so pass that effective value)
   */
  def resolve(options: Map[String, String], schema: StructType, partitionColumns: Seq[String], conf: SQLConf,
      timestampOutput: String): Option[BloomWriteSpec] = {
    val byKey = options.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> (k, v) }
    byKey.keys.find(k => isOurs(k) && !known(k) && !isPerColumn(k)).foreach { k =>
      val options = Columns +: WriteOptionRules.rules.flatMap { r =>
        (if (r.scopes("write")) Seq(r.key) else Nil) ++ (if (r.scopes("column")) Seq(s"${r.key}.<column>") else Nil)
      }
      fail(s"unknown option '${byKey(k)._1}'; the options are ${options.mkString(", ")}")
    }
    val names = byKey.get(Columns).map(_._2).map(parseColumnList).getOrElse(Nil)
    val perColumnKeys = byKey.keys.filter(isPerColumn)
    if (names.isEmpty) {
      if (byKey.keys.exists(k => isOurs(k) && k != Columns)) fail(WriteOptionRules.noColumn)
      return None
    }
    def option[T](name: String): Option[T] = byKey.get(name).map { case (key, value) => parse[T](name, key, value) }
    val defaultFpp = option[Double](Fpp).getOrElse(SparkBloomConf.writeFpp(conf))
    val maxBytes = option[Long](MaxBytes).map(_.toInt).orElse(SparkBloomConf.writeMaxBytes(conf))
    val exactSize = option[Boolean](ExactSize).getOrElse(SparkBloomConf.writeExactSize(conf))

    val columns = names.map { name =>
      val path = resolvePath(name, schema, partitionColumns, conf)
      FilterSupport.unsupportedReason(leafType(schema, path), timestampOutput).foreach { reason =>
        fail(s"column '$name' cannot have a Bloom filter: $reason")
      }
      (name, path)
    }
    columns.groupBy(_._2).collectFirst {
      case (path, dupes) if dupes.size > 1 =>
        fail(s"column '${path.mkString(".")}' is named more than once in $Columns")
    }
    // parquet-java attaches a filter to every column chunk whose dotted path matches, so a
    // top-level `a.b` next to a struct field a.b would give one column the other's filter.
    val dottedLeaves = leafPaths(schema).map(_.mkString(".")).groupBy(identity).map { case (k, v) => k -> v.size }
    columns.foreach { case (name, path) =>
      val dotted = path.mkString(".")
      if (dottedLeaves.getOrElse(dotted, 0) > 1) {
        fail(s"column '$name' cannot have a Bloom filter: another column of the data has the same Parquet " +
          s"path '$dotted' (a name containing a dot and a struct field), and readers could not tell their filters apart")
      }
    }

    def perColumn(prefix: String): Map[Seq[String], (String, String)] = {
      val keyed = perColumnKeys.filter(_.startsWith(prefix + ".")).toSeq.map { k =>
        val (originalKey, value) = byKey(k)
        val name = originalKey.substring(prefix.length + 1)
        val path = Try(resolvePath(name, schema, partitionColumns, conf)).toOption
          .filter(p => columns.exists(_._2 == p))
          .getOrElse(fail(WriteOptionRules.notListed(originalKey)))
        path -> (originalKey, value)
      }
      // `x` and x are one column: which value would win is not for a map's order to decide
      keyed.groupBy(_._1).values.map(_.map(_._2._1).sorted).filter(_.size > 1).toSeq.sortBy(_.head).headOption
        .foreach(same => fail(WriteOptionRules.sameColumn(same(0), same(1))))
      keyed.toMap
    }

    val fpps = perColumn(Fpp).map { case (path, (key, value)) => path -> parse[Double](Fpp, key, value) }
    val ndvs = perColumn(Ndv).map { case (path, (key, value)) => path -> parse[Long](Ndv, key, value) }
    Some(BloomWriteSpec(columns.map { case (_, path) =>
        BloomColumn(path, fpps.getOrElse(path, defaultFpp), ndvs.get(path))
      }, maxBytes, exactSize))
  }

  private def fail(message: String): Nothing = throw new SparkBloomException(message)

  private def parseColumnList(value: String): Seq[String] = {
    val names = splitOutsideBackticks(value).map(_.trim)
    if (names.exists(_.isEmpty) && value.trim.nonEmpty) fail(WriteOptionRules.emptyColumnName(value))
    names.filter(_.nonEmpty)
  }

  private def splitOutsideBackticks(value: String): Seq[String] = {
    val parts = Seq.newBuilder[String]
    val current = new StringBuilder
    var quoted = false
    value.foreach {
      case '`' => quoted = !quoted; current += '`'
      case ',' if !quoted => parts += current.toString; current.clear()
      case c => current += c
    }
    parts += current.toString
    parts.result()
  }

  // `option`'s rule parses `value` (to a Double, Long or Boolean); `key` is as the user wrote it.
  private def parse[T](option: String, key: String, value: String): T =
    WriteOptionRules.rule(option).parse(key, value).asInstanceOf[T]

  /** The real-case field names of `name` in `schema`, following struct fields. */
  private def resolvePath(
      name: String, schema: StructType, partitionColumns: Seq[String], conf: SQLConf): Seq[String] = {
    val parts = Try(UnresolvedAttribute.parseAttributeName(name)).getOrElse(
      fail(s"'$name' in $Columns is not a valid column name"))
    if (parts.size == 1 && partitionColumns.exists(conf.resolver(_, parts.head))) {
      fail(s"column '$name' is a partition column: its value is in the directory name, not in the files")
    }
    var current: DataType = schema
    parts.zipWithIndex.map { case (part, i) =>
      current match {
        case struct: StructType =>
          val matches = struct.fields.filter(f => conf.resolver(f.name, part))
          if (matches.isEmpty) {
            val where = if (i == 0) "the data being written" else s"struct '${parts.take(i).mkString(".")}'"
            fail(s"column '$name' in $Columns does not exist in $where; columns: ${struct.fieldNames.mkString(", ")}")
          }
          if (matches.length > 1)
            fail(s"column '$name' in $Columns is ambiguous: ${matches.map(_.name).mkString(", ")}")
          current = matches.head.dataType
          matches.head.name
        case other =>
          fail(s"column '$name' cannot have a Bloom filter: '${parts.take(i).mkString(".")}' is " +
            s"${other.simpleString}, and only struct fields can be named by path")
      }
    }.toSeq
  }

  private def leafPaths(struct: StructType): Seq[Seq[String]] = struct.fields.toSeq.flatMap { f =>
    f.dataType match {
      case nested: StructType => leafPaths(nested).map(f.name +: _)
      case _ => Seq(Seq(f.name))
    }
  }

  private def leafType(schema: StructType, path: Seq[String]): DataType =
    path.foldLeft(schema: DataType) { case (struct: StructType, name) => struct(name).dataType; case (t, _) => t }

  /** Whether a filtered column needs TIMESTAMP_MICROS instead of Spark's INT96 default. */
  def needsMicros(spec: BloomWriteSpec, schema: StructType): Boolean =
    spec.columns.exists(c => leafType(schema, c.path) == TimestampType)
}
