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
    CountingFileSystem.count(f)
    if (org.apache.spark.TaskContext.get() == null) CountingFileSystem.driverOpens.incrementAndGet()
    super.open(f, bufferSize)
  }
  override def listStatus(f: Path): Array[FileStatus] = {
    // Every judged scan lists where a table index would be (one request on an object store);
    // counted apart, so that `calls` counts what reaches the table's files.
    if (f.getName == IndexLayout.DirName) CountingFileSystem.indexListings.incrementAndGet()
    else CountingFileSystem.count(f)
    super.listStatus(f)
  }
  override def getFileStatus(f: Path): FileStatus = {
    CountingFileSystem.count(f); super.getFileStatus(f)
  }
  override def listLocatedStatus(f: Path): RemoteIterator[LocatedFileStatus] = {
    CountingFileSystem.count(f); super.listLocatedStatus(f)
  }
}

object CountingFileSystem {
  val calls = new AtomicLong()

  /** The calls per path (as the file system was asked), for counts of one test's files alone. */
  private val byPath = new java.util.concurrent.ConcurrentHashMap[String, AtomicLong]()

  private def count(f: Path): Unit = {
    calls.incrementAndGet()
    byPath.computeIfAbsent(f.toUri.getPath, _ => new AtomicLong()).incrementAndGet()
  }

  /** Calls so far on paths under `dir` (a local path): background work elsewhere is not counted. */
  def callsUnder(dir: String): Long =
    byPath.entrySet().stream().filter(e => e.getKey.startsWith(dir)).mapToLong(_.getValue.get).sum()

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
