// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.iceberg.io.FileIO
import org.apache.parquet.io.{DelegatingSeekableInputStream, SeekableInputStream}

import sparkbloom.read.FileOpener

/**
 * An Iceberg table's data files opened through the table's own `FileIO`, as Iceberg's readers
 * open them: with the credentials its catalog vends, for any scheme its IO reads, by the
 * location Iceberg wrote (a path and length name one file: Iceberg never writes a path twice).
 * Serializable as Iceberg's IO is, for executors that probe footers.
 *
 * Iceberg's `HadoopFileIO` (a Hadoop catalog's) is Hadoop's file system under the table's
 * Hadoop configuration, and it opens by path alone: on S3A a HEAD per file, then the session's
 * input stream, which (Hadoop 3.5's default) fetches a small object whole. Its files are
 * opened as Hadoop's file system opens a snapshot's files instead, with that same
 * configuration: by the length the task gives, for reads of exactly the ranges asked.
 */
private[sparkbloom] final case class IcebergFileOpener(io: FileIO) extends FileOpener {
  def immutableFiles: Boolean = true

  // iceberg-core's class, reached by name: sparkbloom compiles against iceberg-api alone
  @transient private lazy val hadoopConf: Option[Configuration] =
    if (io.getClass.getName != IcebergFileOpener.HadoopFileIO) None
    else Try(io.getClass.getMethod("conf").invoke(io)).toOption.collect { case c: Configuration => c }

  def open(status: FileStatus, conf: Configuration): SeekableInputStream = hadoopConf match {
    case Some(tableConf) => FileOpener.SnapshotFiles.open(status, tableConf)
    case None =>
      val in = io.newInputFile(status.getPath.toString, status.getLen).newStream()
      new DelegatingSeekableInputStream(in) {
        override def getPos: Long = in.getPos
        override def seek(position: Long): Unit = in.seek(position)
      }
  }
}

private object IcebergFileOpener {
  val HadoopFileIO = "org.apache.iceberg.hadoop.HadoopFileIO"
}
