// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.ByteBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.spark.SparkEnv
import org.apache.spark.network.util.JavaUtils
import org.apache.spark.serializer.JavaSerializer
import org.apache.spark.sql.SparkSession
import org.apache.spark.util.SerializableConfiguration

import sparkbloom.predicate.PointPredicate
import sparkbloom.rows.RowKeys

/**
 * Footer and filter probing as a Spark job: for listings too large for one driver to read
 * (100,000 footers are minutes on an object store), each task judges a slice of the files
 * with its executor's own [[FilePruner]] and cache, and only compact verdicts come back, so
 * the driver's memory grows with the verdicts, not with footers or filters.
 */
private[sparkbloom] object ExecutorProbing {

  /** The executor id of tasks run in the driver's JVM (Spark's `SparkContext.DRIVER_IDENTIFIER`, private to Spark). */
  private val DriverExecutorId = "driver"

  /** Files per task: enough to keep a task's probing threads busy, few enough to spread. */
  private val FilesPerTask = 2000

  private final case class Compact(rowGroups: Int, decisions: Array[Decision], midpoints: Option[Array[Long]],
      rowKeys: Option[RowKeys], unjudged: Decision, filterFpps: Array[(String, Double)])

  /** Verdicts for `files`, in order, and the filter bytes the tasks read. */
  def judge(
      session: SparkSession,
      hadoopConf: Configuration,
      files: IndexedSeq[FileStatus],
      predicate: PointPredicate,
      caseSensitive: Boolean,
      legacyCalendarSession: Boolean,
      parallelism: Int,
      useCache: Boolean,
      opener: FileOpener,
      checkFilters: Boolean): (IndexedSeq[FileVerdict], Long) = {
    val sc = session.sparkContext
    val conf = new SerializableConfiguration(hadoopConf)
    // The statuses themselves, Java-serialized whatever spark.serializer is: an object store's
    // own status type carries the etag its reads are bound to (a status rebuilt from path,
    // length and time lets S3A's analytics stream serve an older version it has seen).
    val serializer = new JavaSerializer(sc.getConf)
    val shipped = files.map(f => JavaUtils.bufferToArray(serializer.newInstance().serialize(f)))
    val invalidations = ProbeCache.shared.invalidations
    val tasks = math.max(1, math.min(files.size / FilesPerTask + 1, sc.defaultParallelism * 4))
    val previous = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(s"sparkbloom: probing the footers of ${files.size} files")
    val results =
      try {
        sc.parallelize(shipped, tasks).mapPartitions { slice =>
          val deserializer = new JavaSerializer(SparkEnv.get.conf).newInstance()
          val statuses = slice.map(bytes => deserializer.deserialize[FileStatus](ByteBuffer.wrap(bytes))).toIndexedSeq
          // In the driver's JVM (local mode) the cache is the driver's own, already current.
          if (SparkEnv.get.executorId != DriverExecutorId) ProbeCache.shared.followDriver(invalidations)
          // No decryption keys travel: the driver probes itself when a crypto factory is set.
          val pruner = new FilePruner(conf.value, Some(ProbeCache.Scoped(ProbeCache.shared, "")).filter(_ => useCache),
            caseSensitive, legacyCalendarSession, parallelism, opener, checkFilters)
          val verdicts = pruner.judge(statuses, predicate)
            .map(v =>
              Compact(v.rowGroups, v.decisions.toArray, v.midpoints.map(_.toArray), v.rowKeys, v.unjudged,
                v.filterFpps.toArray))
          Iterator((verdicts, pruner.filterBytesRead))
        }.collect()
      } finally sc.setJobDescription(previous)
    val verdicts = results.iterator.flatMap(_._1).zip(files.iterator).map { case (c, status) =>
      FileVerdict(status, c.rowGroups, c.decisions.toIndexedSeq, c.midpoints.map(_.toIndexedSeq), c.rowKeys, c.unjudged,
        c.filterFpps.toSeq)
    }.toIndexedSeq
    (verdicts, results.map(_._2).sum)
  }

  def wanted(files: Int, threshold: Int, hadoopConf: Configuration): Boolean =
    threshold > 0 && files > threshold && !ProbeCache.decrypts(hadoopConf)
}
