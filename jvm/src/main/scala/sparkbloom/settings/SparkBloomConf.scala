// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.settings

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sparkbloom.TypedSettings
import org.apache.spark.sql.sparkbloom.TypedSettings.Setting

import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * Every `spark.sparkbloom.*` session setting: a typed Spark SQL config entry with a doc and a
 * default, so `SET` refuses a bad value at once (instead of every later query failing while
 * it plans) and `SET -v` lists them. All are read at the moment they matter (planning a
 * scan, starting a write), so `spark.conf.set` takes effect at once.
 */
object SparkBloomConf {
  val Prefix = "spark.sparkbloom."

  /**
   * Default fpp for written filters when the write names none. 0.0001, not the 0.01 of
   * parquet-java and DuckDB: a lookup of k values over R row groups reads about
   * k x fpp x R row groups by mistake. Over 1,000 row groups an absent key then
   * schedules a task one time in ten (0.001: most times, 0.01: always), and `IN (100)`
   * reads ~10 extra row groups instead of ~100 (measured in bench/README.md). It costs
   * 26.4 instead of 16.9 (0.001) or 10.5 (0.01) bits per distinct value.
   */
  val WriteFpp: Setting[Double] = TypedSettings.double("spark.sparkbloom.write.fpp",
    "False-positive probability of written Bloom filters when the write names none " +
      "(option bloom_filter_fpp).", 0.0001, p => p > 0 && p < 1, "It must be strictly between 0 and 1.")

  /** 0, the default, follows the row group: see [[sparkbloom.sbbf.FilterSizing.rowGroupCeiling]]. */
  val WriteMaxBytes: Setting[Long] = TypedSettings.long("spark.sparkbloom.write.maxBytes",
    "Largest Bloom filter of one column chunk, in bytes, when the write names none " +
      "(option bloom_filter_max_bytes). 0: 1/16 of the row group size (parquet.block.size), at least 1 MiB.", 0L,
    b => b == 0 || (b >= SplitBlockBloomFilter.MinBytes && b <= SplitBlockBloomFilter.MaxBytes),
    s"It must be 0 or between ${SplitBlockBloomFilter.MinBytes} and ${SplitBlockBloomFilter.MaxBytes}.")

