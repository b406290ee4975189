// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.util.concurrent.Executor

import scala.collection.mutable
import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import sparkbloom.runtime.{BloomRuntime, PartKind, RuntimePart}

/**
 * Background refreshes of table indexes, coalesced per index: at most one runs at a time for
 * an index in this JVM, and at most one waits behind it, absorbing every later request. A
 * refresh lists the table when it starts, so the waiting one covers the files of every write
 * it absorbed. Six appends in a row cost two refreshes, not six. A refresh that fails is
 * logged, never raised: the write that asked for it has committed, and files not yet covered
 * are judged by their own footers.
 */
private[sparkbloom] final class RefreshQueue(executor: Executor) extends RuntimePart {
  private val log = LoggerFactory.getLogger(classOf[RefreshQueue])

  /** Per index with a refresh running: the refresh waiting behind it, if any. */
  private val running = mutable.Map.empty[String, Option[() => Unit]]

  /** Asks for `refresh` of the index `key`; returns whether it was absorbed by one already waiting. */
  def request(key: String, refresh: () => Unit): Boolean = {
    val (start, absorbed) = synchronized {
      running.get(key) match {
        case None =>
          running(key) = None
          (true, false)
        case Some(waiting) =>
          running(key) = Some(refresh)
          (false, waiting.isDefined)
      }
    }
    if (start) submit(key, refresh)
    absorbed
  }

  private def submit(key: String, refresh: () => Unit): Unit =
    try executor.execute(() => run(key, refresh))
    catch {
      case e: java.util.concurrent.RejectedExecutionException => // the application is ending
        synchronized(running.remove(key))
        log.debug(s"sparkbloom does not refresh the index at $key: $e")
    }

  /**
   * Runs `refresh`, then hands the one waiting behind it, if any, back to the executor: behind
   * the other indexes' refreshes queued meanwhile, so a busy index never starves them.
   */
  private def run(key: String, refresh: () => Unit): Unit = {
    var next: Option[() => Unit] = None
    var ended = false
    try {
      try refresh()
      catch { case NonFatal(e) => log.warn(s"sparkbloom could not refresh the index at $key: $e") }
      ended = true
    } finally {
      // interrupted (the application ending): the index is let go, the next write asks again
      next = synchronized {
        val waiting = running.getOrElse(key, None).filter(_ => ended)
        if (waiting.isDefined) running(key) = None else running.remove(key)
        waiting
      }
    }
    next.foreach(submit(key, _))
  }

  /** Requests keep their course across cache commands. */
  override def clear(): Unit = ()
}

private[sparkbloom] object RefreshQueue extends PartKind[RefreshQueue] {
  def make(runtime: BloomRuntime): RefreshQueue = new RefreshQueue(runtime.background)
}
