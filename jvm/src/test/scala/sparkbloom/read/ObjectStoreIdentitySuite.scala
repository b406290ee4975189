// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.apache.hadoop.fs.{EtagSource, FileStatus, Path}
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
}
