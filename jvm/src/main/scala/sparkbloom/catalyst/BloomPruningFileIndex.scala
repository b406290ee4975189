package sparkbloom.catalyst

import java.util.concurrent.TimeUnit

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, PartitionDirectory}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import sparkbloom.SparkBloomConf
import sparkbloom.read.{FilePruner, ProbeCache, PruningStats, RowGroupSelection}

/**
 * A scan's file listing with Bloom-filter pruning: the files its delegate lists (after
 * partition pruning), minus those in which no row group can match the scan's data
 * filters. Spark asks for the listing while it plans the scan, so skipped files get no
 * task and are never opened by an executor.
 */
final class BloomPruningFileIndex(
    val delegate: FileIndex,
    session: SparkSession,
    options: Map[String, String]) extends FileIndex {

  override def rootPaths: Seq[Path] = delegate.rootPaths
  override def inputFiles: Array[String] = delegate.inputFiles
  override def refresh(): Unit = delegate.refresh()
  override def sizeInBytes: Long = delegate.sizeInBytes
  override def partitionSchema: StructType = delegate.partitionSchema
  override def metadataOpsTimeNs: Option[Long] = delegate.metadataOpsTimeNs

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] = {
    val listed = delegate.listFiles(partitionFilters, dataFilters)
    val conf = session.sessionState.conf
    val predicate = PointPredicate.fromFilters(dataFilters)
    if (!SparkBloomConf.enabled(conf) || predicate.isEmpty || fieldIdMatching(conf)) {
      record(PruningStats(listed.map(_.files.size.toLong).sum, 0, 0, 0, 0, 0))
      return listed
    }
    val started = System.nanoTime()
    val cache = ProbeCache.shared
    cache.resize(SparkBloomConf.cacheMaxBytes(conf))
    val pruner = new FilePruner(
      session.sessionState.newHadoopConfWithOptions(options),
      cache,
      conf.caseSensitiveAnalysis,
      legacyCalendarSession = conf.getConfString(SQLConf.PARQUET_REBASE_MODE_IN_READ.key, "CORRECTED") == "LEGACY",
      parallelism = SparkBloomConf.parallelism(conf))
    val files = listed.flatMap(_.files.map(_.fileStatus))
    val verdicts = pruner.judge(files, predicate.get)
    val keepFiles = !SparkBloomConf.pruneFiles(conf)
    val kept = verdicts.filter(v => keepFiles || v.keep).map(v => v.status.getPath -> v).toMap
    val selectRowGroups = SparkBloomConf.pruneRowGroups(conf)
    val result = listed.map { dir =>
      dir.copy(files = dir.files.flatMap { f =>
        kept.get(f.fileStatus.getPath).map { verdict =>
          RowGroupSelection.of(verdict).filter(_ => selectRowGroups)
            .map(selection => f.copy(metadata = f.metadata + (RowGroupSelection.MetadataKey -> selection)))
            .getOrElse(f)
        }
      })
    }.filter(_.files.nonEmpty)
    val judged = verdicts.filter(_.rowGroups >= 0)
    record(PruningStats(
      filesTotal = files.size,
      filesSkipped = files.size - kept.size,
      rowGroupsTotal = judged.map(_.rowGroups.toLong).sum,
      rowGroupsSkipped = judged.map(_.ruledOut.toLong).sum,
      filterBytesRead = pruner.filterBytesRead,
      probeTimeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)))
    result
  }

  /** Matching file columns by field id instead of name: leave such scans alone. */
  private def fieldIdMatching(conf: SQLConf): Boolean =
    conf.getConfString("spark.sql.parquet.fieldId.read.enabled", "false").trim.toBoolean

  private def record(stats: PruningStats): Unit = PruningStats.recordLast(session, stats)

  override def equals(other: Any): Boolean = other match {
    case that: BloomPruningFileIndex => that.delegate == delegate
    case _ => false
  }

  override def hashCode(): Int = delegate.hashCode() * 31 + 7

  override def toString: String = s"BloomPruningFileIndex($delegate)"
}
