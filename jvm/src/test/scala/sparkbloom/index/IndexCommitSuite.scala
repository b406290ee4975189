// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.nio.file.Files
import java.util.concurrent.{CountDownLatch, CyclicBarrier, Executors, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.index.IndexLayout.Manifest

/**
 * Index versions under concurrent writers: exactly one writer creates a version, a reader
 * never sees half a manifest, superseded files stay for their retention, and background
 * refreshes coalesce.
 */
class IndexCommitSuite extends AnyFunSuite {

  private val local = FileSystem.getLocal(new Configuration())
  private def dir(): Path = local.makeQualified(new Path(Files.createTempDirectory("sbi-commit").toUri))

  private def manifest(version: Long, segments: String*): Manifest =
    Manifest(version, Seq("k"), 0.01, 1024, segments)

  test("of writers racing for one version, exactly one creates it, and it is whole") {
    val threads = 6
    val pool = Executors.newFixedThreadPool(threads)
    try {
      for (fs <- Seq(local, local.getRawFileSystem); round <- 1 to 40) {
        val at = dir()
        val barrier = new CyclicBarrier(threads)
        val results = (0 until threads).map { w =>
          pool.submit(() => {
            barrier.await()
            IndexLayout.commitManifest(fs, at, manifest(1, s"segment-$w.sbi"))
          })
        }.map(_.get(30, TimeUnit.SECONDS))
        assert(results.count(identity) == 1, s"round $round on ${fs.getClass.getSimpleName}: $results")
        val winner = results.indexOf(true)
        val listed = IndexLayout.latestManifest(fs, at).get
        assert(IndexLayout.readManifest(fs, listed.manifest, 1).segments == Seq(s"segment-$winner.sbi"))
        // nothing left aside by the losers
        assert(listed.files.keySet.forall(!_.startsWith(IndexLayout.PendingPrefix)), listed.files.keySet)
      }
    } finally pool.shutdownNow()
  }

  private def status(at: Path, name: String, ageMs: Long, now: Long): FileStatus = {
    val path = new Path(at, name)
    if (!local.exists(path)) {
      if (name.endsWith(".manifest")) ()
      else { val out = local.create(path); out.write(1); out.close() }
    }
    local.setTimes(path, now - ageMs, -1)
    local.getFileStatus(path)
  }

  test("superseded manifests and segments go only once their retention has passed") {
    val at = dir()
    val hour = 3600L * 1000
    val now = System.currentTimeMillis()
    // v1 named a and b; v2 (written 3 h ago) named b and c; v3 (written 30 min ago) names c and d
    IndexLayout.commitManifest(local, at, manifest(1, "segment-a.sbi", "segment-b.sbi"))
    IndexLayout.commitManifest(local, at, manifest(2, "segment-b.sbi", "segment-c.sbi"))
    IndexLayout.commitManifest(local, at, manifest(3, "segment-c.sbi", "segment-d.sbi"))
    val files = Seq(
      status(at, "v1.manifest", 5 * hour, now),
      status(at, "v2.manifest", 3 * hour, now),
      status(at, "v3.manifest", hour / 2, now),
      status(at, "segment-a.sbi", 5 * hour, now),
      status(at, "segment-b.sbi", 5 * hour, now),
      status(at, "segment-c.sbi", 3 * hour, now),
      status(at, "segment-d.sbi", hour / 2, now),
      // written by a writer that has not committed yet, and one that stopped long ago
      status(at, "segment-young.sbi", 60 * 1000, now),
      status(at, "segment-orphan.sbi", 2 * hour, now),
      status(at, s"${IndexLayout.PendingPrefix}old", 2 * hour, now),
      status(at, s"${IndexLayout.PendingPrefix}new", 1000, now))
    val listed = files.map(s => s.getPath.getName -> s).toMap
    // v4 names d and e: v3 is the index until now, v2 until 30 min ago, v1 until 3 h ago
    val removed = IndexRetention.removeExpired(local, at, listed, manifest(4, "segment-d.sbi", "segment-e.sbi"),
      retentionMs = hour, now = now)
    // v1 expired (superseded 3 h ago) and a, only v1 names it; b, c are named by v2 and v3, kept
    assert(removed.toSet == Set("v1.manifest", "segment-a.sbi", "segment-orphan.sbi",
      s"${IndexLayout.PendingPrefix}old"))
    assert(Seq("v2.manifest", "v3.manifest", "segment-b.sbi", "segment-c.sbi", "segment-young.sbi")
        .forall(n => local.exists(new Path(at, n))))
    // with no retention, everything but what the new version names and the young segment's age goes
    val rest = files.filter(s => local.exists(s.getPath)).map(s => s.getPath.getName -> local.getFileStatus(s.getPath))
    val all = IndexRetention.removeExpired(local, at, rest.toMap, manifest(4, "segment-d.sbi"), 0, now)
    assert(all.toSet == Set("v2.manifest", "v3.manifest", "segment-b.sbi", "segment-c.sbi", "segment-young.sbi",
      s"${IndexLayout.PendingPrefix}new"))
  }

  test("a kept manifest that cannot be read keeps every old segment") {
    val at = dir()
    val hour = 3600L * 1000
    val now = System.currentTimeMillis()
    IndexLayout.commitManifest(local, at, manifest(1, "segment-a.sbi"))
    Files.write(java.nio.file.Paths.get(new Path(at, "v1.manifest").toUri), Array[Byte](1, 2, 3))
    val files = Seq(status(at, "v1.manifest", 5 * hour, now), status(at, "segment-a.sbi", 5 * hour, now))
    val removed = IndexRetention.removeExpired(local, at, files.map(s => s.getPath.getName -> s).toMap,
      manifest(2, "segment-b.sbi"), hour, now)
    assert(removed.isEmpty && local.exists(new Path(at, "segment-a.sbi")))
  }

  test("background refreshes of one index coalesce: one running, one waiting that absorbs the rest") {
    val pool = Executors.newFixedThreadPool(2)
    try {
      val queue = new RefreshQueue(pool)
      val release = new CountDownLatch(1)
      val started = new CountDownLatch(1)
      val runs = new AtomicInteger()
      val otherRuns = new AtomicInteger()
      def refresh(): Unit = { runs.incrementAndGet(); started.countDown(); release.await(30, TimeUnit.SECONDS) }
      assert(!queue.request("t", () => refresh()))
      assert(started.await(30, TimeUnit.SECONDS))
      assert(!queue.request("t", () => refresh())) // waits behind the running one
      assert((1 to 4).forall(_ => queue.request("t", () => refresh()))) // absorbed by the waiting one
      assert(!queue.request("other", () => otherRuns.incrementAndGet())) // another index runs on its own
      release.countDown()
      val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30)
      while ((runs.get < 2 || otherRuns.get < 1) && System.nanoTime() < deadline) Thread.sleep(10)
      Thread.sleep(200)
      assert(runs.get == 2 && otherRuns.get == 1)
      // a failing refresh is logged, and the next request runs again
      assert(!queue.request("t", () => throw new java.io.IOException("store down")))
      val after = new CountDownLatch(1)
      while (queue.request("t", () => after.countDown())) Thread.sleep(10)
      assert(after.await(30, TimeUnit.SECONDS))
    } finally pool.shutdownNow()
  }
}
