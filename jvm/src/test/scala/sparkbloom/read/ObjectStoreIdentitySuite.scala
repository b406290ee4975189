// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.EOFException
import java.nio.ByteBuffer

import org.apache.hadoop.fs.{EtagSource, FileStatus, Path}
import org.apache.parquet.io.SeekableInputStream
import org.scalatest.funsuite.AnyFunSuite

/**
 * What identifies a file version on an object store, where `LastModified` has whole
 * seconds: an object replaced within the same second with the same length differs only in
 * its etag. No whole-second time without an etag may ever vouch for a file, whatever the
 * driver's clock says (S3 accepts requests from clocks 15 minutes off).
 */
class ObjectStoreIdentitySuite extends AnyFunSuite {

  private val wholeSecond = 1764300000000L
  private val now = wholeSecond + 3600000L

  private def status(modificationTime: Long, etag: String = ""): FileStatus =
    if (etag.isEmpty) new FileStatus(100L, false, 1, 1L, modificationTime, new Path("s3a://b/k.parquet"))
    else new FileStatus(100L, false, 1, 1L, modificationTime, new Path("s3a://b/k.parquet")) with EtagSource {
      override def getEtag: String = etag
    }

  test("a whole-second time without an etag pins nothing, however old") {
    val listed = FileIdentity.of(status(wholeSecond))
    assert(!listed.pinned)
    assert(listed.unsettled(now), "never indexed")
    assert(!listed.sameFile(listed), "never the same file: a same-second replacement keeps every field")
    assert(!listed.sameListing(status(wholeSecond)))
    val fine = FileIdentity.of(status(wholeSecond + 123))
    assert(fine.pinned && !fine.unsettled(now) && fine.sameFile(fine) && fine.sameListing(status(wholeSecond + 123)))
  }

  test("an etag decides, and a clock is never asked") {
    val v1 = FileIdentity.of(status(wholeSecond, "e1"))
    val v2 = FileIdentity.of(status(wholeSecond, "e2"))
    assert(v1.pinned && !v1.unsettled(wholeSecond), "an etag is trusted even for a file written this instant")
    assert(v1.sameFile(v1) && !v1.sameFile(v2))
    assert(v1.sameListing(status(wholeSecond, "e1")) && !v1.sameListing(status(wholeSecond, "e2")))
    assert(!v1.sameListing(status(wholeSecond)), "a listing without the etag does not vouch for an entry with one")
    // Only one side knows an etag (a task's HEAD against a 3.5 listing): the whole second cannot tell.
    assert(!FileIdentity.of(status(wholeSecond)).sameFile(v1))
  }

  test("the cache keeps a file with an etag at once, and one with a whole-second time never") {
    val cache = new ProbeCache(1 << 20)
    var loads = 0
    def lookUp(status: FileStatus): Unit =
      cache.filter(FileKey.of(status, ""), 0, "c") { loads += 1; FilterLookup.Missing }
    val justWritten = (System.currentTimeMillis() / 1000) * 1000
    lookUp(status(justWritten, "e1"))
    lookUp(status(justWritten, "e1"))
    assert(loads == 1, "cached though written this second: its etag changes with its content")
    lookUp(status(justWritten, "e2"))
    assert(loads == 2, "a replacement in the same second is read again")
    loads = 0
    lookUp(status(wholeSecond))
    lookUp(status(wholeSecond))
    assert(loads == 2, "an hour old by the driver's clock, but a store's clock may be off: never cached")
  }

  /** A file in memory that counts the reads that reach it. */
  private final class CountingStream(bytes: Array[Byte]) extends SeekableInputStream {
    var reads = 0
    private var position = 0L
    override def getPos: Long = position
    override def seek(newPosition: Long): Unit = position = newPosition
    override def readFully(b: Array[Byte]): Unit = readFully(b, 0, b.length)
    override def readFully(b: Array[Byte], offset: Int, count: Int): Unit = {
      if (position + count > bytes.length) throw new EOFException()
      reads += 1
      System.arraycopy(bytes, position.toInt, b, offset, count)
      position += count
    }
    override def read(): Int = throw new UnsupportedOperationException
    override def read(buffer: ByteBuffer): Int = throw new UnsupportedOperationException
    override def readFully(buffer: ByteBuffer): Unit = throw new UnsupportedOperationException
  }

  test("the tail of a file is read once, and reads before it go to the file") {
    val bytes = Array.tabulate[Byte](10000)(i => (i * 31).toByte)
    val file = new CountingStream(bytes)
    val stream = new TailReadStream(file, bytes.length, 4096)
    def readAt(offset: Long, count: Int): Array[Byte] = {
      val out = new Array[Byte](count)
      stream.seek(offset)
      stream.readFully(out)
      assert(stream.getPos == offset + count)
      out
    }
    assert(readAt(9992, 8).sameElements(bytes.slice(9992, 10000)))
    assert(readAt(7000, 2992).sameElements(bytes.slice(7000, 9992)))
    assert(readAt(6000, 100).sameElements(bytes.slice(6000, 6100)))
    assert(file.reads == 1, "footer length, footer and filter: one read of the window")
    assert(readAt(100, 50).sameElements(bytes.slice(100, 150)))
    assert(readAt(5000, 2000).sameElements(bytes.slice(5000, 7000)), "a read that starts before the window")
    assert(file.reads == 3)
    val buffer = ByteBuffer.allocate(10)
    stream.seek(9990)
    assert(stream.read(buffer) == 10 && buffer.array.sameElements(bytes.slice(9990, 10000)))
    assert(stream.read() == -1 && stream.read(new Array[Byte](4), 0, 4) == -1)
    val small = new CountingStream(bytes.take(100))
    val whole = new TailReadStream(small, 100, 4096)
    whole.seek(92)
    whole.readFully(new Array[Byte](8))
    whole.seek(0)
    whole.readFully(new Array[Byte](92))
    assert(small.reads == 1, "a file smaller than the window is read whole, once")
  }
}