  /**
   * Exact sizes save up to half of each filter, but Arrow C++, Velox and ClickHouse up to 25.8
   * (which reads filters through Arrow C++) refuse bitsets whose length is not a power of two.
   */
  val WriteExactSize: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.write.exactSize",
    "Whether written filters take the smallest whole number of 32-byte blocks that meets the fpp " +
      "instead of a power of two of blocks. Some readers (Arrow C++, ClickHouse) ignore such filters.", false)

  val Enabled: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.enabled",
    "Whether Parquet scans are pruned with Bloom filters (the master switch).", true)

  val PruneFiles: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.pruning.files",
    "Whether files whose filters rule out every row group are skipped on the driver.", true)

  val PruneRowGroups: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.pruning.rowGroups",
    "Whether row groups ruled out by their filters are skipped inside the files that are read.", true)

  val PruneRows: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.pruning.rows",
    "Whether tasks read the key column of a large kept row group first and decode the other columns only " +
      "for the rows whose key may match (Spark's vectorized reader, files with offset indexes).", true)

  /**
   * Reading the key column first costs a second read of it; it pays when skipping the other
   * columns' pages saves more. Measured (bench/README.md, "Rows, not row groups"): row groups of
   * 2.4 MB, one page per column, ran 0.9-1.1x; 16 MB ran 1.0-1.2x; Spark's default 128 MB ran
   * 1.7-2.7x faster.
   */
  val PruneRowsAbove: Setting[Long] = TypedSettings.long("spark.sparkbloom.pruning.rowsAbove",
    "Rows are narrowed (spark.sparkbloom.pruning.rows) only in row groups whose requested columns hold at " +
      "least this many uncompressed bytes.", 32L * 1024 * 1024, _ >= 0, "It must be 0 or more.")

  /** Read once per application ([[sparkbloom.runtime.RuntimeSettings]]); a session's 0 keeps its scans out. */
  val CacheMaxBytes: Setting[Long] = TypedSettings.long("spark.sparkbloom.cache.maxBytes",
    "Bytes of footers and filters the driver keeps across queries, read once when the application starts; " +
      "a session that sets 0 neither reads nor fills the cache.", 256L * 1024 * 1024,
    _ >= 0, "It must be 0 or more.")

  /** Read once per application ([[sparkbloom.runtime.RuntimeSettings]]). */
  val Parallelism: Setting[Int] = TypedSettings.int("spark.sparkbloom.pruning.parallelism",
    "Threads reading footers and filters on the driver (and on each executor that probes), read once when " +
      "the application starts.", 64, _ >= 1, "It must be 1 or more.")

  /** Read once per application ([[sparkbloom.runtime.RuntimeSettings]]). */
  val IndexMaxLoaded: Setting[Int] = TypedSettings.int("spark.sparkbloom.index.maxLoaded",
    "Most table indexes the driver keeps loaded, least recently used dropped first; read once when the " +
      "application starts.", 64, _ >= 1, "It must be 1 or more.")

  val JoinEnabled: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.join.enabled",
    "Whether keys from the other side of a join (or an IN/EXISTS subquery) prune the Parquet side " +
      "at run time, before its tasks start.", true)

  /**
   * Each key costs a statistics check and a filter probe per row group, and keys spread over
   * a table leave ever fewer row groups without one: over 1,000 row groups, 1,000 keys took
   * 0.1 s to probe and skipped 42% of row groups (1.2x faster), ~9,000 took 0.7 s and skipped
   * 11% (0.8x, slower than not probing). Keys clustered in a few files pay at any count: raise
   * it for those (bench/README.md, "Joins").
   */
  val JoinMaxKeys: Setting[Int] = TypedSettings.int("spark.sparkbloom.join.maxKeys",
    "Most distinct keys of a join's other side that are probed; with more, the scan is left alone.",
    2000, _ >= 0, "It must be 0 or more.")

  val IndexEnabled: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.index.enabled",
    "Whether scans consult a table's Bloom index (sparkbloom_build_index) before any footer.", true)

  /**
   * A lookup needs the files of the manifest it listed for seconds; a refresh needs the segment
   * it wrote until it commits, seconds after writing it (one held for half the retention is
   * not named: its files are indexed again). An hour leaves room for slow stores and paused
   * JVMs, and keeps at most an hour of superseded segments beside the index. Below a second,
   * the clocks of writers and store would decide.
   */
  val IndexRetention: Setting[Long] = TypedSettings.millis("spark.sparkbloom.index.retention",
    "How long a table index keeps a superseded manifest, and the segments only superseded manifests name, " +
      "before a later commit removes them: readers and writers that started before the change may still use them.",
    "1h", _ >= 1000, "It must be at least 1s.")

  /** Each retry re-reads the newest manifest (one LIST, one GET) and indexes only what it lacks. */
  val IndexCommitAttempts: Setting[Int] = TypedSettings.int("spark.sparkbloom.index.commitAttempts",
    "How many times a build or refresh of a table index tries to commit its version when concurrent writers " +
      "take it first, re-reading the newest version between tries.", 20, _ >= 1, "It must be 1 or more.")

  /** See bench/README.md ("Table index") for how the default was measured. */
  val ExecutorProbingAbove: Setting[Int] = TypedSettings.int("spark.sparkbloom.pruning.executorProbingAbove",
    "Above this many files left to judge by their footers, footers and filters are read by a Spark job " +
      "on the executors instead of the driver; 0 never.", 20000, _ >= 0, "It must be 0 or more.")

  /** See [[sparkbloom.read.FilterChecks]] and docs/compatibility.md for what is checked and its cost. */
  val CheckFilters: Setting[Boolean] = TypedSettings.boolean("spark.sparkbloom.pruning.checkFilters",
    "Whether each file's filter is checked before it decides (its writer's release against the releases known " +
      "to write wrong filters, an empty bitset, and the first chunks of each writer against their dictionaries). " +
      "Turn off only for files from writers you trust.", true)

  /** Registers every entry with Spark (the extension calls it before any session is built). */
  private[sparkbloom] def register(): Unit = ()

  def executorProbingAbove(conf: SQLConf): Int = ExecutorProbingAbove.in(conf)
  def indexEnabled(conf: SQLConf): Boolean = IndexEnabled.in(conf)
  def indexRetentionMs(conf: SQLConf): Long = IndexRetention.in(conf)
  def indexCommitAttempts(conf: SQLConf): Int = IndexCommitAttempts.in(conf)
  def joinEnabled(conf: SQLConf): Boolean = JoinEnabled.in(conf)
  def joinMaxKeys(conf: SQLConf): Int = JoinMaxKeys.in(conf)
  def enabled(conf: SQLConf): Boolean = Enabled.in(conf)
  def pruneFiles(conf: SQLConf): Boolean = PruneFiles.in(conf)
  def checkFilters(conf: SQLConf): Boolean = CheckFilters.in(conf)
  def pruneRowGroups(conf: SQLConf): Boolean = PruneRowGroups.in(conf)

  /** The smallest row group in which rows are narrowed; None when they never are. */
  def pruneRowsAbove(conf: SQLConf): Option[Long] = Some(PruneRowsAbove.in(conf)).filter(_ => PruneRows.in(conf))

  /** Whether a session's scans use the driver's cache of footers and filters. */
  def usesCache(conf: SQLConf): Boolean = CacheMaxBytes.in(conf) > 0

  def writeFpp(conf: SQLConf): Double = WriteFpp.in(conf)

  /** The session's filter ceiling; None when it follows the row group. */
  def writeMaxBytes(conf: SQLConf): Option[Int] = Some(WriteMaxBytes.in(conf).toInt).filter(_ > 0)

  def writeExactSize(conf: SQLConf): Boolean = WriteExactSize.in(conf)
}
