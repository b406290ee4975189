// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.IOException
import java.net.URI
import java.util.concurrent.atomic.AtomicInteger

import org.apache.hadoop.fs.{FSDataInputStream, Path, RawLocalFileSystem}

/**
 * The local file system under the scheme `flaky:`, whose next `failingOpens` opens fail as
 * an object store's read fails now and then (a timeout, a 503). Register it with
 * `spark.hadoop.fs.flaky.impl`.
 */
class FlakyFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("flaky:///")
  override def getScheme: String = "flaky"

  override def open(path: Path, bufferSize: Int): FSDataInputStream = {
    if (FlakyFileSystem.failingOpens.getAndUpdate(n => math.max(0, n - 1)) > 0)
      throw new IOException(s"injected transient failure opening $path")
    super.open(path, bufferSize)
  }
}

object FlakyFileSystem {
  val failingOpens = new AtomicInteger(0)
}
