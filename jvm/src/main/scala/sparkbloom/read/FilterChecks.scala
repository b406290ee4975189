// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.schema.PrimitiveType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import sparkbloom.hashing.LiteralProbe
import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * What a file's filter must pass before it decides anything (`spark.sparkbloom.pruning.checkFilters`):
 * one wrong filter from one writer release is a silent false negative for every reader of
 * its files, so a filter is not used when
 *
 *  - its writer's release is known to have written wrong filters for the column's type
 *    ([[FilterChecks.KnownBadWriters]], docs/compatibility.md);
 *  - its bitset has no bit set while its chunk holds values (it would rule out every key);
 *  - it rejects a value of its chunk's own dictionary. That check reads the dictionary page,
 *    so it runs on the first [[FilterChecks.DictionarySamples]] chunks a runtime meets per
 *    writer (`created_by`) and column type, when the page is at most
 *    [[FilterChecks.DictionaryMaxBytes]]; a writer whose filter fails it is not trusted for
 *    that type again in this runtime.
 *
 * Saturated filters ([[FilterLookup.Present.saturated]]) are set aside by the judge itself.
 */
private[sparkbloom] object FilterChecks {

  /**
   * A writer release range that wrote wrong filters. `createdBy` is the prefix of the
   * footer's `created_by` before the version; `until` the first good version (None: none known).
   */
  final case class BadWriter(createdBy: String, from: Seq[Int], until: Option[Seq[Int]],
      types: Option[Set[PrimitiveTypeName]], defect: String, source: String) {
    def covers(footerCreatedBy: String, column: PrimitiveType): Boolean =
      footerCreatedBy.startsWith(createdBy) && types.forall(_.contains(column.getPrimitiveTypeName)) &&
        FilterChecks.version(footerCreatedBy.substring(createdBy.length)).exists { v =>
          compare(v, from) >= 0 && until.forall(compare(v, _) < 0)
        }
  }

  /** docs/compatibility.md keeps the same table, with how each range was established. */
  val KnownBadWriters: Seq[BadWriter] = Seq(
    BadWriter("parquet-go version ", Seq(18, 3, 0), None, None,
      "values written through the dictionary-index path (Arrow dictionary arrays) are never added to the filter",
      "https://github.com/apache/arrow-go/issues/1164"),
    BadWriter("parquet-go version ", Seq(18, 3, 0), Some(Seq(18, 5, 0)), None,
      "the adaptive filter's chosen bitset could be freed before it was written",
      "https://github.com/apache/arrow-go/issues/525"))

  /** A dictionary page this large or smaller is read to check the chunk's filter. */
  val DictionaryMaxBytes: Long = 64L * 1024

  /** Chunks per writer and column type whose dictionaries are checked in a runtime. */
  val DictionarySamples = 2

  def knownBad(createdBy: String, column: PrimitiveType): Option[BadWriter] =
    KnownBadWriters.find(_.covers(createdBy, column))

  /** The version right after a `created_by` prefix: "18.3.0 (build x)" -> 18.3.0. */
  private[read] def version(rest: String): Option[Seq[Int]] = {
    val digits = rest.trim.stripPrefix("v").takeWhile(c => c.isDigit || c == '.').split('.').filter(_.nonEmpty)
    if (digits.isEmpty) None else scala.util.Try(digits.toSeq.map(_.toInt)).toOption
  }

  private def compare(a: Seq[Int], b: Seq[Int]): Int =
    a.zipAll(b, 0, 0).collectFirst { case (x, y) if x != y => Integer.compare(x, y) }.getOrElse(0)

  /** Whether an all-clear bitset is wrong for `chunk`: it holds a value that is not null. */
  def emptyButHoldsValues(filter: FilterLookup.Present, chunk: ChunkSummary): Boolean =
    chunk.nonNullValues.contains(true) && filter.empty

  /**
   * Whether every value of `dictionary` may be in `filter`, or None where the dictionary
   * cannot be decoded (not a verdict on the filter).
   */
  def admitsDictionary(filter: FilterLookup.Present, column: ColumnDescriptor,
      dictionary: org.apache.parquet.column.page.DictionaryPage): Option[Boolean] =
    try {
      val decoded = dictionary.getEncoding.initDictionary(column, dictionary)
      val stored: Int => Any = column.getPrimitiveType.getPrimitiveTypeName match {
        case PrimitiveTypeName.INT32 => i => Int.box(decoded.decodeToInt(i))
        case PrimitiveTypeName.INT64 => i => Long.box(decoded.decodeToLong(i))
        case PrimitiveTypeName.FLOAT => i => Float.box(decoded.decodeToFloat(i))
        case PrimitiveTypeName.DOUBLE => i => Double.box(decoded.decodeToDouble(i))
        case _ => i => decoded.decodeToBinary(i)
      }
      Some((0 to decoded.getMaxId).forall(i => filter.filter.mightContain(LiteralProbe.hashStored(stored(i)))))
    } catch { case NonFatal(_) => None }

  /** Per runtime: the dictionary checks run so far, and the writers found wrong, per writer and column type. */
  final class DictionaryVerdicts extends RuntimePart {
    private val checked = new ConcurrentHashMap[(String, String), Integer]()
    private val wrong = ConcurrentHashMap.newKeySet[(String, String)]()

    /** Whether one more chunk of this writer and type should be checked (and counts it if so). */
    def wantsCheck(createdBy: String, column: PrimitiveType): Boolean = {
      val key = (createdBy, typeKey(column))
      !wrong.contains(key) && checked.merge(key, 1, (a, b) => a + b) <= DictionarySamples
    }

    def foundWrong(createdBy: String, column: PrimitiveType): Unit = wrong.add((createdBy, typeKey(column)))

    def distrusts(createdBy: String, column: PrimitiveType): Boolean = wrong.contains((createdBy, typeKey(column)))

    private def typeKey(column: PrimitiveType): String =
      column.getPrimitiveTypeName.name + "/" + Option(column.getLogicalTypeAnnotation).getOrElse("")

    override def clear(): Unit = { checked.clear(); wrong.clear() }

    // about writers, not paths: a refreshed path leaves them
    override def invalidate(pathPrefix: String): Unit = ()
  }

  object DictionaryVerdicts extends PartKind[DictionaryVerdicts] {
    def make(runtime: BloomRuntime): DictionaryVerdicts = new DictionaryVerdicts
  }
}
