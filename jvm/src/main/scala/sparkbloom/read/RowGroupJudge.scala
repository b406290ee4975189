package sparkbloom.read

import java.util.Locale


import org.apache.parquet.schema.PrimitiveType
import org.apache.spark.sql.types.{DataType, DateType, TimestampNTZType, TimestampType}

import sparkbloom.catalyst.PointPredicate
import sparkbloom.catalyst.PointPredicate.{All, AnyOf, ColumnIn}
import sparkbloom.hashing.LiteralProbe

/**
 * Decides whether a row group can hold a row matching a [[PointPredicate]], from its
 * min/max statistics first and its Bloom filter second (the filter only when statistics
 * leave the question open, so that it is read only then). Every doubt answers "may match".
 *
 * @param footer         the file's footer summary
 * @param caseSensitive  `spark.sql.caseSensitive`: how column names find file columns
 * @param legacyCalendar dates and timestamps in this file may be rebased (Spark 2.x
 *                       files, LEGACY rebase modes): their stored values are not the
 *                       literal's, so they are never judged
 * @param filterOf       the filter of (row group, column path), read on first use
 * @param probe          a literal's stored values in a file column and their hashes (None:
 *                       undecidable), shared by the files of one scan
 */
final class RowGroupJudge(
    footer: FooterSummary,
    caseSensitive: Boolean,
    legacyCalendar: Boolean,
    filterOf: (Int, String) => FilterLookup,
    probe: (PrimitiveType, DataType, Any) => Option[RowGroupJudge.Probe] = RowGroupJudge.probe) {

  def mayMatch(rowGroup: RowGroupSummary, predicate: PointPredicate): Boolean = predicate match {
    case All(children) => children.forall(mayMatch(rowGroup, _))
    case AnyOf(children) => children.exists(mayMatch(rowGroup, _))
    case ColumnIn(path, dataType, values) =>
      if (legacyCalendar && isCalendarType(dataType)) true
      else chunkFor(rowGroup, path) match {
        case None => true
        case Some((column, chunk)) => values.exists(v => valueMayBePresent(rowGroup, column, chunk, dataType, v))
      }
  }

  private def isCalendarType(t: DataType): Boolean = t == DateType || t == TimestampType || t == TimestampNTZType

  /** The file column for a Spark column path, resolved as Spark's Parquet reader does. */
  private def chunkFor(rowGroup: RowGroupSummary, path: Seq[String]): Option[(String, ChunkSummary)] = {
    val dotted = path.mkString(".")
    rowGroup.columns.get(dotted).map(dotted -> _).orElse {
      if (caseSensitive) None
      else {
        val lower = dotted.toLowerCase(Locale.ROOT)
        rowGroup.columns.filter(_._1.toLowerCase(Locale.ROOT) == lower).toSeq match {
          case Seq(single) => Some(single) // ambiguous names: Spark fails the read; do not judge
          case _ => None
        }
      }
    }
  }

  private def valueMayBePresent(rowGroup: RowGroupSummary, column: String, chunk: ChunkSummary,
      dataType: DataType, value: Any): Boolean =
    probe(chunk.primitiveType, dataType, value) match {
      case None => true
      case Some(p) =>
        val inRange = p.stored.indices.filter(i => withinStatistics(chunk, p.stored(i)))
        inRange.nonEmpty && (filterOf(rowGroup.ordinal, column) match {
          case FilterLookup.Present(filter) => inRange.exists(i => filter.mightContain(p.hashes(i)))
          case _ => true
        })
    }

  private def withinStatistics(chunk: ChunkSummary, stored: Any): Boolean =
    (chunk.min, chunk.max) match {
      case (Some(min), Some(max)) =>
        val comparator = chunk.primitiveType.comparator().asInstanceOf[java.util.Comparator[Any]]
        try comparator.compare(min, stored) <= 0 && comparator.compare(stored, max) <= 0
        catch { case _: ClassCastException | _: UnsupportedOperationException => true }
      case _ => true
    }
}

object RowGroupJudge {

  /** A literal as a column stores it, and the hash of each stored form. */
  final case class Probe(stored: IndexedSeq[Any], hashes: IndexedSeq[Long])

  def probe(column: PrimitiveType, dataType: DataType, value: Any): Option[Probe] =
    LiteralProbe.storedValues(column, dataType, value).map { stored =>
      Probe(stored.toIndexedSeq, stored.map(LiteralProbe.hashStored).toIndexedSeq)
    }
}
