// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.example.data.simple.SimpleGroupFactory
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.example.ExampleParquetWriter
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.MessageTypeParser
import org.scalatest.funsuite.AnyFunSuite

class FooterReaderSuite extends AnyFunSuite {

  test("a plaintext footer parsed once sums up as parquet-java's own reading of it does") {
    val path = new Path(Files.createTempDirectory("footer").resolve("f.parquet").toUri)
    val schema = MessageTypeParser.parseMessageType("message m { required int64 k; optional binary s (STRING); }")
    val writer = ExampleParquetWriter.builder(path).withType(schema).withRowGroupSize(4096L)
      .withBloomFilterEnabled("k", true).build()
    val groups = new SimpleGroupFactory(schema)
    try { (0L until 3000L).foreach(v => writer.write(groups.newGroup().append("k", v).append("s", s"v-$v"))) }
    finally writer.close()
    val conf = new Configuration()
    val input = HadoopInputFile.fromPath(path, conf)
    val options = HadoopReadOptions.builder(conf, path).useSignedStringMinMax(false).build()
    val stream = input.newStream()
    try {
      val ours = FooterReader.read(input, options, stream, conf)
      val theirs = FooterSummary(ParquetFileReader.readFooter(input, options, stream), ours.splitMidpoints)
      assert(ours.rowGroups.size > 1 && ours.splitMidpoints.exists(_.size == ours.rowGroups.size))
      assert(ours.rowGroups.forall(_.columns.get("s").exists(_.min.isDefined)))
      assert(ours.rowGroups.forall(_.columns.get("k").exists(_.hasFilter)))
      assert(ours == theirs)
    } finally stream.close()
  }
}
