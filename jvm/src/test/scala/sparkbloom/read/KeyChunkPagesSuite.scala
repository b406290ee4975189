// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayOutputStream, IOException}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.column.{ColumnDescriptor, Encoding}
import org.apache.parquet.column.statistics.Statistics
import org.apache.parquet.format.{DataPageHeader, DataPageHeaderV2, IndexPageHeader, PageHeader, PageType, Util}
import org.apache.parquet.format.{Encoding => FormatEncoding}
import org.apache.parquet.hadoop.metadata.{ColumnChunkMetaData, ColumnPath, CompressionCodecName}
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.{PrimitiveType, Types}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.sbbf.XxHash64

/**
 * [[KeyChunkPages]] on column chunks written here page by page, for the pages Spark's writers
 * do not write: a v2 page whose values are stored uncompressed, an index page between data
 * pages, and headers that disagree with the footer or with themselves (which must fail, as
 * in parquet-java, rather than yield fewer rows). MatchingRowsSuite compares it with
 * parquet-java's page reader on the pages Spark writes.
 */
class KeyChunkPagesSuite extends AnyFunSuite {

  private val keyType: PrimitiveType = Types.required(INT32).named("k")
  private val column = new ColumnDescriptor(Array("k"), keyType, 0, 0)

  private def plainInts(values: Int*): Array[Byte] = {
    val bytes = ByteBuffer.allocate(4 * values.size).order(ByteOrder.LITTLE_ENDIAN)
    values.foreach(v => bytes.putInt(v))
    bytes.array()
  }

  /** A v1 page of plain values (a required column has no levels). */
  private def v1Page(values: Int*): Array[Byte] = {
    val body = plainInts(values: _*)
    val header = new PageHeader(PageType.DATA_PAGE, body.length, body.length)
    header.setData_page_header(
      new DataPageHeader(values.size, FormatEncoding.PLAIN, FormatEncoding.RLE, FormatEncoding.RLE))
    withHeader(header, body)
  }

  /** A v2 page of plain values stored uncompressed, with the level lengths given. */
  private def v2Page(repetitionLength: Int, definitionLength: Int, values: Int*): Array[Byte] = {
    val body = plainInts(values: _*)
    val header = new PageHeader(PageType.DATA_PAGE_V2, body.length, body.length)
    val v2 = new DataPageHeaderV2(values.size, 0, values.size, FormatEncoding.PLAIN, definitionLength, repetitionLength)
    v2.setIs_compressed(false)
    header.setData_page_header_v2(v2)
    withHeader(header, body)
  }

  private def indexPage(): Array[Byte] = {
    val header = new PageHeader(PageType.INDEX_PAGE, 5, 5)
    header.setIndex_page_header(new IndexPageHeader())
    withHeader(header, Array.fill[Byte](5)(7))
  }

  private def withHeader(header: PageHeader, body: Array[Byte]): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    Util.writePageHeader(header, out)
    out.write(body)
    out.toByteArray
  }

  /** The rows whose key is one of `keys`, scanned through KeyChunkPages over `pages` as one uncompressed chunk. */
  private def matching(pages: Seq[Array[Byte]], valueCount: Long, keys: Int*): Seq[Int] = {
    val raw = pages.flatten.toArray
    val file = Files.createTempFile("sparkbloom-chunk", ".bin")
    Files.write(file, raw)
    val chunk = ColumnChunkMetaData.get(ColumnPath.get("k"), keyType, CompressionCodecName.UNCOMPRESSED, null,
      java.util.Collections.singleton(Encoding.PLAIN), Statistics.createStats(keyType), 0L, 0L, valueCount,
      raw.length.toLong, raw.length.toLong)
    val in = HadoopInputFile.fromPath(new Path(file.toUri), new Configuration()).newStream()
    try {
      val found = scala.collection.mutable.ArrayBuffer.empty[Int]
      KeyChunkScan.foreachMatch(KeyChunkPages.read(in, chunk).get, column,
        RowKeys("k", keys.map(k => XxHash64.hashInt(k)).toArray))(found += _)
      found.toSeq
    } finally {
      in.close()
      Files.delete(file)
    }
  }

  test("v2 pages stored uncompressed, index pages and v1 pages: rows are counted across all of them") {
    val pages = Seq(v2Page(0, 0, 10, 20, 30), indexPage(), v1Page(40, 50), v2Page(0, 0, 60))
    assert(matching(pages, 6, 20, 50, 60, 99) == Seq(1, 4, 5))
  }

  test("bytes after the footer's count of values are not pages") {
    assert(matching(Seq(v1Page(10, 20), Array.fill[Byte](9)(3)), 2, 10, 20) == Seq(0, 1))
  }

  test("pages holding more or fewer values than the footer, or levels running past their page, fail") {
    val pages = Seq(v1Page(10, 20), v1Page(30))
    assert(intercept[IOException](matching(pages, 1, 10)).getMessage.contains("more values than 1"))
    assert(intercept[IOException](matching(pages, 4, 10)).getMessage.contains("holding 3 values, not 4"))
    intercept[IOException](matching(Seq(v2Page(-4, 8, 10, 20)), 2, 10))
    intercept[IOException](matching(Seq(v2Page(4, 9, 10, 20)), 2, 10))
  }
}
