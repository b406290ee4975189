// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

/**
 * What to skip: where a plan asks for point lookups or a join's keys, and the one judgement
 * that turns a scan's listing into the files and row groups its tasks read.
 *
 * Every kind of table is judged through one seam, [[ScanSource]]: plain Parquet files here
 * ([[ParquetFilesSource]]), each table format in its own package, all found by [[ScanSources]].
 *
 * A lookup on plain Parquet, class by class:
 * {{{
 *  optimizer  PruneFilesByBloomFilters    =, IN, <=> on literals: each ScanSource judges its scans
 *               |   ParquetFilesSource gives a V1 relation or V2 ParquetScan a PruningListing (V1:
 *               |   BloomPruningFileIndex; V2: BloomParquetScan over a BloomPartitioningAwareFileIndex)
 *               |   and the size it keeps
 *               v
 *  judgement  ListingPruner               one per scan; remembers its last listing
 *               |   1. index.TableIndex      the table's index, where one covers a file
 *               |   2. read.FilePruner       footers and filters (read.ExecutorProbing above
 *               |                            pruning.executorProbingAbove files), per row group
 *               |   -> read.FileVerdict per file -> kept files, each with its RowGroupSelection
 *               v
 *  planning   ScanPruningRule             each ScanSource's physical scans; V1: the judged index,
 *                                         BloomReadParquetFileFormat and BloomPruningExec (EXPLAIN,
 *                                         metrics, files read if changed)
 *             JoinKeysStrategy            a join's keys: subqueries above the scan, whose keys
 *                                         reach the same ListingPruner when the plan runs
 *               v
 *  tasks      read.BloomReadParquetFileFormat, BloomParquetScan.ReaderFactory: the selected row
 *             groups, and in large ones only the rows whose key may match (rows.MatchingRowsReader)
 * }}}
 */
package object catalyst
