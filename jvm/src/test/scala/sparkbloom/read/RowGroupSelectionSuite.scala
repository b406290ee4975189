package sparkbloom.read

import org.scalatest.funsuite.AnyFunSuite

class RowGroupSelectionSuite extends AnyFunSuite {

  test("only writers with consistent row-group offsets are trusted with byte ranges") {
    assert(FooterSummary.trustedWriter("parquet-mr version 1.17.0 (build abc)"))
    assert(FooterSummary.trustedWriter("parquet-mr version 1.12.2 (build x)"))
    assert(!FooterSummary.trustedWriter("parquet-mr version 1.12.0 (build x)")) // PARQUET-2078
    assert(!FooterSummary.trustedWriter("parquet-mr version 1.10.1 (build x)"))
    assert(FooterSummary.trustedWriter("parquet-rs version 53.0.0"))
    assert(FooterSummary.trustedWriter("DuckDB version v1.2.0 (build abc)"))
    assert(!FooterSummary.trustedWriter("impala version 4.0"))
    assert(!FooterSummary.trustedWriter(""))
  }

  test("each kept row group is read by exactly one split, through its whole extent") {
    // row groups at [4, 104), [104, 204), [204, 304); the middle one is ruled out
    val selection = RowGroupSelection(Array(4L, 204L), Array(100L, 100L))
    assert(selection.rangesWithin(0, 1000) == Seq((4L, 100L), (204L, 100L)))
    assert(selection.rangesWithin(0, 100) == Seq((4L, 100L)))       // midpoint 54 here
    assert(selection.rangesWithin(100, 200) == Seq((204L, 100L)))    // midpoint 254 here
    assert(selection.rangesWithin(300, 700).isEmpty)
    val adjacent = RowGroupSelection(Array(4L, 104L), Array(100L, 100L))
    assert(adjacent.rangesWithin(0, 1000) == Seq((4L, 200L)))
  }
}
