// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.warnings

import org.scalatest.funsuite.AnyFunSuite
import org.slf4j.LoggerFactory

class WarnOnceSuite extends AnyFunSuite {
  private val log = LoggerFactory.getLogger(getClass)

  test("each key warns once, and the registry stays bounded") {
    val registry = new WarnOnce(3)
    var built = 0
    def message(): String = { built += 1; "a warning from WarnOnceSuite (expected)" }
    assert(registry(log, "a", message()))
    assert(!registry(log, "a", message()))
    assert(built == 1, "a message is built only when it is logged")
    assert(registry(log, "b", message()) && registry(log, "c", message()))
    assert(!registry(log, "d", message()) && !registry(log, "d", message()), "past the bound nothing is logged")
    assert(!registry(log, "a", message()) && !registry(log, "c", message()), "nor forgotten")
  }
}
