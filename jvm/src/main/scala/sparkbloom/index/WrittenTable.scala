// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import org.apache.spark.sql.SparkSession

/**
 * A table a committed write changed, as its plan or its format names it, without I/O.
 *
 * @param key     what refreshes of the same index are coalesced by (its root, or the table's name)
 * @param indexed the table as its index covers it, if it has an index; may do I/O, and runs
 *                in the background after the write
 */
private[sparkbloom] final case class WrittenTable(key: String, indexed: SparkSession => Option[IndexedTable])
