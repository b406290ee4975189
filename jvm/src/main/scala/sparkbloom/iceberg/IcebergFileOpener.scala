// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

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
 */
private[sparkbloom] final case class IcebergFileOpener(io: FileIO) extends FileOpener {
  def open(status: FileStatus, conf: Configuration): SeekableInputStream = {
    val in = io.newInputFile(status.getPath.toString, status.getLen).newStream()
    new DelegatingSeekableInputStream(in) {
      override def getPos: Long = in.getPos
      override def seek(position: Long): Unit = in.seek(position)
    }
  }
}
