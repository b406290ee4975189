// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.write.{BloomColumn, BloomWriteOptions, BloomWriteSpec}

/** Iceberg's filter properties from settings and back, and across a rename. */
class IcebergFilterKeysSuite extends AnyFunSuite {
  import IcebergFilterKeys._

  private val schema = StructType(Seq(StructField("id", LongType), StructField("k", StringType),
      StructField("s", StructType(Seq(StructField("u", StringType), StructField("a.b", StringType))))))

  private val spec = BloomWriteSpec(
    Seq(BloomColumn(Seq("k"), 0.001, None), BloomColumn(Seq("s", "u"), 0.01, None),
      BloomColumn(Seq("s", "a.b"), 0.01, None)),
    maxBytes = Some(65536), exactSize = false)

  test("settings become Iceberg's keys by each column's full name, adaptive only without an NDV") {
    val keys = of(spec, adaptive = true, perColumnDictionary = true)
    assert(keys(EnabledPrefix + "k") == "true" && keys(FppPrefix + "k") == "0.001")
    assert(keys(EnabledPrefix + "s.u") == "true" && keys(DictionaryPrefix + "s.u") == "false")
    assert(keys(MaxBytes) == "65536" && keys(Adaptive) == "true")
    assert(keys.keys.forall(isFilterKey))
    val hinted = spec.copy(columns = spec.columns.map(_.copy(ndvHint = Some(1000L))))
    val sized = of(hinted, adaptive = true, perColumnDictionary = false)
    assert(!sized.contains(Adaptive) && sized(NdvPrefix + "k") == "1000")
    assert(!sized.keys.exists(_.startsWith(DictionaryPrefix)))
  }

  test("the keys stand for the settings they came from, columns the schema lost left out") {
    val keys = of(spec, adaptive = false, perColumnDictionary = false) + (EnabledPrefix + "gone" -> "true")
    val settings = settingsOf(keys, schema)
    assert(settings(BloomWriteOptions.Columns).split(",").toSet == Set("`k`", "`s`.`u`", "`s`.`a.b`"))
    assert(settings(s"${BloomWriteOptions.Fpp}.`k`") == "0.001")
    assert(settings(BloomWriteOptions.MaxBytes) == "65536")
    val again = BloomWriteOptions.resolve(settings, schema, Nil, new org.apache.spark.sql.internal.SQLConf,
      "TIMESTAMP_MICROS")
    assert(again.map(_.columns.map(c => c.path -> c.fpp).toSet).contains(spec.columns.map(c => c.path -> c.fpp).toSet))
    assert(settingsOf(Map(EnabledPrefix + "k" -> "false"), schema).isEmpty)
  }

  test("a rename moves the keys of the column and of the fields under it, and no other") {
    val keys = of(spec, adaptive = false, perColumnDictionary = false) + (FppPrefix + "sx" -> "0.5")
    val moved = renamed(keys, "s", "t")
    assert(moved.keySet == Set(EnabledPrefix + "t.u", FppPrefix + "t.u", EnabledPrefix + "t.a.b", FppPrefix + "t.a.b"))
    assert(columnKeys(keys, "s").toSet == Set(EnabledPrefix + "s.u", FppPrefix + "s.u", EnabledPrefix + "s.a.b",
      FppPrefix + "s.a.b"))
    assert(renamed(keys, "k", "key") == Map(EnabledPrefix + "key" -> "true", FppPrefix + "key" -> "0.001"))
  }
}
