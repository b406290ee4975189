// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.runtime

import org.apache.spark.SparkConf

import sparkbloom.settings.SparkBloomConf

/**
 * The sizes of a [[BloomRuntime]]'s parts, read once from the application's settings (the
 * SparkConf its SparkContext or executor started with): a session's `SET` cannot resize what
 * every session shares.
 */
private[sparkbloom] final case class RuntimeSettings(cacheMaxBytes: Long, parallelism: Int, maxLoadedIndexes: Int)

private[sparkbloom] object RuntimeSettings {
  def of(conf: SparkConf): RuntimeSettings = RuntimeSettings(
    cacheMaxBytes = SparkBloomConf.CacheMaxBytes.in(conf),
    parallelism = SparkBloomConf.Parallelism.in(conf),
    maxLoadedIndexes = SparkBloomConf.IndexMaxLoaded.in(conf))
}
