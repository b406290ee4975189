// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.warnings

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean

import org.slf4j.{Logger, LoggerFactory}

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * The one registry of warnings sparkbloom logs once per runtime (application or executor): a filter or footer it cannot
 * use (the data is read instead), an index it ignores, a filter ceiling that binds. Each
 * key warns once; a query over a million broken files must not hold a million keys, so at
 * most 10,000 are remembered, and past that one last warning says the rest are quiet.
 */
private[sparkbloom] object WarnOnce extends PartKind[WarnOnce] {
  def make(runtime: BloomRuntime): WarnOnce = new WarnOnce(10000)

  /** Logs `message` to `log` unless this runtime logged `key` before; true when it logged. */
  def apply(log: Logger, key: String, message: => String): Boolean = BloomRuntime.get(WarnOnce)(log, key, message)
}

/** A registry of once-only warnings remembering at most `maxKeys` keys (one per runtime: [[WarnOnce]]). */
private[sparkbloom] class WarnOnce(val maxKeys: Int) extends RuntimePart {
  // what was said stays said: a cleared cache does not make a broken file news
  override def clear(): Unit = ()

  private val seen = ConcurrentHashMap.newKeySet[String]()
  private val full = new AtomicBoolean(false)
  private val quiet: Logger = LoggerFactory.getLogger(classOf[WarnOnce])

  def apply(log: Logger, key: String, message: => String): Boolean =
    if (seen.size < maxKeys) { val first = seen.add(key); if (first) log.warn(message); first }
    else {
      if (full.compareAndSet(false, true)) {
        quiet.warn(s"sparkbloom has logged $maxKeys distinct warnings; further ones are not logged")
      }
      false
    }
}
