// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.bench

import java.util.concurrent.TimeUnit

import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter
import org.openjdk.jmh.annotations._

import sparkbloom.sbbf.{SplitBlockBloomFilter, XxHash64}

/**
 * Insert and check throughput, ours against parquet-java's `BlockSplitBloomFilter` in the
 * same run, with the hash precomputed ("Hash" = hash already known) and including XXH64
 * of a long ("Value"). Sizes: 16 KiB fits L1/L2, 256 KiB fits L2, 64 MiB fits no cache.
 *
 * Run: ./dev/sbt "bench/Jmh/run -f 1 -wi 3 -i 5 -w 1s -r 1s sparkbloom.bench.FilterBenchmark"
 */
@State(Scope.Thread)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.NANOSECONDS)
class FilterBenchmark {

  @Param(Array("16384", "262144", "67108864"))
  var bytes: Int = _

  private final val Batch = 4096
  private val values = Array.fill(Batch)(scala.util.Random.nextLong())
  private val hashes = values.map(XxHash64.hashLong)
  private var ours: SplitBlockBloomFilter = _
  private var theirs: BlockSplitBloomFilter = _

  @Setup
  def setUp(): Unit = {
    ours = SplitBlockBloomFilter.withBlocks(bytes / 32)
    theirs = new BlockSplitBloomFilter(new Array[Byte](bytes))
    // Half of the values are present, so checks see hits and misses.
    hashes.indices.filter(_ % 2 == 0).foreach { i => ours.insert(hashes(i)); theirs.insertHash(hashes(i)) }
  }

  // Each invocation handles the whole batch, so the per-value cost is not buried under
  // JMH's per-call overhead; results are per value.
  @Benchmark @OperationsPerInvocation(4096)
  def oursInsertHash(): Unit = { var i = 0; while (i < Batch) { ours.insert(hashes(i)); i += 1 } }
  @Benchmark @OperationsPerInvocation(4096)
  def parquetInsertHash(): Unit = { var i = 0; while (i < Batch) { theirs.insertHash(hashes(i)); i += 1 } }
  @Benchmark @OperationsPerInvocation(4096)
  def oursCheckHash(): Int = { var n = 0; var i = 0; while (i < Batch) { n += (if (ours.mightContain(hashes(i))) 1 else 0); i += 1 }; n }
  @Benchmark @OperationsPerInvocation(4096)
  def parquetCheckHash(): Int = { var n = 0; var i = 0; while (i < Batch) { n += (if (theirs.findHash(hashes(i))) 1 else 0); i += 1 }; n }

  @Benchmark @OperationsPerInvocation(4096)
  def oursInsertValue(): Unit = { var i = 0; while (i < Batch) { ours.insert(XxHash64.hashLong(values(i))); i += 1 } }
  @Benchmark @OperationsPerInvocation(4096)
  def parquetInsertValue(): Unit = { var i = 0; while (i < Batch) { theirs.insertHash(theirs.hash(values(i))); i += 1 } }
  @Benchmark @OperationsPerInvocation(4096)
  def oursCheckValue(): Int = {
    var n = 0; var i = 0
    while (i < Batch) { n += (if (ours.mightContain(XxHash64.hashLong(values(i)))) 1 else 0); i += 1 }
    n
  }
  @Benchmark @OperationsPerInvocation(4096)
  def parquetCheckValue(): Int = {
    var n = 0; var i = 0
    while (i < Batch) { n += (if (theirs.findHash(theirs.hash(values(i)))) 1 else 0); i += 1 }
    n
  }
}
