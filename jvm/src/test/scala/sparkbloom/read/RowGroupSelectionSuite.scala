// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.apache.parquet.format.{ColumnChunk, ColumnMetaData, CompressionCodec, FileMetaData, RowGroup, Type}
import org.scalatest.funsuite.AnyFunSuite

class RowGroupSelectionSuite extends AnyFunSuite {

  private def rowGroup(dataPage: Long, dictionaryPage: Option[Long], chunkSize: Long, total: Option[Long]): RowGroup = {
    val meta = new ColumnMetaData(Type.INT64, java.util.Collections.emptyList(),
      java.util.Collections.singletonList("k"), CompressionCodec.UNCOMPRESSED,
      10L, chunkSize, chunkSize, dataPage)
    dictionaryPage.foreach(meta.setDictionary_page_offset)
    val chunk = new ColumnChunk(dataPage)
    chunk.setMeta_data(meta)
    val rg = new RowGroup(java.util.Collections.singletonList(chunk), chunkSize, 10L)
    total.foreach(rg.setTotal_compressed_size)
    rg
  }

  test("split midpoints follow parquet-java's rule on the raw footer") {
    val meta = new FileMetaData(1, java.util.Collections.emptyList(), 30L,
      java.util.Arrays.asList(
        rowGroup(4, None, 100, Some(100)), // 4 + 50
        rowGroup(140, Some(104), 100, Some(100)), // dictionary first: 104 + 50
        rowGroup(210, Some(0), 100, Some(100)), // a dictionary offset of 0 counts: 0 + 50
        rowGroup(310, None, 100, Some(300)), // the row group's own size, not its chunks': 310 + 150
        rowGroup(410, None, 80, None))) // without it, the chunks' sum: 410 + 40
    assert(FooterReader.splitMidpoints(meta).contains(IndexedSeq(54L, 154L, 50L, 460L, 450L)))
    meta.getRow_groups.get(1).getColumns.get(0).unsetMeta_data()
    assert(FooterReader.splitMidpoints(meta).isEmpty)
  }

  test("each kept row group is read by the one split holding its midpoint, ruled-out ones by none") {
    val verdict =
      FileVerdict.byFilter(null, IndexedSeq(true, false, true, true), Some(IndexedSeq(54L, 154L, 254L, 354L)))
    val selection = RowGroupSelection.of(verdict).get
    assert(selection.rangesWithin(0, 1000) == Seq((54L, 1L), (254L, 101L)))
    assert(selection.rangesWithin(0, 100) == Seq((54L, 1L)))
    assert(selection.rangesWithin(100, 200) == Seq((254L, 1L)))
    assert(selection.rangesWithin(300, 700) == Seq((354L, 1L)))
    assert(selection.rangesWithin(400, 700).isEmpty)
  }

  test("row groups sharing a midpoint are read once, if any of them may match") {
    val verdict = FileVerdict.byFilter(null, IndexedSeq(false, true, false), Some(IndexedSeq(50L, 50L, 80L)))
    assert(RowGroupSelection.of(verdict).get.rangesWithin(0, 100) == Seq((50L, 1L)))
  }

  test("unjudged files carry no selection; judged files with nothing to skip are read as planned") {
    assert(RowGroupSelection.of(FileVerdict.unjudged(null, Decision.FooterUnreadable)).isEmpty)
    val all = RowGroupSelection.of(FileVerdict.byFilter(null, IndexedSeq(true, true), None)).get
    assert(all.readsWholeSplits && all.rangesWithin(10, 20) == Seq((10L, 20L)))
    // ruled-out row groups without known midpoints: tasks' own filtering skips them
    assert(RowGroupSelection.of(FileVerdict.byFilter(null, IndexedSeq(true, false), None)).isEmpty)
  }
}
