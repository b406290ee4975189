// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.errors.SparkBloomException
import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * The table of write options' rules (python/sparkbloom/write_options.json) agrees with what
 * the JVM writes. That Python and the JVM read it alike is tests/test_write_option_rules.py's.
 */
class WriteOptionRulesSuite extends AnyFunSuite {
  import BloomWriteOptions._

  private def check(key: String, text: String): Any = WriteOptionRules.check(key, text)

  private def refused(key: String, text: String): String =
    intercept[SparkBloomException](check(key, text)).getMessage

  test("the table names the options the JVM knows, with the bounds of what it writes") {
    assert(WriteOptionRules.columnsKey == Columns)
    assert(WriteOptionRules.writeKeys == Seq(Fpp, MaxBytes, ExactSize))
    assert(WriteOptionRules.columnKeys == Seq(Fpp, Ndv))
    val bytes = s"between ${SplitBlockBloomFilter.MinBytes} and ${SplitBlockBloomFilter.MaxBytes}"
    assert(refused(MaxBytes, "0").contains(bytes))
    assert(check(MaxBytes, SplitBlockBloomFilter.MinBytes.toString) == SplitBlockBloomFilter.MinBytes)
    assert(check(MaxBytes, SplitBlockBloomFilter.MaxBytes.toString) == SplitBlockBloomFilter.MaxBytes)
    refused(MaxBytes, (SplitBlockBloomFilter.MinBytes - 1).toString)
    refused(MaxBytes, (SplitBlockBloomFilter.MaxBytes + 1).toString)
    // an ndv is a Long: its largest is the table's, one more is refused, not wrapped
    assert(check(s"$Ndv.x", Long.MaxValue.toString) == Long.MaxValue)
    assert(refused(s"$Ndv.x", "9223372036854775808") ==
      s"[sparkbloom] option '$Ndv.x' must be a positive whole number of distinct values per row group " +
      s"(at most ${Long.MaxValue}), got '9223372036854775808'")
  }

  test("values are decimal text, trimmed as String.trim does, within bounds") {
    assert(check(Fpp, " 0.01\t") == 0.01)
    assert(check("BLOOM_FILTER_FPP.Col", "1e-3") == 0.001)
    assert(check(Fpp, ".5") == 0.5 && check(Fpp, "+5e-1") == 0.5)
    // what Java's parser takes and Python's does not (or the other way round) is no number
    for (text <- Seq("0.5d", "0.5f", "0x1p-2", "NaN", "Infinity", "0.000_1", "\u0660.\u0665", "\u00a00.5", "", "-0"))
      assert(refused(Fpp, text).contains("strictly between 0 and 1"), text)
    assert(check(s"$Ndv.c", "+007") == 7L)
    assert(check(ExactSize, "\u0001TRUE ") == true && check(ExactSize, "False") == false)
    assert(refused(ExactSize,
      "fal\u017fe") == s"[sparkbloom] option '$ExactSize' must be true or false, got 'fal\u017fe'")
    assert(refused(s"$MaxBytes.c", "64") == s"[sparkbloom] unknown option '$MaxBytes.c'")
  }
}
