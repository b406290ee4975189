// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.filter2.predicate.FilterApi
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.HadoopReadOptions
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite}
import sparkbloom.sbbf.{FilterEstimates, FilterSizing, SplitBlockBloomFilter, XxHash64}

/**
 * Without an ndv hint, each chunk's filter is the smallest power of two of blocks that
 * meets the fpp (by default), or within 2x (goal 1.10x) of the spec-optimal size for its
 * real distinct count (with `bloom_filter_exact_size`); either way its measured fpp is at
 * most 1.25x the target. 100 and 10,000 values take the buffered path, 1,000,000 the
 * collect-and-fold path.
 */
class SizingBoundsSuite extends AnyFunSuite with SparkSessionSuite {

  private def writeOneChunk(
      distinct: Long, fpp: Double, maxBytes: Int, exactSize: Option[Boolean]): ParquetFiles.Chunk = {
    val path = Files.createTempDirectory("sizing").toString + "/t"
    val writer = spark.range(0, distinct, 1, 1).write
      .option("bloom_filter_columns", "id").option("bloom_filter_fpp", fpp.toString)
      .option("bloom_filter_max_bytes", maxBytes.toString)
      .option("parquet.block.size", 1L << 30)
    exactSize.fold(writer)(e => writer.option("bloom_filter_exact_size", e.toString)).parquet(path)
    val chunks = ParquetFiles.dataFiles(path).flatMap(ParquetFiles.chunks).filter(_.path == "id")
    assert(chunks.size == 1)
    chunks.head
  }

  /** The chunk's filter as ours, its measured fpp on absent values, and that no value is lost. */
  private def measure(chunk: ParquetFiles.Chunk, distinct: Long): (SplitBlockBloomFilter, Double) = {
    val filter = chunk.filter.get
    val ours = {
      val out = new java.io.ByteArrayOutputStream()
      filter.writeTo(out)
      SplitBlockBloomFilter.fromBitset(out.toByteArray)
    }
    val rnd = new scala.util.Random(distinct)
    val probes = 400000
    val hits = (0 until probes).count(_ => ours.mightContain(XxHash64.hashLong(distinct + 1 + (rnd.nextLong() >>> 1))))
    (0L until distinct by math.max(1, distinct / 1000)).foreach(v => assert(ours.mightContain(XxHash64.hashLong(v))))
    (ours, hits.toDouble / probes)
  }

  private val cases = Seq(100L -> 0.01, 10000L -> 0.01, 10000L -> 0.001, 1000000L -> 0.01)

  for ((distinct, fpp) <- cases) {
    test(s"default: $distinct distinct values at fpp $fpp get the smallest power of two that meets it") {
      val (filter, measured) = measure(writeOneChunk(distinct, fpp, maxBytes = 4 << 20, exactSize = None), distinct)
      val model = FilterSizing.optimalPowerOfTwoBytes(distinct, fpp, 32, 4 << 20)
      info(f"${filter.numBytes} bytes, power-of-two optimum $model, exact optimum " +
        f"${FilterSizing.optimalNumBytes(distinct, fpp)}, measured fpp $measured%.5f")
      assert(Integer.bitCount(filter.numBytes) == 1, s"${filter.numBytes} is not a power of two")
      assert(filter.numBytes == model || filter.numBytes == model / 2) // folded on its own bits
      assert(FilterEstimates.fpp(filter) <= fpp * 1.1)
      assert(measured <= 1.25 * fpp)
    }

    test(s"bloom_filter_exact_size: $distinct distinct values at fpp $fpp") {
      val (filter, measured) =
        measure(writeOneChunk(distinct, fpp, maxBytes = 4 << 20, exactSize = Some(true)), distinct)
      val optimal = FilterSizing.optimalNumBytes(distinct, fpp)
      val ratio = filter.numBytes.toDouble / optimal
      info(f"${filter.numBytes} bytes, optimal $optimal ($ratio%.3fx), measured fpp $measured%.5f")
      if (distinct <= ColumnFilterBuilder.BufferedHashes / 2) assert(filter.numBytes == optimal)
      assert(ratio >= 1.0 && ratio <= 2.0)
      assert(measured <= 1.25 * fpp)
    }
  }

  test(
    "bloom_filter_max_bytes that is not a power of two: the largest power of two below it, or itself with exact sizes") {
    // 10,000 values at 0.001 want 21,120 bytes; 100,000 more (folded) want ~211,000.
    for ((distinct, exactSize, expected) <-
        Seq((10000L, None, 8192), (10000L, Some(false), 8192), (10000L, Some(true), 10016), (200000L, None, 8192))) {
      val filter = writeOneChunk(distinct, 0.001, maxBytes = 10020, exactSize = exactSize).filter.get
      assert(filter.getBitsetSize == expected, s"$distinct values, exact size $exactSize")
    }
    // Folded with exact sizes, the fold lands on a divisor of the collecting block count
    // within the ceiling: not always the ceiling itself.
    val folded = writeOneChunk(200000L, 0.001, maxBytes = 10020, exactSize = Some(true)).filter.get.getBitsetSize
    assert(folded <= 10016 && folded > 10016 / 2, s"$folded bytes")
  }

  for (exactSize <- Seq(false, true)) {
    test(s"parquet-java's own reader drops row groups for absent values (exact sizes: $exactSize)") {
      val path = Files.createTempDirectory("pj-reader").toString + "/t"
      spark.range(0, 50000, 1, 1).write.option("bloom_filter_columns", "id")
        .option("bloom_filter_exact_size", exactSize.toString)
        .option("parquet.block.size", 64 * 1024).parquet(path)
      val file = ParquetFiles.dataFiles(path).head
      val sizes = ParquetFiles.chunks(file).filter(_.path == "id").flatMap(_.filter).map(_.getBitsetSize)
      // the sizes this case is about: all powers of two, or not all
      assert(sizes.forall(b => Integer.bitCount(b) == 1) != exactSize, s"sizes $sizes")
      val conf = new Configuration()
      def rowGroupsFor(value: Long): Int = {
        val options = HadoopReadOptions.builder(conf)
          .withRecordFilter(FilterCompat.get(FilterApi.eq(FilterApi.longColumn("id"), java.lang.Long.valueOf(value))))
          .useStatsFilter(false).useDictionaryFilter(false).useBloomFilter(true).build()
        val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file.toURI), conf), options)
        try reader.getRowGroups.size
        finally reader.close()
      }
      val all = ParquetFiles.chunks(file).count(_.path == "id")
      assert(all > 3)
      assert(rowGroupsFor(12345L) >= 1)
      val absent = (0 until 20).map(i => rowGroupsFor(10000000L + i)).sum
      assert(absent <= 2, s"parquet-java kept $absent row groups for 20 absent values over $all row groups")
    }
  }
}
