// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.errors

/**
 * A request sparkbloom refuses (a bad option, a column that cannot carry a filter).
 * An IllegalArgumentException, so PySpark raises it as its IllegalArgumentException.
 */
class SparkBloomException(message: String) extends IllegalArgumentException(s"[sparkbloom] $message")
