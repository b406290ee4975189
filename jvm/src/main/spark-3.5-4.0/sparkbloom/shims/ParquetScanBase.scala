// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.shims

import org.apache.spark.sql.execution.datasources.PartitioningAwareFileIndex
import org.apache.spark.sql.execution.datasources.v2.parquet.ParquetScan

/** `base` over another file index, with `ParquetScan`'s constructor before 4.1 (no variant extraction pushdown yet). */
private[sparkbloom] abstract class ParquetScanBase(base: ParquetScan, fileIndex: PartitioningAwareFileIndex)
    extends ParquetScan(
      base.sparkSession, base.hadoopConf, fileIndex, base.dataSchema, base.readDataSchema, base.readPartitionSchema,
      base.pushedFilters, base.options, base.pushedAggregate, base.partitionFilters, base.dataFilters)
