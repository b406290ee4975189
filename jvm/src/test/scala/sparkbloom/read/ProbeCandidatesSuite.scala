// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.util.Random

import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.types.{DataType, DoubleType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.predicate.PointPredicate.ColumnIn
import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * The sorted candidates of an IN list answer exactly as asking each value's stored forms
 * "within min/max, and in the filter?" one by one: for every column order, NaN, -0.0,
 * missing statistics and filters, over random lists, statistics and filters.
 */
class ProbeCandidatesSuite extends AnyFunSuite {

  private val random = new Random(20261124)

  private val columns: Seq[(PrimitiveType, DataType, () => Any)] = Seq(
    (Types.required(INT32).named("k"), IntegerType, () => random.nextInt(200) - 100),
    (Types.required(INT64).named("k"), LongType, () => random.nextLong() % 1000),
    (Types.required(DOUBLE).named("k"), DoubleType,
      () =>
        Seq(Double.NaN, -0.0, 0.0, Double.NegativeInfinity)(random.nextInt(4)) match {
          case special if random.nextInt(4) == 0 => special
          case _ => random.nextInt(100) / 4.0 - 10
        }),
    (Types.required(BINARY).as(LogicalTypeAnnotation.stringType()).named("k"), StringType,
      () =>
        UTF8String
          .fromString(Seq.fill(random.nextInt(4))(Seq("a", "b", "é", "\u00ff", "z")(random.nextInt(5))).mkString)))

  private def storedForms(column: PrimitiveType, dataType: DataType, value: Any): Option[Seq[(Any, Long)]] =
    RowGroupJudge.probe(column, dataType, value).map(probe => probe.stored.zip(probe.hashes))

  test("a row group may match exactly when one stored form is within its statistics and in its filter") {
    var judged = 0
    for ((column, dataType, next) <- columns; _ <- 1 to 300) {
      val values = Seq.fill(1 + random.nextInt(30))(next())
      val candidates = ProbeCandidates.of(ColumnIn(Seq("k"), dataType, values), column)
      val perValue = values.map(storedForms(column, dataType, _))
      // a value no filter can answer for (NaN) leaves the whole list undecided
      assert(candidates.isDefined == perValue.forall(_.isDefined))
      val order = column.comparator().asInstanceOf[java.util.Comparator[Any]]
      val bounds = Iterator.continually(storedForms(column, dataType, next())).flatten.take(2).map(_.head._1).toSeq
        .sortWith(order.compare(_, _) < 0)
      candidates.foreach { candidates =>
        judged += 1
        val forms = perValue.flatten.flatten
        val (min, max) = if (random.nextInt(8) == 0) (None, None) else (Some(bounds(0)), Some(bounds(1)))
        val chunk = ChunkSummary(column, 10, min, max, 0, 32, encrypted = false, dictionaryOnly = false)
        val filter = SplitBlockBloomFilter.withBlocks(8)
        forms.foreach { case (_, hash) => if (random.nextBoolean()) filter.insert(hash) }
        val lookup = if (random.nextInt(6) == 0) FilterLookup.Missing else FilterLookup.Present(filter)
        def within(stored: Any): Boolean =
          min.forall(order.compare(_, stored) <= 0) && max.forall(order.compare(stored, _) <= 0)
        val expected = forms.exists { case (stored, hash) =>
          within(stored) && (lookup match {
            case FilterLookup.Present(f) => f.mightContain(hash)
            case _ => true
          })
        }
        var filterAsked = false
        val answer = !candidates.decide(chunk, { filterAsked = true; lookup }).skips
        assert(answer == expected, s"$column $values within $min..$max")
        // the filter is read only when a value lies within the statistics
        assert(filterAsked == forms.exists { case (stored, _) => within(stored) })
      }
    }
    assert(judged > 900)
  }
}
