// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/** A local SparkSession with the extension, shared by every test of one suite. */
trait SparkSessionSuite extends BeforeAndAfterAll { self: Suite =>

  @transient private var sessionOrNull: SparkSession = _

  protected def spark: SparkSession = sessionOrNull

  protected def sessionConf: Map[String, String] = Map.empty

  /** Runs `body` with these session settings, then unsets them. */
  protected def withConf[T](settings: (String, String)*)(body: => T): T = {
    settings.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally settings.foreach { case (k, _) => spark.conf.unset(k) }
  }

  override protected def beforeAll(): Unit = {
    super.beforeAll()
    val builder = SparkSession.builder()
      .master("local[2]")
      .appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "4")
      .config("spark.sql.extensions", SparkBloom.ExtensionClass)
      // a fresh warehouse per suite: tables never collide with an earlier run's
      .config("spark.sql.warehouse.dir", java.nio.file.Files.createTempDirectory("sparkbloom-warehouse").toString)
    sessionConf.foreach { case (k, v) => builder.config(k, v) }
    sessionOrNull = builder.getOrCreate()
  }

  override protected def afterAll(): Unit = {
    try if (sessionOrNull != null) sessionOrNull.stop()
    finally super.afterAll()
  }
}
