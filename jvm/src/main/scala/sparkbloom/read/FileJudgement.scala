// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.datasources.PartitionedFile

/**
 * The file a driver's verdict was made on, and the SQL execution that made it. Spark plans
 * a Dataset once: executed again, it keeps its listing (4.x even its RDDs and their
 * partitions) but reads each file's bytes as they are then. So a verdict decides what a
 * task reads only within the execution that made it, or while the file is unchanged
 * ([[FileIdentity]]); otherwise the task reads as Spark would without sparkbloom.
 *
 * A split with a [[RowGroupSelection]] is read by it while the judgement holds; one without
 * is what the verdicts left unread (a file ruled out, a split with no row group that may
 * match), read only if the file changed.
 *
 * @param ifChanged what a split with a selection reads once the file changed: itself as
 *                  listed, the split it was cut from on the driver, or nothing (another
 *                  piece of that split reads it)
 */
private[sparkbloom] final case class FileJudgement(identity: FileIdentity, judgedIn: Option[String],
    ifChanged: FileJudgement.IfChanged = FileJudgement.ReadAsListed) {

  /** Whether the verdict still describes the file at `path`, asked in a task. */
  def holds(path: Path): Boolean =
    judgedIn.exists(FileJudgement.runningExecution.contains) ||
      (try identity.sameFile(FileIdentity.of(path.getFileSystem(FileJudgement.taskConf).getFileStatus(path)))
      catch { case NonFatal(_) => false })
}

private[sparkbloom] object FileJudgement {

  val MetadataKey = "sparkbloom_judgement"

  def in(file: PartitionedFile): Option[FileJudgement] =
    file.otherConstantMetadataColumnValues.get(MetadataKey).collect { case j: FileJudgement => j }

  /**
   * Of `files` (what verdicts left unread), those whose verdict no longer holds, asked in a
   * task. A verdict made in the running execution holds; the other files are looked at again
   * together ([[FileIdentity.lookAgain]]: one LIST per directory, the directories in parallel),
   * with `conf`, the scan's own settings. A file that cannot be looked at counts as changed.
   */
  def changed(files: Seq[PartitionedFile], conf: => Configuration): Seq[PartitionedFile] = {
    val running = runningExecution
    val unsure = files.flatMap(f => in(f).filterNot(_.judgedIn.exists(running.contains)).map(f -> _)).toIndexedSeq
    if (unsure.isEmpty) return Nil
    val now = FileIdentity.lookAgain(unsure.map(_._1.toPath), conf)
    unsure.zip(now).collect {
      case ((file, judgement), status) if !status.exists(s => judgement.identity.sameFile(FileIdentity.of(s))) => file
    }
  }

  /**
   * The settings of `conf` that a Hadoop configuration made anew lacks or holds otherwise: a
   * scan's own (its session's and its options', beside the application's) carried to its
   * tasks, where [[configuration]] makes them a configuration again.
   */
  def settingsOf(conf: Configuration): Map[String, String] =
    conf.iterator().asScala.map(e => e.getKey -> e.getValue).filter { case (k, v) => defaults.getRaw(k) != v }.toMap

  def configuration(settings: Map[String, String]): Configuration = {
    val conf = new Configuration()
    settings.foreach { case (k, v) => conf.set(k, v) }
    conf
  }

  private lazy val defaults = new Configuration()

  sealed trait IfChanged
  case object ReadAsListed extends IfChanged
  final case class ReadSplit(start: Long, length: Long) extends IfChanged
  case object ReadNothing extends IfChanged

  /** What a task reads of `file`: by its selection while the verdict holds, else as Spark would, or nothing. */
  def readAs(file: PartitionedFile): Option[PartitionedFile] = in(file) match {
    case None => Some(file)
    case Some(j) if j.holds(file.toPath) => Some(file).filter(f => RowGroupSelection.in(f).isDefined)
    case Some(j) =>
      val plain = file.copy(otherConstantMetadataColumnValues =
        file.otherConstantMetadataColumnValues - MetadataKey - RowGroupSelection.MetadataKey)
      j.ifChanged match {
        case ReadAsListed => Some(plain)
        case ReadSplit(start, length) => Some(plain.copy(start = start, length = length))
        case ReadNothing => None
      }
  }

  /** The SQL execution a task runs for (Spark passes it to tasks as a local property); none outside tasks. */
  def runningExecution: Option[String] =
    Option(TaskContext.get()).flatMap(c => Option(c.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)))

  /**
   * The Hadoop settings a task has without its scan's own: the application's `spark.hadoop.*`.
   * A file it cannot look at with them counts as changed, and is read.
   */
  private def taskConf: Configuration = {
    val conf = new Configuration()
    Option(SparkEnv.get).foreach(_.conf.getAll.foreach { case (k, v) =>
      if (k.startsWith("spark.hadoop.")) conf.set(k.stripPrefix("spark.hadoop."), v)
    })
    conf
  }
}
