// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.net.URI
import java.util.concurrent.atomic.AtomicLong

import org.apache.hadoop.fs.{FileStatus, FSDataInputStream, Path, RawLocalFileSystem, RemoteIterator, LocatedFileStatus}

import sparkbloom.index.IndexLayout

/**
 * The local file system under the scheme `countfs://`, counting the calls that reach the
 * storage: so a test can tell when sparkbloom does I/O. Register it with
 * `fs.countfs.impl` (and `fs.countfs.impl.disable.cache`).
 */
class CountingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("countfs:///")
  override def getScheme: String = "countfs"

  override def open(f: Path, bufferSize: Int): FSDataInputStream = {
    CountingFileSystem.calls.incrementAndGet()
    if (org.apache.spark.TaskContext.get() == null) CountingFileSystem.driverOpens.incrementAndGet()
    super.open(f, bufferSize)
  }
  override def listStatus(f: Path): Array[FileStatus] = {
    // Every judged scan lists where a table index would be (one request on an object store);
    // counted apart, so that `calls` counts what reaches the table's files.
    val counter = if (f.getName == IndexLayout.DirName) CountingFileSystem.indexListings else CountingFileSystem.calls
    counter.incrementAndGet()
    super.listStatus(f)
  }
  override def getFileStatus(f: Path): FileStatus = {
    CountingFileSystem.calls.incrementAndGet(); super.getFileStatus(f)
  }
  override def listLocatedStatus(f: Path): RemoteIterator[LocatedFileStatus] = {
    CountingFileSystem.calls.incrementAndGet(); super.listLocatedStatus(f)
  }
}

object CountingFileSystem {
  val calls = new AtomicLong()

  /** Listings of a table index's directory. */
  val indexListings = new AtomicLong()

  /** Files opened outside any task: by the driver's judgement (in local mode tasks share the JVM). */
  val driverOpens = new AtomicLong()
}

/**
 * [[CountingFileSystem]] (the same counts) under the scheme `countopts://`: for a scan that
 * alone knows the scheme, from its read options (`fs.countopts.impl`).
 */
class ScanOptionsCountingFileSystem extends CountingFileSystem {
  override def getUri: URI = URI.create("countopts:///")
  override def getScheme: String = "countopts"
}
