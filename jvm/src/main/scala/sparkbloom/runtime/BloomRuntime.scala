// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.runtime

import java.util.concurrent.{ConcurrentHashMap, ExecutorService, LinkedBlockingQueue, ThreadFactory, ThreadPoolExecutor, TimeUnit}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.{SparkConf, SparkContext, SparkEnv}
import org.apache.spark.scheduler.{SparkListener, SparkListenerApplicationEnd}

/**
 * Everything sparkbloom keeps between queries (caches, loaded indexes, warnings logged,
 * threads), one per SparkContext on the driver and one per executor. Each part is bounded
 * and sized from the application's settings, read once ([[RuntimeSettings]]), so sessions
 * with other settings share it without resizing it under each other. The end of the
 * application closes it; a new SparkContext in the same JVM gets a new runtime.
 *
 * The parts live with the packages that use them ([[RuntimePart]]): this one knows only
 * their lifecycle, so every package may depend on it and it on none of them.
 */
private[sparkbloom] final class BloomRuntime(val settings: RuntimeSettings) {
  private val parts = new ConcurrentHashMap[PartKind[_], RuntimePart]()
  @volatile private var closed = false

  /** The part of this kind, made on first use. */
  def apply[P <: RuntimePart](kind: PartKind[P]): P =
    parts.computeIfAbsent(kind, _ => kind.make(this)).asInstanceOf[P]

  /** Threads that read footers, filters and index entries: one pool, `settings.parallelism` threads. */
  val probePool: ExecutorService = {
    val pool = new ThreadPoolExecutor(settings.parallelism, settings.parallelism, 30, TimeUnit.SECONDS,
      new LinkedBlockingQueue[Runnable](), BloomRuntime.daemons("sparkbloom-probe"))
    // idle threads end: a driver that stops querying holds none
    pool.allowCoreThreadTimeOut(true)
    pool
  }

  /** One thread for work no query waits for (refreshing an index after a write): one at a time. */
  val background: ExecutorService = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS,
    new LinkedBlockingQueue[Runnable](), BloomRuntime.daemons("sparkbloom-background", inheritLocals = false))

  def isClosed: Boolean = closed

  /** `CLEAR CACHE`: every part drops what it keeps. */
  def clear(): Unit = parts.values().forEach(_.clear())

  /** `REFRESH`: every part drops what it keeps of files under `pathPrefix` ("" for all). */
  def invalidate(pathPrefix: String): Unit = parts.values().forEach(_.invalidate(pathPrefix))

  /** The application ended: threads stop, parts let go of what they hold. */
  def close(): Unit = synchronized {
    if (!closed) {
      closed = true
      probePool.shutdownNow()
      background.shutdownNow()
      parts.values().forEach(_.close())
      parts.clear()
    }
  }
}

/** Something a [[BloomRuntime]] holds, told of Spark's cache commands. */
private[sparkbloom] trait RuntimePart {
  def clear(): Unit
  def invalidate(pathPrefix: String): Unit = clear()

  /** The application ended: let go of everything, resources included. */
  def close(): Unit = clear()
}

/** How a part is made; also the key the runtime keeps it under (compared by identity). */
private[sparkbloom] abstract class PartKind[P <: RuntimePart] {
  def make(runtime: BloomRuntime): P
}

private[sparkbloom] object BloomRuntime {

  /** The runtime and the SparkEnv it belongs to (none outside Spark: a command-line inspection). */
  @volatile private var current: (SparkEnv, BloomRuntime) = (null, null)

  /**
   * This JVM's runtime: the driver's or the executor's, whichever this JVM is (in local mode
   * both are one). A new SparkEnv (a new SparkContext, or a new executor) gets a new one, and
   * the one before it is closed.
   */
  def get: BloomRuntime = {
    val env = SparkEnv.get
    def live(c: (SparkEnv, BloomRuntime)) = Option(c._2).filter(runtime => (c._1 eq env) && !runtime.isClosed)
    live(current).getOrElse(synchronized {
      live(current).getOrElse {
        Option(current._2).foreach(_.close())
        val made = new BloomRuntime(RuntimeSettings.of(Option(env).fold(new SparkConf(false))(_.conf)))
        current = (env, made)
        made
      }
    })
  }

  /** The driver's runtime for `sc`, closed when its application ends. */
  def of(sc: SparkContext): BloomRuntime = {
    val runtime = get
    if (listening.putIfAbsent(runtime, java.lang.Boolean.TRUE) == null) {
      sc.addSparkListener(new SparkListener {
        override def onApplicationEnd(end: SparkListenerApplicationEnd): Unit = {
          runtime.close()
          listening.remove(runtime)
        }
      })
    }
    runtime
  }

  private val listening = new ConcurrentHashMap[BloomRuntime, java.lang.Boolean]()

  /**
   * @param inheritLocals whether a thread starts with the inheritable thread locals of the
   *                      thread that asked for it first: a background thread must not keep a
   *                      query's Spark local properties (its execution id, job group, pool)
   */
  private def daemons(prefix: String, inheritLocals: Boolean = true): ThreadFactory = new ThreadFactory {
    private val counter = new AtomicInteger()
    def newThread(r: Runnable): Thread = {
      val t = new Thread(null, r, s"$prefix-${counter.incrementAndGet()}", 0, inheritLocals)
      t.setDaemon(true)
      t
    }
  }
}
