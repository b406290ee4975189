// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package org.apache.spark.sql.sparkbloom

import org.apache.spark.SparkConf
import org.apache.spark.internal.config.ConfigEntry
import org.apache.spark.sql.internal.SQLConf

/**
 * Spark's typed SQL config entries for sparkbloom's settings (declared in
 * `sparkbloom.settings.SparkBloomConf`). This one file lives in Spark's namespace because
 * `ConfigBuilder` is `private[spark]`, and an entry built through `SQLConf.buildConf` is what
 * `SET` validates a value against and what `SET -v` lists. Nothing else belongs here.
 */
object TypedSettings {

  /** One registered setting: its key, its default, and its value in a session's conf. */
  final class Setting[T] private[TypedSettings] (entry: ConfigEntry[T]) {
    def key: String = entry.key
    def default: T = entry.defaultValue.get
    def in(conf: SQLConf): T = conf.getConf(entry)

    /** The application's value, validated as `SET` validates a session's. */
    def in(conf: SparkConf): T = conf.get(entry)
  }

  private val Since = "sparkbloom 0.1.0"

  def boolean(key: String, doc: String, default: Boolean): Setting[Boolean] =
    new Setting(SQLConf.buildConf(key).doc(doc).version(Since).booleanConf.createWithDefault(default))

  def int(key: String, doc: String, default: Int, valid: Int => Boolean, rule: String): Setting[Int] =
    new Setting(SQLConf.buildConf(key).doc(doc).version(Since).intConf.checkValue(valid, rule)
        .createWithDefault(default))

  def long(key: String, doc: String, default: Long, valid: Long => Boolean, rule: String): Setting[Long] =
    new Setting(SQLConf.buildConf(key).doc(doc).version(Since).longConf.checkValue(valid, rule)
        .createWithDefault(default))

  /** A duration in milliseconds, written as Spark's time settings are ("90s", "1h"; a bare number: ms). */
  def millis(key: String, doc: String, default: String, valid: Long => Boolean, rule: String): Setting[Long] =
    new Setting(SQLConf.buildConf(key).doc(doc).version(Since).timeConf(java.util.concurrent.TimeUnit.MILLISECONDS)
        .checkValue(valid, rule).createWithDefaultString(default))

  def double(key: String, doc: String, default: Double, valid: Double => Boolean, rule: String): Setting[Double] =
    new Setting(SQLConf.buildConf(key).doc(doc).version(Since).doubleConf.checkValue(valid, rule)
        .createWithDefault(default))
}
