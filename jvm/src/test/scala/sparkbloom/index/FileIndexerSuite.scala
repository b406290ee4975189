// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.example.data.simple.SimpleGroupFactory
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.schema.MessageTypeParser
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.CountingFileSystem
import sparkbloom.sbbf.{SplitBlockBloomFilter, XxHash64}

class FileIndexerSuite extends AnyFunSuite {

  test("a file is opened once to index it: footer, own filters and values through one stream") {
    val local = Files.createTempDirectory("indexer").resolve("f.parquet")
    val schema = MessageTypeParser.parseMessageType("message m { required int64 k; required int64 v; }")
    val writer = ExampleParquetWriter.builder(new Path(local.toUri)).withType(schema).withRowGroupSize(4096L)
      .withBloomFilterEnabled("k", true).build()
    val groups = new SimpleGroupFactory(schema)
    try { (0L until 3000L).foreach(i => writer.write(groups.newGroup().append("k", i).append("v", i % 7))) }
    finally writer.close()
    val conf = new Configuration()
    conf.set("fs.countfs.impl", classOf[CountingFileSystem].getName)
    conf.set("fs.countfs.impl.disable.cache", "true")
    val path = new Path("countfs://" + local.toAbsolutePath)
    val fs = path.getFileSystem(conf)
    val status = fs.getFileStatus(path)
    def callsOf(work: => Unit): Long = {
      val before = CountingFileSystem.calls.get()
      work
      CountingFileSystem.calls.get() - before
    }
    // the local file system looks the file up as it opens it: an open is more than one call
    val oneOpen = callsOf(fs.open(path).close())
    var result: FileIndexer.Result = null
    val indexing = callsOf {
      result = FileIndexer.index(status, "f.parquet", Seq("k", "v"), fieldIds = None, caseSensitive = true, 0.01,
        1 << 20, conf)
    }
    assert(indexing == oneOpen, s"$indexing calls to the file system while indexing, $oneOpen to open it")
    assert(result.file.rowGroups > 1)
    assert(result.columns.map(_.entry.fileColumn) == Seq("k", "v"))
    for ((column, values) <- result.columns.zip(Seq(0L until 3000L, 0L until 7L))) {
      val filters = column.bitsets.map(SplitBlockBloomFilter.fromBitset)
      values.foreach(x =>
        assert(filters.exists(_.mightContain(XxHash64.hashLong(x))), s"${column.entry.fileColumn} = $x"))
    }
  }
}
