package sparkbloom

import org.apache.spark.sql.internal.SQLConf

/**
 * Every `spark.sparkbloom.*` session setting, with its default. All are read at the moment
 * they matter (planning a scan, starting a write), so `spark.conf.set` takes effect at once.
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
  val WriteFpp = "spark.sparkbloom.write.fpp"
  val DefaultWriteFpp: Double = 0.0001

  /** Default ceiling of one column chunk's filter, in bytes. */
  val WriteMaxBytes = "spark.sparkbloom.write.maxBytes"
  val DefaultWriteMaxBytes: Int = 1024 * 1024

  /**
   * Whether written filters take the smallest whole number of blocks that meets the fpp
   * (`true`) instead of the smallest power of two of blocks (`false`, the default). Exact
   * sizes save up to half of each filter, but Arrow C++, Velox and ClickHouse up to 25.8
   * (which reads filters through Arrow C++) refuse bitsets whose length is not a power of two.
   */
  val WriteExactSize = "spark.sparkbloom.write.exactSize"
  val DefaultWriteExactSize: Boolean = false

  /** Master switch for pruning. */
  val Enabled = "spark.sparkbloom.enabled"

  /** Skip whole files on the driver. */
  val PruneFiles = "spark.sparkbloom.pruning.files"

  /** Skip row groups inside the files that are read. */
  val PruneRowGroups = "spark.sparkbloom.pruning.rowGroups"

  /** Bytes of footers and filters the driver keeps across queries. */
  val CacheMaxBytes = "spark.sparkbloom.cache.maxBytes"
  val DefaultCacheMaxBytes: Long = 256L * 1024 * 1024

  /** Threads reading footers and filters on the driver. */
  val Parallelism = "spark.sparkbloom.pruning.parallelism"
  val DefaultParallelism: Int = 16

  /**
   * Whether keys that come from the other side of a join (or an `IN`/`EXISTS` subquery)
   * prune the Parquet side at run time, once they are known and before its tasks start.
   */
  val JoinEnabled = "spark.sparkbloom.join.enabled"

  /**
   * Most distinct keys of a join's other side that are probed; with more, the scan is left
   * alone. Each key costs a statistics check and a filter probe per row group, and keys
   * spread over a table leave ever fewer row groups without one: over 1,000 row groups,
   * 1,000 keys took 0.1 s to probe and skipped 42% of row groups (1.2x faster), ~9,000 took
   * 0.7 s and skipped 11% (0.8x, slower than not probing). Keys clustered in a few files pay
   * at any count: raise it for those (bench/README.md, "Joins").
   */
  val JoinMaxKeys = "spark.sparkbloom.join.maxKeys"
  val DefaultJoinMaxKeys: Int = 2000

  /**
   * Whether scans consult a table's index (`sparkbloom.build_index`) before any footer.
   * Off, indexed tables are judged by their files' own filters alone.
   */
  val IndexEnabled = "spark.sparkbloom.index.enabled"

  /**
   * Above this many files left to judge by their footers (after the table index), the
   * footers and filters are read by a Spark job on the executors instead of the driver;
   * 0 never. See bench/README.md ("Table index") for how the default was measured.
   */
  val ExecutorProbingAbove = "spark.sparkbloom.pruning.executorProbingAbove"
  val DefaultExecutorProbingAbove: Int = 20000

  def executorProbingAbove(conf: SQLConf): Int =
    conf.getConfString(ExecutorProbingAbove, DefaultExecutorProbingAbove.toString).trim.toInt

  def indexEnabled(conf: SQLConf): Boolean = conf.getConfString(IndexEnabled, "true").trim.toBoolean

  def joinEnabled(conf: SQLConf): Boolean = conf.getConfString(JoinEnabled, "true").trim.toBoolean

  def joinMaxKeys(conf: SQLConf): Int = conf.getConfString(JoinMaxKeys, DefaultJoinMaxKeys.toString).trim.toInt

  def enabled(conf: SQLConf): Boolean = conf.getConfString(Enabled, "true").trim.toBoolean

  def pruneFiles(conf: SQLConf): Boolean = conf.getConfString(PruneFiles, "true").trim.toBoolean

  def pruneRowGroups(conf: SQLConf): Boolean = conf.getConfString(PruneRowGroups, "true").trim.toBoolean

  def cacheMaxBytes(conf: SQLConf): Long = conf.getConfString(CacheMaxBytes, DefaultCacheMaxBytes.toString).trim.toLong

  def parallelism(conf: SQLConf): Int =
    math.max(1, conf.getConfString(Parallelism, DefaultParallelism.toString).trim.toInt)

  def writeFpp(conf: SQLConf): String = conf.getConfString(WriteFpp, DefaultWriteFpp.toString)

  def writeMaxBytes(conf: SQLConf): String = conf.getConfString(WriteMaxBytes, DefaultWriteMaxBytes.toString)

  def writeExactSize(conf: SQLConf): String = conf.getConfString(WriteExactSize, DefaultWriteExactSize.toString)
}
