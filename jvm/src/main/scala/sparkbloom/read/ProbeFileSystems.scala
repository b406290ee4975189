// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.net.URI
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.hadoop.security.UserGroupInformation

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * The file systems that probes open S3A objects with: S3A clients of their own, configured
 * for reads of known ranges. The session's S3A instance is configured for Spark's reads, and
 * Hadoop 3.5's default input stream (the analytics accelerator) fetches every object under
 * 8 MB whole on its first read: a probe that needs a footer and one filter, a few KB, then
 * fetches the whole file (measured: 18.6 MB read for 1.0 MB needed, `bench/s3_lookup.py`).
 * These instances use S3A's classic stream for random reads with no read-ahead, so each read
 * of [[RangeReadStream]] is one GET of exactly its range. Every other setting is the scan's
 * own (credentials, endpoint, per-bucket options), and one instance serves each distinct
 * set of them. Other file systems are used as the scan's configuration gives them.
 */
private[sparkbloom] final class ProbeFileSystems extends RuntimePart {
  import ProbeFileSystems._

  private val instances = new ConcurrentHashMap[Key, FileSystem]()
  // per configuration object (compared by identity), its S3A settings: read once, not per file
  private val settingsOf =
    java.util.Collections.synchronizedMap(new java.util.WeakHashMap[Configuration, Map[String, String]]())

  def forProbing(path: Path, conf: Configuration): FileSystem = {
    val uri = path.toUri
    if (!Option(uri.getScheme).exists(_.equalsIgnoreCase("s3a"))) path.getFileSystem(conf)
    else {
      val settings = settingsOf.computeIfAbsent(conf, c => c.getPropsWithPrefix(S3APrefix).asScala.toMap)
      val key = Key(new URI(uri.getScheme, uri.getAuthority, "/", null, null),
        UserGroupInformation.getCurrentUser,
        settings)
      instances.computeIfAbsent(key, k => FileSystem.newInstance(k.root, forRangeReads(conf)))
    }
  }

  /** The clients stay across cache commands: they hold connections, not data. */
  override def clear(): Unit = ()

  override def close(): Unit = {
    instances.values().forEach(fs =>
      try fs.close()
      catch { case NonFatal(_) => () })
    instances.clear()
  }
}

private[sparkbloom] object ProbeFileSystems extends PartKind[ProbeFileSystems] {
  def make(runtime: BloomRuntime): ProbeFileSystems = new ProbeFileSystems

  private val S3APrefix = "fs.s3a."

  // the user as Hadoop's own cache of file systems tells users apart: by their credentials, not their name
  private final case class Key(root: URI, user: UserGroupInformation, s3aSettings: Map[String, String])

  /** `conf` with S3A reading each range asked, and only it. */
  private def forRangeReads(conf: Configuration): Configuration = {
    val tuned = new Configuration(conf)
    tuned.set("fs.s3a.input.stream.type", "classic") // Hadoop 3.5 on; earlier lines have no other
    tuned.set("fs.s3a.experimental.input.fadvise", "random")
    tuned.set("fs.s3a.readahead.range", "0")
    tuned.set("fs.s3a.bucket.probe", "0") // the scan's own instance has found the bucket
    tuned
  }

  def forProbing(path: Path, conf: Configuration): FileSystem = BloomRuntime.get(this).forProbing(path, conf)
}
