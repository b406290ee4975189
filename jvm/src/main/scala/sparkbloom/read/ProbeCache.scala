// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.util.{LinkedHashMap => JLinkedHashMap}

import scala.jdk.CollectionConverters._

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * Footers and filters read on the driver (or a probing executor), shared by the application's
 * queries: a [[BloomRuntime]] part, bounded in bytes and evicted least-recently-used first.
 *
 * A file rewritten in place must never be judged by what the older file held. Keys carry
 * the file's length, modification time, etag and (local files) change time. A table format's
 * data file is cached at once: the format never writes its path twice. A file with an
 * etag is cached at once: its etag changes with its content, and no clock is asked. A file
 * without one is cached only if its identity is [[FileIdentity.pinned]] (an object store's
 * whole-second time without an etag never is) and it was modified at least
 * [[FileIdentity.SettleMillis]] ago by the driver's clock, because a rewrite within the same
 * tick would keep the first three; and Spark's own SQL invalidations (`REFRESH TABLE`, `REFRESH path`,
 * `CLEAR CACHE`; the Catalog API calls have no hook) drop the entries of their paths. What
 * remains: a rewrite that keeps length and an old modification time (copied with its times
 * preserved) on a file system with neither etags nor change times (HDFS) is seen only after
 * one of those invalidations.
 */
private[sparkbloom] final class ProbeCache(val capacity: Long) extends RuntimePart {
  import ProbeCache._

  private var usedBytes = 0L

  /** Counts invalidations, so that a load that overlapped one is not kept. */
  private var generation = 0L
  private val entries = new JLinkedHashMap[Key, Entry](1024, 0.75f, true)

  /** Drops every entry of files under `pathPrefix` (a qualified path or URI prefix). */
  override def invalidate(pathPrefix: String): Unit = synchronized {
    generation += 1
    entries.entrySet().removeIf { entry =>
      val dropped = entry.getKey.file.path.startsWith(pathPrefix)
      if (dropped) usedBytes -= entry.getValue.bytes
      dropped
    }
  }

  def footer(file: FileKey)(load: => FooterSummary): FooterSummary =
    getOrLoad(FooterKey(file), FooterEntry(load)).asInstanceOf[FooterEntry].footer

  def filter(file: FileKey, rowGroup: Int, column: String)(load: => FilterLookup): FilterLookup =
    getOrLoad(FilterKey(file, rowGroup, column), FilterEntry(load)).asInstanceOf[FilterEntry].lookup

  def sizeInBytes: Long = synchronized(usedBytes)

  override def clear(): Unit = synchronized { entries.clear(); usedBytes = 0; generation += 1 }

  /** Invalidations so far (`REFRESH`, `CLEAR CACHE`): what an executor's cache follows. */
  def invalidations: Long = synchronized(generation)

  /** The driver's invalidation count this cache last followed ([[followDriver]]). */
  private var followed = 0L

  /**
   * An executor's cache ([[ExecutorProbing]]) after the driver's: the SQL invalidations reach
   * only the driver's cache, so an executor's drops everything once the driver's count has
   * moved since it last looked (invalidations are rare).
   */
  def followDriver(driverInvalidations: Long): Unit = synchronized {
    if (followed != driverInvalidations) {
      clear()
      followed = driverInvalidations
    }
  }

  private val sessionIds = java.util.Collections.synchronizedMap(new java.util.WeakHashMap[AnyRef, String]())

  /**
   * The cache scope of a reader: "" when it cannot decrypt anything (no crypto factory),
   * so its entries hold only what any reader sees. With a crypto factory, entries may hold
   * decrypted statistics and filters: they belong to that session and its key settings
   * alone, so a session (or `newSession()`) without the keys reads the file and fails
   * exactly as vanilla Spark does.
   */
  def scopeOf(session: AnyRef, hadoopConf: org.apache.hadoop.conf.Configuration): String =
    if (!decrypts(hadoopConf)) ""
    else {
      val id = sessionIds.computeIfAbsent(session, _ => java.util.UUID.randomUUID().toString)
      val cryptoSettings = hadoopConf.iterator().asScala.map(e => e.getKey -> e.getValue)
        .filter(e => Seq("parquet.crypto.", "parquet.encryption.", "parquet.decryption.").exists(e._1.startsWith))
        .toSeq.sorted.mkString("\n")
      val digest = java.security.MessageDigest.getInstance("SHA-256")
        .digest(cryptoSettings.getBytes(java.nio.charset.StandardCharsets.UTF_8))
      id + ":" + digest.map(b => f"$b%02x").mkString
    }

  private def getOrLoad(key: Key, load: => Entry): Entry = {
    if (!settled(key.file)) return load
    val (cached, loadedIn) = synchronized((entries.get(key), generation))
    if (cached != null) return cached
    // Loaded outside the lock: a slow read must not stall other queries. Two threads may
    // load the same entry; both results are equal, the second simply replaces the first.
    val loaded = load
    synchronized {
      // An invalidation while this was read may concern it: use it, do not keep it.
      if (generation == loadedIn) {
        val previous = entries.put(key, loaded)
        if (previous != null) usedBytes -= previous.bytes
        usedBytes += loaded.bytes
        evict()
      }
    }
    loaded
  }

  private def evict(): Unit = {
    val it = entries.values().iterator()
    while (usedBytes > capacity && it.hasNext) {
      usedBytes -= it.next().bytes
      it.remove()
    }
  }
}

private[sparkbloom] object ProbeCache extends PartKind[ProbeCache] {

  def make(runtime: BloomRuntime): ProbeCache = new ProbeCache(runtime.settings.cacheMaxBytes)

  def shared: ProbeCache = BloomRuntime.get(ProbeCache)

  /**
   * What may be cached: a table format's data file, whose path is never written twice; a file
   * whose etag vouches for content; else only a settled, pinned identity.
   */
  private def settled(file: FileKey): Boolean = {
    val identity = FileIdentity(file.length, file.modificationTime, file.etag, file.changeTime)
    file.immutable || identity.etag.nonEmpty ||
    (identity.pinned && file.modificationTime <= System.currentTimeMillis() - FileIdentity.SettleMillis)
  }

  private sealed trait Key { def file: FileKey }
  private final case class FooterKey(file: FileKey) extends Key
  private final case class FilterKey(file: FileKey, rowGroup: Int, column: String) extends Key

  def decrypts(hadoopConf: org.apache.hadoop.conf.Configuration): Boolean =
    hadoopConf.get("parquet.crypto.factory.class") != null

  private sealed trait Entry { def bytes: Long }
  private final case class FooterEntry(footer: FooterSummary) extends Entry { val bytes: Long = footer.estimatedBytes }
  private final case class FilterEntry(lookup: FilterLookup) extends Entry { val bytes: Long = lookup.bytes + 96 }

  /** A cache, and the scope (see [[scopeOf]]) whose entries a reader may use. */
  final case class Scoped(cache: ProbeCache, scope: String)
}
