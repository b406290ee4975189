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
import sparkbloom.sbbf.{FilterSizing, SplitBlockBloomFilter, XxHash64}

/**
 * Without an ndv hint, each chunk's filter is within 2x (goal 1.10x) of the spec-optimal
 * size for its real distinct count, and its measured fpp is at most 1.25x the target.
 */
class SizingBoundsSuite extends AnyFunSuite with SparkSessionSuite {

  private def writeOneChunk(distinct: Long, fpp: Double, maxBytes: Int): ParquetFiles.Chunk = {
    val path = Files.createTempDirectory("sizing").toString + "/t"
    spark.range(0, distinct, 1, 1).write
      .option("bloom_filter_columns", "id").option("bloom_filter_fpp", fpp.toString)
      .option("bloom_filter_max_bytes", maxBytes.toString)
      .option("parquet.block.size", 1L << 30)
      .parquet(path)
    val chunks = ParquetFiles.dataFiles(path).flatMap(ParquetFiles.chunks).filter(_.path == "id")
    assert(chunks.size == 1)
    chunks.head
  }

  for ((distinct, fpp) <- Seq(100L -> 0.01, 10000L -> 0.01, 10000L -> 0.001, 1000000L -> 0.01)) {
    test(s"$distinct distinct values at fpp $fpp") {
      val chunk = writeOneChunk(distinct, fpp, maxBytes = 4 << 20)
      val filter = chunk.filter.get
      val optimal = FilterSizing.optimalNumBytes(distinct, fpp)
      val ratio = filter.getBitsetSize.toDouble / optimal
      val ours = {
        val out = new java.io.ByteArrayOutputStream()
        filter.writeTo(out)
        SplitBlockBloomFilter.fromBitset(out.toByteArray)
      }
      val rnd = new scala.util.Random(distinct)
      val probes = 400000
      val hits = (0 until probes).count(_ => ours.mightContain(XxHash64.hashLong(distinct + 1 + (rnd.nextLong() >>> 1))))
      val measured = hits.toDouble / probes
      info(f"${filter.getBitsetSize} bytes, optimal $optimal ($ratio%.3fx), measured fpp $measured%.5f")
      assert(ratio >= 1.0 && ratio <= 2.0)
      assert(measured <= 1.25 * fpp)
      (0L until distinct by math.max(1, distinct / 1000)).foreach(v => assert(ours.mightContain(XxHash64.hashLong(v))))
    }
  }

  test("parquet-java's own reader drops row groups for absent values") {
    val path = Files.createTempDirectory("pj-reader").toString + "/t"
    spark.range(0, 50000, 1, 1).write.option("bloom_filter_columns", "id")
      .option("parquet.block.size", 64 * 1024).parquet(path)
    val file = ParquetFiles.dataFiles(path).head
    val conf = new Configuration()
    def rowGroupsFor(value: Long): Int = {
      val options = HadoopReadOptions.builder(conf)
        .withRecordFilter(FilterCompat.get(FilterApi.eq(FilterApi.longColumn("id"), java.lang.Long.valueOf(value))))
        .useStatsFilter(false).useDictionaryFilter(false).useBloomFilter(true).build()
      val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file.toURI), conf), options)
      try reader.getRowGroups.size finally reader.close()
    }
    val all = ParquetFiles.chunks(file).count(_.path == "id")
    assert(all > 3)
    assert(rowGroupsFor(12345L) >= 1)
    val absent = (0 until 20).map(i => rowGroupsFor(10000000L + i)).sum
    assert(absent <= 2, s"parquet-java kept $absent row groups for 20 absent values over $all row groups")
  }
}
