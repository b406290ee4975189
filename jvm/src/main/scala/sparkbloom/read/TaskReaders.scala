// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

/**
 * Which of a scan's two Parquet readers its tasks need: one keeps parquet-java's in-task
 * Bloom-filter pass (files the driver did not judge), the other leaves it out (judged files,
 * whose filters were read already). Each reader costs a clone and a broadcast of the Hadoop
 * configuration per scan executed, a good part of a point lookup, so a scan builds only those
 * its files use. Reading a file with the other reader is never wrong, only slower or faster:
 * the in-task pass only skips row groups in which nothing can match, so every matching row is
 * read whichever reader a file gets. That is why a guess from the last listing is enough.
 */
private[sparkbloom] final case class TaskReaders(judged: Boolean, unjudged: Boolean) {

  /** The reader for one file, among those built: its own if built, else the other one. */
  def pick[R](fileJudged: Boolean, judgedReader: => R, unjudgedReader: => R): R =
    if (fileJudged && judged || !unjudged) judgedReader else unjudgedReader
}

private[sparkbloom] object TaskReaders {

  /** When the files are not known: both readers. */
  val Both: TaskReaders = TaskReaders(judged = true, unjudged = true)

  /** The readers these files need (by whether each was judged); an empty scan builds the in-task one only. */
  def forFiles(judged: Iterator[Boolean]): TaskReaders = {
    var anyJudged, anyUnjudged = false
    while (judged.hasNext && !(anyJudged && anyUnjudged)) if (judged.next()) anyJudged = true else anyUnjudged = true
    if (!anyJudged) TaskReaders(judged = false, unjudged = true) else TaskReaders(judged = true, unjudged = anyUnjudged)
  }
}
