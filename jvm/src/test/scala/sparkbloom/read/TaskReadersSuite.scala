// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import org.scalatest.funsuite.AnyFunSuite

class TaskReadersSuite extends AnyFunSuite {

  private def forFiles(judged: Boolean*) = TaskReaders.forFiles(judged.iterator)

  test("a scan builds only the readers its files need") {
    assert(forFiles(true, true) == TaskReaders(judged = true, unjudged = false))
    assert(forFiles(false, false) == TaskReaders(judged = false, unjudged = true))
    assert(forFiles(true, false, true) == TaskReaders.Both)
    assert(forFiles() == TaskReaders(judged = false, unjudged = true), "an empty scan still has a reader")
  }

  test("a file gets its own reader if built, else the one that was") {
    def pick(readers: TaskReaders, fileJudged: Boolean) = readers.pick(fileJudged, "judged", "unjudged")
    assert(pick(TaskReaders.Both, fileJudged = true) == "judged")
    assert(pick(TaskReaders.Both, fileJudged = false) == "unjudged")
    val judgedOnly = TaskReaders(judged = true, unjudged = false)
    assert(pick(judgedOnly, fileJudged = true) == "judged")
    assert(pick(judgedOnly, fileJudged = false) == "judged",
      "a listing that changed since: read, without in-task filters")
    val unjudgedOnly = TaskReaders(judged = false, unjudged = true)
    assert(pick(unjudgedOnly, fileJudged = true) == "unjudged", "read, its filters read a second time in the task")
    assert(pick(unjudgedOnly, fileJudged = false) == "unjudged")
  }

  test("the reader not built is never evaluated") {
    val readers = TaskReaders(judged = true, unjudged = false)
    assert(readers.pick(fileJudged = false, "judged", fail("the unjudged reader was asked for")) == "judged")
  }
}
