// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter
import org.apache.parquet.io.api.Binary
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/** Our filter against parquet-java's `BlockSplitBloomFilter`, bit for bit. */
class SplitBlockBloomFilterSuite extends AnyFunSuite with ScalaCheckPropertyChecks {

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 200)

  private val blockCounts = Gen.oneOf(Gen.choose(1, 64), Gen.choose(65, 5000))

  /** parquet-java's filter of exactly `blocks` blocks (its bitset constructor takes any size). */
  private def parquetFilter(blocks: Int) = new BlockSplitBloomFilter(new Array[Byte](blocks * 32))

  private def parquetBitset(filter: BlockSplitBloomFilter): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream()
    filter.writeTo(out)
    out.toByteArray
  }

  /** Fills both filters with `hashes` and asserts identical bits and no false negatives. */
  private def assertSameAsParquet(blocks: Int, hashes: Seq[Long]): Unit = {
    val ours = SplitBlockBloomFilter.withBlocks(blocks)
    val theirs = parquetFilter(blocks)
    hashes.foreach { h => ours.insert(h); theirs.insertHash(h) }
    assert(ours.toBitset sameElements parquetBitset(theirs))
    hashes.foreach(h => assert(ours.mightContain(h)))
    // and the other way round: parquet-java answers the same on our bits
    val reread = new BlockSplitBloomFilter(ours.toBitset)
    hashes.foreach(h => assert(reread.findHash(h)))
  }

  test("random hashes: bitset identical to parquet-java at any block count") {
    forAll(blockCounts, Gen.listOf(Gen.long)) { (blocks, hashes) =>
      assertSameAsParquet(blocks, hashes)
    }
  }

  test("INT32 values: our hash is parquet-java's and the bitsets match") {
    val pj = parquetFilter(1)
    forAll(blockCounts, Gen.listOf(Gen.choose(Int.MinValue, Int.MaxValue))) { (blocks, values) =>
      values.foreach(v => assert(XxHash64.hashInt(v) == pj.hash(v)))
      assertSameAsParquet(blocks, values.map(v => XxHash64.hashInt(v)))
    }
  }

  test("INT64 values: our hash is parquet-java's and the bitsets match") {
    val pj = parquetFilter(1)
    forAll(blockCounts, Gen.listOf(Gen.long)) { (blocks, values) =>
      values.foreach(v => assert(XxHash64.hashLong(v) == pj.hash(v)))
      assertSameAsParquet(blocks, values.map(XxHash64.hashLong))
    }
  }

  test("FLOAT and DOUBLE values, NaN and -0.0 included: raw IEEE bits as parquet-java") {
    val pj = parquetFilter(1)
    val floats = Gen.oneOf(Gen.choose(-1e30f, 1e30f),
      Gen.oneOf(Float.NaN, -0.0f, 0.0f, Float.MinPositiveValue,
        Float.PositiveInfinity, java.lang.Float.intBitsToFloat(0x7fc00001)))
    val doubles = Gen.oneOf(Gen.choose(-1e300, 1e300),
      Gen.oneOf(Double.NaN, -0.0, 0.0, Double.MinPositiveValue,
        Double.NegativeInfinity))
    forAll(blockCounts, Gen.listOf(floats), Gen.listOf(doubles)) { (blocks, fs, ds) =>
      fs.foreach(v => assert(XxHash64.hashFloat(v) == pj.hash(v)))
      ds.foreach(v => assert(XxHash64.hashDouble(v) == pj.hash(v)))
      assertSameAsParquet(blocks, fs.map(XxHash64.hashFloat) ++ ds.map(XxHash64.hashDouble))
    }
  }

  test("BYTE_ARRAY values of every length: our hash is parquet-java's") {
    val pj = parquetFilter(1)
    val bytes = Gen.choose(0, 100).flatMap(n => Gen.listOfN(n, Gen.choose(Byte.MinValue, Byte.MaxValue)).map(_.toArray))
    forAll(blockCounts, Gen.listOf(bytes)) { (blocks, values) =>
      values.foreach { v =>
        assert(XxHash64.hashBytes(v) == pj.hash(Binary.fromConstantByteArray(v)))
        val padded = Array[Byte](9, 9) ++ v ++ Array[Byte](7)
        assert(XxHash64.hashBytes(padded, 2, v.length) == XxHash64.hashBytes(v))
      }
      assertSameAsParquet(blocks, values.map(v => XxHash64.hashBytes(v)))
    }
  }

  test("mask sets one bit per word, as the spec's salts say") {
    forAll(Gen.long) { h =>
      val mask = SplitBlockBloomFilter.mask(h)
      assert(mask.length == 8 && mask.forall(w => Integer.bitCount(w) == 1))
      val single = SplitBlockBloomFilter.withBlocks(1)
      single.insert(h)
      assert(single.toBitset sameElements SplitBlockBloomFilter.fromBitset(maskBytes(mask)).toBitset)
    }
  }

  private def maskBytes(mask: Array[Int]): Array[Byte] = {
    val buffer = java.nio.ByteBuffer.allocate(32).order(java.nio.ByteOrder.LITTLE_ENDIAN)
    mask.foreach(buffer.putInt)
    buffer.array()
  }

  test("folding: a folded filter equals the filter built at the smaller size") {
    val shapes = for {
      target <- Gen.choose(1, 300)
      factor <- Gen.oneOf(2, 2, 3, 4, 5, 8, 12)
      hashes <- Gen.listOf(Gen.long)
    } yield (target, factor, hashes)
    forAll(shapes) { case (target, factor, hashes) =>
      val large = SplitBlockBloomFilter.withBlocks(target * factor)
      val small = SplitBlockBloomFilter.withBlocks(target)
      hashes.foreach { h => large.insert(h); small.insert(h) }
      assert(large.foldTo(target) == small)
      assert(FilterEstimates.foldedFpp(large, target) == FilterEstimates.fpp(small))
    }
  }

  test("a sampled fpp is exact for small filters and close for large ones; empty means no bit") {
    val rnd = new scala.util.Random(5)
    for ((blocks, n) <- Seq((16, 40), (256, 2000), (32768, 40000), (32768, 400000), (4096, 200000))) {
      val filter = SplitBlockBloomFilter.withBlocks(blocks)
      Seq.fill(n)(rnd.nextLong()).foreach(filter.insert)
      val exact = FilterEstimates.fpp(filter)
      val sampled = FilterEstimates.sampledFpp(filter)
      if (blocks <= 256) assert(sampled == exact)
      // a nearly empty filter's rate hangs on its few fullest blocks: there 1e-6 is close enough
      else assert(math.abs(sampled - exact) <= math.max(0.25 * exact, 1e-6), (blocks, n, sampled, exact))
      assert(!FilterEstimates.empty(filter))
    }
    assert(FilterEstimates.empty(SplitBlockBloomFilter.withBlocks(1024)))
    val one = SplitBlockBloomFilter.withBlocks(1024)
    one.insert(42L)
    assert(!FilterEstimates.empty(one) && FilterEstimates.sampledFpp(one) < 1e-9)
  }

  test("folding to a target fpp keeps every value and meets the target") {
    val rnd = new scala.util.Random(11)
    for (n <- Seq(0, 10, 1000, 20000)) {
      val filter = SplitBlockBloomFilter.withBlocks(32768)
      val hashes = Seq.fill(n)(rnd.nextLong())
      hashes.foreach(filter.insert)
      val folded = filter.foldedToFpp(0.01)
      hashes.foreach(h => assert(folded.mightContain(h)))
      assert(FilterEstimates.fpp(folded) <= 0.01)
      // right-sized: not more than 2x the model's optimum for the true count
      val optimal = FilterSizing.optimalNumBlocks(n.toLong, 0.01)
      assert(folded.numBlocks <= math.max(2 * optimal, 1), s"n=$n: ${folded.numBlocks} vs optimal $optimal")
    }
  }

  test("a filter folds only to a divisor of its block count") {
    assertThrows[IllegalArgumentException](SplitBlockBloomFilter.withBlocks(3).foldTo(2))
    assertThrows[IllegalArgumentException](SplitBlockBloomFilter.withBlocks(10).foldTo(3))
  }

  test("bitset round trip and size limits") {
    forAll(blockCounts, Gen.listOf(Gen.long)) { (blocks, hashes) =>
      val f = SplitBlockBloomFilter.withBlocks(blocks)
      hashes.foreach(f.insert)
      assert(SplitBlockBloomFilter.fromBitset(f.toBitset) == f)
    }
    assertThrows[IllegalArgumentException](SplitBlockBloomFilter.withBlocks(0))
    assertThrows[IllegalArgumentException](SplitBlockBloomFilter.fromBitset(new Array[Byte](33)))
    assertThrows[IllegalArgumentException](SplitBlockBloomFilter.fromBitset(new Array[Byte](0)))
  }
}
