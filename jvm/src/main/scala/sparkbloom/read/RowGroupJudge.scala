// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.util.Locale

import org.apache.parquet.schema.PrimitiveType
import org.apache.spark.sql.types.{DataType, DateType, TimestampNTZType, TimestampType}

import sparkbloom.predicate.PointPredicate
import sparkbloom.predicate.PointPredicate.{All, AnyOf, ColumnIn}
import sparkbloom.hashing.LiteralProbe
import sparkbloom.rows.{KeyBytes, KeyNumbers, RowKeys}

/**
 * Decides whether a row group can hold a row matching a [[PointPredicate]], from its
 * min/max statistics first and its Bloom filter second (the filter only when statistics
 * leave the question open, so that it is read only then). Every doubt answers "may match".
 *
 * @param caseSensitive  `spark.sql.caseSensitive`: how column names find file columns
 * @param legacyCalendar dates and timestamps in this file may be rebased (Spark 2.x
 *                       files, LEGACY rebase modes): their stored values are not the
 *                       literal's, so they are never judged
 * @param filterOf       the filter of (row group, column path), read on first use
 * @param candidatesOf   an IN list's stored values in a file column and their hashes (None:
 *                       undecidable), shared by the files of one scan
 */
private[sparkbloom] final class RowGroupJudge(
    footer: FooterSummary,
    caseSensitive: Boolean,
    legacyCalendar: Boolean,
    filterOf: (Int, String) => FilterLookup,
    candidatesOf: (ColumnIn, PrimitiveType) => Option[ProbeCandidates] = ProbeCandidates.of) {

  def mayMatch(rowGroup: RowGroupSummary, predicate: PointPredicate): Boolean = !decide(rowGroup, predicate).skips

  /** What decides whether `rowGroup` may hold a match: what ruled it out, or why it is kept. */
  def decide(rowGroup: RowGroupSummary, predicate: PointPredicate): Decision = predicate match {
    case All(children) => Decision.allOf(children.iterator.map(decide(rowGroup, _)))
    case AnyOf(children) => Decision.anyOf(children.iterator.map(decide(rowGroup, _)))
    case in: ColumnIn =>
      decidable(rowGroup, in) match {
        case Right((column, chunk, candidates)) => candidates.decide(chunk, filterOf(rowGroup.ordinal, column))
        case Left(reason) => reason
      }
  }

  /**
   * The hashes one of a row's values must have for the row to match `predicate` (see
   * [[RowKeys]]): those of a conjunct the filters judge, at most `maxHashes` of them. The
   * same conditions as [[mayMatch]]'s decide it, so a row is kept whenever a row group would be.
   */
  def rowKeys(rowGroup: RowGroupSummary, predicate: PointPredicate, maxHashes: Int): Option[RowKeys] =
    predicate match {
      case All(children) => children.iterator.map(rowKeys(rowGroup, _, maxHashes)).collectFirst { case Some(k) => k }
      case in: ColumnIn =>
        decidable(rowGroup, in).toOption.flatMap { case (column, _, candidates) =>
          val hashes = candidates.hashes.distinct
          if (hashes.nonEmpty && hashes.size <= maxHashes)
            Some(RowKeys(column, hashes.toArray, values = candidates.values, numbers = candidates.numbers))
          else None
        }
      case AnyOf(children) =>
        // `k = 1 OR k = 2`: one column, the union of the branches' hashes.
        val each = children.map(rowKeys(rowGroup, _, maxHashes))
        if (each.isEmpty || each.exists(_.isEmpty) || each.flatten.map(_.column).distinct.size != 1) None
        else Some(RowKeys(each.head.get.column, each.flatten.flatMap(_.hashes).distinct.toArray,
            values = KeyBytes.union(each.flatten.map(_.values)),
            numbers = KeyNumbers.union(each.flatten.map(_.numbers))))
          .filter(_.hashes.length <= maxHashes)
    }

  /** The file column of `in` and its candidates, when its filter can answer for it; else why not. */
  private def decidable(rowGroup: RowGroupSummary,
      in: ColumnIn): Either[Decision, (String, ChunkSummary, ProbeCandidates)] =
    if (legacyCalendar && RowGroupJudge.calendarType(in.dataType)) Left(Decision.RebasedCalendar)
    else {
      val located =
        if (in.locatedById) in.fieldId.flatMap(chunkWithId(rowGroup, _))
        else chunkFor(rowGroup, in.path).filter { case (_, chunk) => in.fieldId.forall(carriesId(chunk, _)) }
      located.toRight(Decision.ColumnNotInFile).flatMap { case (column, chunk) =>
        candidatesFor(in, chunk.primitiveType).map((column, chunk, _)).toRight(Decision.KeyNotRepresentable)
      }
    }

  private def carriesId(chunk: ChunkSummary, id: Int): Boolean =
    Option(chunk.primitiveType.getId).exists(_.intValue == id)

  /** The one file column that carries field id `id`; none where no column, or more than one, does. */
  private def chunkWithId(rowGroup: RowGroupSummary, id: Int): Option[(String, ChunkSummary)] =
    rowGroup.columns.filter { case (_, chunk) => carriesId(chunk, id) }.toSeq match {
      case Seq(one) => Some(one)
      case _ => None
    }

  // Per file, each IN list is looked up once per column type, not once per row group; keys
  // are the predicate's own nodes (identity: IN lists can be long).
  private val candidatesByNode =
    new java.util.IdentityHashMap[ColumnIn, (PrimitiveType, Option[ProbeCandidates])]()

  private def candidatesFor(in: ColumnIn, column: PrimitiveType): Option[ProbeCandidates] = {
    val known = candidatesByNode.get(in)
    if (known != null && known._1 == column) known._2
    else {
      val result = candidatesOf(in, column)
      candidatesByNode.put(in, (column, result))
      result
    }
  }

  /**
   * The file column for a Spark column path, resolved as Spark's Parquet reader does.
   * Case-insensitively, a name that matches more than one file column (`id` and `ID`) makes
   * Spark fail the read: such a column is never judged, even where one matches exactly.
   */
  private def chunkFor(rowGroup: RowGroupSummary, path: Seq[String]): Option[(String, ChunkSummary)] = {
    val columns = rowGroup.columns
    val known = resolvedPaths.get(path)
    val name =
      if (known != null && (known._1.eq(columns) || known._1.keySet == columns.keySet)) known._2
      else {
        val resolved = resolve(columns.keySet, path)
        resolvedPaths.put(path, (columns, resolved))
        resolved
      }
    name.flatMap(n => columns.get(n).map(n -> _))
  }

  // Row groups of a file share their columns: a path is resolved once per set of names.
  private val resolvedPaths = new java.util.HashMap[Seq[String], (Map[String, ChunkSummary], Option[String])]()

  private def resolve(names: Set[String], path: Seq[String]): Option[String] = {
    val dotted = path.mkString(".")
    if (caseSensitive) Some(dotted).filter(names.contains)
    else {
      val lower = dotted.toLowerCase(Locale.ROOT)
      val matching = names.filter(_.toLowerCase(Locale.ROOT) == lower)
      if (matching.size == 1) matching.headOption else None
    }
  }
}

private[sparkbloom] object RowGroupJudge {

  /** The types whose stored values a legacy-calendar writer rebased. */
  def calendarType(t: DataType): Boolean = t == DateType || t == TimestampType || t == TimestampNTZType

  /** A literal as a column stores it, and the hash of each stored form. */
  final case class Probe(stored: IndexedSeq[Any], hashes: IndexedSeq[Long])

  def probe(column: PrimitiveType, dataType: DataType, value: Any): Option[Probe] =
    LiteralProbe.storedValues(column, dataType, value).map { stored =>
      Probe(stored.toIndexedSeq, stored.map(LiteralProbe.hashStored).toIndexedSeq)
    }
}
