// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.util.{List => JList, Map => JMap}

import org.apache.hadoop.mapreduce.RecordWriter
import org.apache.parquet.column.values.bloomfilter.BloomFilter
import org.apache.parquet.hadoop.{ParquetFileWriter, ParquetRecordWriter}

/**
 * The one place sparkbloom reaches inside parquet-java's writer, which sizes a column's
 * filter before it has seen a value (from an NDV guess, or at the maximum) and offers no
 * public hook to hand it one sized afterwards. Its `ParquetFileWriter` keeps, per finished
 * row group, a map from column path to the filter it serializes when the file is closed
 * (with `bloom_filter_length`, encrypted with the column key if the column is); sparkbloom
 * puts its right-sized filter into that map between the end of the row group and the close.
 * Field names are those of parquet-java 1.13 to 1.17; if they change, writes with
 * `bloom_filter_columns` fail loudly here rather than write a file without the filters.
 */
private[write] object ParquetWriterInternals {

  private def field(owner: Class[_], name: String) = {
    val f = owner.getDeclaredField(name)
    f.setAccessible(true)
    f
  }

  private lazy val internalWriterField = field(classOf[ParquetRecordWriter[_]], "internalWriter")
  private lazy val fileWriterField =
    field(Class.forName("org.apache.parquet.hadoop.InternalParquetRecordWriter"), "parquetFileWriter")
  private lazy val bloomFiltersField = field(classOf[ParquetFileWriter], "bloomFilters")

  /** The row-group filter maps of the file that `recordWriter` writes, one per finished row group. */
  def rowGroupFilters(recordWriter: RecordWriter[_, _]): JList[JMap[String, BloomFilter]] =
    try {
      val internal = internalWriterField.get(recordWriter)
      val fileWriter = fileWriterField.get(internal)
      bloomFiltersField.get(fileWriter).asInstanceOf[JList[JMap[String, BloomFilter]]]
    } catch {
      case e: ReflectiveOperationException =>
        throw new IllegalStateException(
          "sparkbloom cannot attach Bloom filters with this parquet-java version " +
            s"(${classOf[ParquetFileWriter].getPackage.getImplementationVersion}): ${e.getMessage}", e)
    }
}
