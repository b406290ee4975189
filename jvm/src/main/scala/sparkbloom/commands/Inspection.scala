// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.commands

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.schema.PrimitiveType
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.types._
import org.apache.spark.util.SerializableConfiguration

import sparkbloom.catalyst.{CurrentFiles, ScanSources}
import sparkbloom.errors.SparkBloomException
import sparkbloom.hashing.{LiteralProbe, ProbeHashes}
import sparkbloom.read.{FilterLookup, OpenedFile, ParquetFileListing, ProbeCache, RowGroupJudge}
import sparkbloom.runtime.BloomRuntime
import sparkbloom.sbbf.FilterEstimates
import sparkbloom.settings.SparkBloomConf
import sparkbloom.write.CeilingBound

/**
 * The inspection helpers behind `sparkbloom.inspect`, `sparkbloom.might_contain`, the SQL
 * table functions and the CLI. Few files are read on the driver; many are spread over the
 * cluster, one task per group of files.
 *
 * A path is a Parquet file, a directory of them, or a Delta table (only the files of its
 * current version, columns by their table names under column mapping).
 */
object Inspection {

  private val FilesPerTask = 16
  private val DriverLimit = 32

  /**
   * `estimated_ndv`: distinct values the filter's bits suggest; `estimated_fpp`: its
   * false-positive probability, exact for its bits (both null without a filter).
   * `dictionary_only`: every data page is dictionary-encoded (parquet-java then drops its
   * own filter; the dictionary answers membership exactly). `ceiling_bound`: sparkbloom wrote
   * the filter at its size ceiling, above the fpp asked for. `problem`: why a claimed filter
   * could not be used, if it could not.
   */
  val InspectSchema: StructType = StructType(Seq(
      StructField("file", StringType, nullable = false),
      StructField("row_group", IntegerType, nullable = false),
      StructField("column", StringType, nullable = false),
      StructField("physical_type", StringType, nullable = false),
      StructField("num_values", LongType, nullable = false),
      StructField("has_filter", BooleanType, nullable = false),
      StructField("filter_offset", LongType, nullable = false),
      StructField("filter_bytes", LongType, nullable = false),
      StructField("has_length", BooleanType, nullable = false),
      StructField("estimated_ndv", DoubleType, nullable = true),
      StructField("estimated_fpp", DoubleType, nullable = true),
      StructField("dictionary_only", BooleanType, nullable = false),
      StructField("ceiling_bound", BooleanType, nullable = false),
      StructField("problem", StringType, nullable = true)))

  val ProbeSchema: StructType = StructType(Seq(
      StructField("file", StringType, nullable = false),
      StructField("row_group", IntegerType, nullable = false),
      StructField("value", StringType, nullable = true),
      StructField("might_contain", BooleanType, nullable = false)))

  /** One row per (file, row group, column) of the Parquet files under `path` (or of a table). */
  def inspect(spark: SparkSession, path: String, columns: java.util.List[String]): DataFrame = {
    val target = Target.of(spark, path)
    val wanted = Option(columns).map(_.asScala.map(target.fileColumn).toSet).getOrElse(Set.empty[String])
    val rows = perFile(spark, target)(inspectFile(_, wanted, target.tableColumn, _, _))
    val found = rows.map(_.getString(2)).toSet
    val missing =
      Option(columns).map(_.asScala.filterNot(c => found.contains(target.tableColumn(target.fileColumn(c)))))
        .getOrElse(Nil)
    if (missing.nonEmpty && target.files.nonEmpty) {
      throw new SparkBloomException(s"no row group of the ${target.files.size} Parquet file(s) of $path holds " +
        s"the column(s) ${missing.mkString(", ")} (names are matched as the files spell them)")
    }
    spark.createDataFrame(rows.asJava, InspectSchema)
  }

