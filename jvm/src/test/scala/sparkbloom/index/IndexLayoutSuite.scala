// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.io.IOException
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.index.IndexLayout._
import sparkbloom.read.FileIdentity
import sparkbloom.sbbf.SplitBlockBloomFilter

/** The index files: what is written is read back, and damage is refused, never believed. */
class IndexLayoutSuite extends AnyFunSuite {

  private val fs = FileSystem.getLocal(new Configuration()).getRawFileSystem // no .crc files: our own checks
  private def dir(): Path = new Path(Files.createTempDirectory("sbi").toUri)

  private def filter(blocks: Int, hashes: Long*): SplitBlockBloomFilter = {
    val f = SplitBlockBloomFilter.withBlocks(blocks)
    hashes.foreach(f.insert)
    f
  }

  private val files = IndexedSeq(
    IndexedFile("a=1/part-0.parquet", FileIdentity(100, 5, "", 7), 2, Some(IndexedSeq(10L, 60L)),
      legacyCalendar = false),
    IndexedFile("part-1.parquet", FileIdentity(200, 6, "etag", -1), 1, None, legacyCalendar = true))
  private val entries = IndexedSeq(
    ColumnEntry("k", ambiguousCase = false, "optional int64 k", 0, 2, fileLevel = false),
    ColumnEntry("k", ambiguousCase = false, "optional int64 k", 2, 1, fileLevel = true))
  private val units = IndexedSeq(filter(4, 1L, 2L), filter(4, 3L), filter(4, 99L << 40))

  private def written(at: Path): Path = {
    val segment = new Path(at, "segment-x.sbi")
    writeSegment(fs, segment, files, Seq(ColumnData("k", 4, units, 0.001, entries)))
    segment
  }

  test("a segment's directory and block rows read back as written") {
    val segment = written(dir())
    val directory = readDirectory(fs, fs.getFileStatus(segment))
    assert(directory.files == files)
    val column = directory.columns.head
    assert(column.entries.map(_.copy(shape = -1)) == entries && column.entries.forall(_.shape == 0))
    assert(column.numBlocks == 4 && column.numUnits == 3)
    val in = fs.open(segment)
    try {
      for (hash <- Seq(1L, 2L, 3L, 99L << 40)) {
        val row = readRow(in, segment, column, SplitBlockBloomFilter.blockIndex(hash, 4))
        val holders = units.indices.filter(u => SplitBlockBloomFilter.blockMightContain(row, u * 32, hash))
        assert(holders == units.indices.filter(u => units(u).mightContain(hash)))
      }
    } finally in.close()
  }

  test("damaged bits, directories and manifests are refused") {
    val at = dir()
    val segment = written(at)
    val bytes = Files.readAllBytes(java.nio.file.Paths.get(segment.toUri))
    val column = readDirectory(fs, fs.getFileStatus(segment)).columns.head
    val damaged = bytes.clone()
    damaged(column.dataOffset.toInt + 5) = (damaged(column.dataOffset.toInt + 5) ^ 0x10).toByte
    Files.write(java.nio.file.Paths.get(segment.toUri), damaged)
    val in = fs.open(segment)
    try assert(intercept[IOException](readRow(in, segment, column, 0)).getMessage.contains("checksum"))
    finally in.close()
    Files.write(java.nio.file.Paths.get(segment.toUri), bytes.dropRight(20))
    intercept[IOException](readDirectory(fs, fs.getFileStatus(segment)))

    assert(commitManifest(fs, at, Manifest(3, Seq("k"), 0.01, 1024, Seq("segment-x.sbi"))))
    assert(latestManifest(fs, at).map(_.version).contains(3L))
    assert(readManifest(fs, fs.getFileStatus(new Path(at, "v3.manifest")), 3).columns == Seq("k"))
    // a second writer of the same version loses, and the first's manifest stands
    assert(!commitManifest(fs, at, Manifest(3, Seq("k"), 0.01, 1024, Nil)))
    assert(readManifest(fs, fs.getFileStatus(new Path(at, "v3.manifest")), 3).segments == Seq("segment-x.sbi"))
    val manifest = java.nio.file.Paths.get(new Path(at, "v3.manifest").toUri)
    Files.write(manifest, Files.readAllBytes(manifest).dropRight(1))
    intercept[IOException](readManifest(fs, fs.getFileStatus(new Path(at, "v3.manifest")), 3))
  }
}
