// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import org.apache.spark.sql.SparkSessionExtensions

import sparkbloom.catalyst.{BloomCacheInvalidation, ClearCacheStrategy, BloomWriteRule, JoinKeysStrategy, JudgedScanStrategy, PruneFilesByBloomFilters, ScanPruningRule, ScanSources, WatchWrites}
import sparkbloom.commands.TableFunctions
import sparkbloom.settings.SparkBloomConf

/**
 * Entry point for `spark.sql.extensions=sparkbloom.SparkBloomExtensions`.
 *
 * Every rule sparkbloom adds to a session is registered here, so that loading the jar
 * alone changes nothing and naming this class is the single switch.
 */
class SparkBloomExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    SparkBloomConf.register()
    extensions.injectPostHocResolutionRule(BloomWriteRule)
    ScanSources.all.flatMap(_.resolutionRules).foreach(extensions.injectPostHocResolutionRule)
    extensions.injectPostHocResolutionRule(BloomCacheInvalidation)
    extensions.injectPostHocResolutionRule(WatchWrites.apply)
    extensions.injectPreCBORule(PruneFilesByBloomFilters.registration)
    extensions.injectPlannerStrategy(_ => ClearCacheStrategy)
    extensions.injectPlannerStrategy(JoinKeysStrategy(_))
    extensions.injectPlannerStrategy(JudgedScanStrategy(_))
    extensions.injectColumnar(ScanPruningRule.columnar)
    extensions.injectQueryStagePrepRule(ScanPruningRule(_))
    TableFunctions.all.foreach(extensions.injectTableFunction)
  }
}