  /**
   * One row per (file, row group, value): false when the row group's filter proves the
   * value absent; true otherwise, also without a filter or when the value cannot be
   * judged. Values are converted to the file column's type as DuckDB's
   * `parquet_bloom_probe` converts them.
   */
  def mightContain(spark: SparkSession, path: String, column: String, values: java.util.List[Object]): DataFrame =
    mightContainLiterals(spark, path, column, values.asScala.toSeq.map(v => Literal(v)))

  private[sparkbloom] def mightContainLiterals(spark: SparkSession, path: String, column: String,
      values: Seq[Literal]): DataFrame = {
    // A probed value is the value itself, not what a narrower column type would read:
    // whole numbers are probed as bigint, which LiteralProbe fits to the file's type.
    val literals = values.map {
      case Literal(v: Number, ByteType | ShortType | IntegerType) => Literal(v.longValue)
      case other => other
    }
    val target = Target.of(spark, path)
    val timeZone = spark.sessionState.conf.sessionLocalTimeZone
    val rows = perFile(spark, target) { (file, conf, cache) =>
      probeFile(file, target.fileColumn(column), literals, timeZone, conf, cache)
    }
    spark.createDataFrame(rows.asJava, ProbeSchema)
  }

  /** Every column chunk's footer entry and filter, read as the pruner reads them, whoever wrote the file. */
  private def inspectFile(status: FileStatus, columns: Set[String], tableColumn: String => String,
      conf: Configuration, cache: Option[ProbeCache.Scoped]): Seq[Row] =
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
              // only the pruner's checks set a filter aside; a file's own lookup never does
              case FilterLookup.Distrusted(_, reason) => (Double.NaN, Double.NaN, 0L, reason)
            }
            Row(path, rowGroup.ordinal, tableColumn(column), chunk.primitiveType.getPrimitiveTypeName.name,
              chunk.valueCount, lookup.isInstanceOf[FilterLookup.Present], chunk.filterOffset, bytes,
              chunk.filterLength > 0, nanToNull(ndv), nanToNull(fpp), chunk.dictionaryOnly,
              bound.get(column).exists(_.contains(rowGroup.ordinal)), if (problem.isEmpty) null else problem)
        }
      }
    }

  private def probeFile(status: FileStatus, column: String, values: Seq[Literal], timeZone: String,
      conf: Configuration, cache: Option[ProbeCache.Scoped]): Seq[Row] =
    OpenedFile.using(status, conf, cache) { file =>
      val footer = file.footer
      val path = status.getPath.toString
      if (!footer.rowGroups.forall(_.columns.contains(column)) && footer.rowGroups.nonEmpty) {
        throw new SparkBloomException(s"column '$column' is not in $path; its columns: " +
          footer.rowGroups.head.columns.keys.toSeq.sorted.mkString(", "))
      }
      footer.rowGroups.flatMap { rowGroup =>
        val chunk = rowGroup.columns(column)
        val lookup = file.filter(rowGroup.ordinal, column)
        values.map { shown =>
          val literal = castText(shown, chunk.primitiveType, column, timeZone)
          // a file written in Spark's legacy calendar stores rebased dates and timestamps
          val rebased = footer.writtenWithLegacyCalendar && RowGroupJudge.calendarType(literal.dataType)
          val absent = lookup match {
            case FilterLookup.Present(filter) if !rebased =>
              LiteralProbe.hashes(chunk.primitiveType, literal.dataType, literal.value) match {
                case ProbeHashes.AnyOf(hashes) => !hashes.exists(filter.mightContain)
                case ProbeHashes.Undecidable => false
              }
            case _ => false
          }
          Row(path, rowGroup.ordinal, Option(shown.value).map(_ => shown.toString).orNull, !absent)
        }
      }
    }

  /**
   * A value given as text, cast to the type of the file column it is probed in; a number
   * probed in a decimal column, as the column's decimal when it is one exactly (a value, not a
   * type Spark reads the column as: see [[LiteralProbe]]).
   */
  private def castText(literal: Literal, column: PrimitiveType, name: String, timeZone: String): Literal =
    (literal.dataType, LiteralProbe.textCastType(column)) match {
      case (StringType, Some(target)) if literal.value != null =>
        val cast = Try(Cast(literal, target, Some(timeZone)).eval()).toOption.flatMap(Option(_))
        Literal(cast.getOrElse(throw new SparkBloomException(
              s"'${literal.value}' cannot be probed in column '$name': it is not a ${target.simpleString}")), target)
      case (_: DecimalType | ByteType | ShortType | IntegerType | LongType, Some(target: DecimalType))
          if literal.value != null =>
        val exact = Try(new java.math.BigDecimal(literal.value.toString)
            .setScale(target.scale, java.math.RoundingMode.UNNECESSARY)).toOption
          .filter(_.precision <= target.precision)
        exact.fold(literal)(d => Literal(Decimal(d, target.precision, target.scale), target))
      case _ => literal
    }

  private def nanToNull(d: Double): java.lang.Double = if (d.isNaN) null else java.lang.Double.valueOf(d)

  /**
   * Runs `work` for every file of `target`: on the driver for a few, as tasks for many.
   * On the driver, footers and filters go through the driver's cache (decrypted ones
   * scoped to this session's keys), which `REFRESH` reaches; tasks read them uncached.
   */
  private def perFile(spark: SparkSession, target: CurrentFiles)(
      work: (FileStatus, Configuration, Option[ProbeCache.Scoped]) => Seq[Row]): Seq[Row] = {
    val conf = spark.sessionState.newHadoopConf()
    val files = target.files
    if (files.size <= DriverLimit) {
      val shared = BloomRuntime.of(spark.sparkContext)(ProbeCache)
      val cache = Some(ProbeCache.Scoped(shared, shared.scopeOf(spark, conf)))
        .filter(_ => SparkBloomConf.usesCache(spark.sessionState.conf))
      files.flatMap(file => work(statusOf(file, conf), conf, cache))
    } else {
      val shipped = new SerializableConfiguration(conf)
      spark.sparkContext.parallelize(files, math.max(1, files.size / FilesPerTask))
        .flatMap(file => work(statusOf(file, shipped.value), shipped.value, None))
        .collect().toSeq
    }
  }

  private def statusOf(file: String, conf: Configuration): FileStatus = {
    val path = new Path(file)
    path.getFileSystem(conf).getFileStatus(path)
  }

  /**
   * The files to inspect, and how a column's name in them reads in the table: the same but
   * for a table format that keeps columns under physical names.
   */
  private object Target {
    def of(spark: SparkSession, pathOrTable: String): CurrentFiles = {
      val path = locationOf(spark, pathOrTable)
      ScanSources.currentFiles(spark, path).getOrElse {
        val files =
          try ParquetFileListing.list(spark, path).map(_.getPath.toString)
          catch {
            case e: java.io.FileNotFoundException =>
              throw new SparkBloomException(s"path does not exist: $path (${e.getMessage})")
          }
        CurrentFiles(files, identity, identity)
      }
    }
  }

  private lazy val PathTable = s"(?i)(?:${("parquet" +: ScanSources.pathPrefixes).mkString("|")})\\.`(.+)`".r

  /**
   * The directory of a path, or of a table named as SQL names it (`db.table`, parquet.`path`,
   * a table format's prefix.`path`) unless a file or directory has that name.
   */
  private[sparkbloom] def locationOf(spark: SparkSession, pathOrTable: String): String = pathOrTable.trim match {
    case PathTable(path) => path.replace("``", "`")
    case _ =>
      val asPath = new Path(pathOrTable)
      if (Try(asPath.getFileSystem(spark.sessionState.newHadoopConf()).exists(asPath)).getOrElse(false)) pathOrTable
      else Try(spark.sessionState.sqlParser.parseTableIdentifier(pathOrTable)).toOption
        .filter(spark.sessionState.catalog.tableExists)
        .map(id => spark.sessionState.catalog.getTableMetadata(id).location.toString)
        .getOrElse(pathOrTable)
  }
}
