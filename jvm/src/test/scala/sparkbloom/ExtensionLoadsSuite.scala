// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.scalatest.funsuite.AnyFunSuite

class ExtensionLoadsSuite extends AnyFunSuite with SparkSessionSuite {

  test("a session started with the extension runs queries") {
    assert(spark.conf.get("spark.sql.extensions") == SparkBloom.ExtensionClass)
    assert(spark.range(100).selectExpr("sum(id)").head().getLong(0) == 4950L)
  }

  test("the version is the build's") {
    assert(SparkBloom.version.matches("""\d+\.\d+\.\d+.*"""))
  }
}
