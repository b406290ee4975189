// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

/** Spark 4.1: parquet-java 1.16, so footers still parse without a configurable limit. */
private[sparkbloom] object SparkShims
    extends Spark4Shim with ThriftFooterWithoutLimit with InputPartitionsAsSeq with RebaseModeAsEnum
    with ReaderSkipsShim with SumEvalModeShim
