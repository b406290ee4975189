package sparkbloom.write

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.sbbf.{FilterSizing, SplitBlockBloomFilter}

/** Both ways the builder sizes a row group's filter: exact from buffered hashes, or folded. */
class ColumnFilterBuilderSuite extends AnyFunSuite {

  private val column = BloomColumn(Seq("k"), fpp = 0.001, ndvHint = None)
  private val maxBytes = 1 << 20

  private def build(distinct: Int, copies: Int, seed: Long): (SplitBlockBloomFilter, Seq[Long]) = {
    val rnd = new Random(seed)
    val hashes = Seq.fill(distinct)(rnd.nextLong())
    val builder = new ColumnFilterBuilder(column, maxBytes)
    for (_ <- 1 to copies; h <- hashes) builder.insert(h)
    (builder.finish(), hashes)
  }

  private def measuredFpp(filter: SplitBlockBloomFilter, seed: Long): Double = {
    val rnd = new Random(seed)
    val probes = 200000
    (0 until probes).count(_ => filter.mightContain(rnd.nextLong())).toDouble / probes
  }

  test("up to the buffer's size, duplicates included, the filter has exactly the optimal size") {
    for ((distinct, copies) <- Seq(1 -> 1, 100 -> 50, 20000 -> 3, ColumnFilterBuilder.BufferedHashes / 2 -> 2)) {
      val (filter, hashes) = build(distinct, copies, seed = distinct)
      assert(filter.numBytes == FilterSizing.optimalNumBytes(distinct, column.fpp), s"$distinct distinct")
      assert(hashes.forall(filter.mightContain), s"$distinct distinct: a hash was lost")
      assert(measuredFpp(filter, 7) <= 2 * column.fpp, s"$distinct distinct")
    }
  }

  test("beyond it, values are collected into a filter and folded, and none is lost") {
    val distinct = ColumnFilterBuilder.BufferedHashes * 2
    val (filter, hashes) = build(distinct, copies = 1, seed = 3)
    assert(hashes.forall(filter.mightContain))
    assert(filter.numBytes <= maxBytes && filter.numBytes >= FilterSizing.optimalNumBytes(distinct, column.fpp) / 2)
    assert(measuredFpp(filter, 9) <= 2 * column.fpp)
  }

  test("a row group without values gets the smallest filter, and the builder starts over") {
    val builder = new ColumnFilterBuilder(column, maxBytes)
    assert(builder.finish().numBytes == SplitBlockBloomFilter.BytesPerBlock)
    builder.insert(42L)
    val first = builder.finish()
    assert(first.mightContain(42L))
    builder.insert(43L)
    val second = builder.finish()
    assert(second.mightContain(43L) && second.numBytes == first.numBytes)
  }
}
