// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

/** Spark 4.0: parquet-java 1.15, the rebase mode still a string setting. */
private[sparkbloom] object SparkShims
    extends Spark4Shim with ThriftFooterWithoutLimit with InputPartitionsAsSeq with RebaseModeAsString
    with ReaderSkipsShim with SumEvalModeShim
