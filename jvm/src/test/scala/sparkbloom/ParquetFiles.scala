// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.column.values.bloomfilter.BloomFilter
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData
import org.apache.parquet.hadoop.util.HadoopInputFile

/** parquet-java's own view of files, for tests to check what was written. */
object ParquetFiles {

  def dataFiles(dir: String): Seq[File] = {
    def walk(f: File): Seq[File] =
      if (f.isDirectory) f.listFiles().toSeq.flatMap(walk)
      else if (f.getName.endsWith(".parquet") && !f.getName.startsWith(".")) Seq(f) else Nil
    walk(new File(dir)).sortBy(_.getPath)
  }

  /** One row group's column chunk and the filter parquet-java reads for it (null if none). */
  final case class Chunk(rowGroup: Int, meta: ColumnChunkMetaData, filter: Option[BloomFilter]) {
    def path: String = meta.getPath.toDotString
  }

  def chunks(file: File): Seq[Chunk] = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file.toURI), new Configuration()))
    try {
      reader.getFooter.getBlocks.asScala.toSeq.zipWithIndex.flatMap { case (block, i) =>
        block.getColumns.asScala.toSeq.map(c => Chunk(i, c, Option(reader.readBloomFilter(c))))
      }
    } finally reader.close()
  }
}
