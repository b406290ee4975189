// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.io.{ByteArrayInputStream, IOException}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.charset.StandardCharsets

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.format.FileMetaData
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.io.{InputFile, SeekableInputStream}

import sparkbloom.shims.SparkShims

/**
 * Reads a file's footer for pruning: parquet-java's parsed metadata, plus, per row group,
 * the "midpoint" by which parquet-java gives the row group to exactly one split (a task
 * reading bytes `[start, end)` gets the row groups whose midpoint lies there). parquet-java
 * computes it from the raw Thrift footer, and the parsed `BlockMetaData` lacks what it needs
 * (its start ignores a dictionary offset of 0, its size is the sum of the chunks'), so it is
 * computed here from the Thrift footer, by the same rule. Where the rule would not apply (a
 * first chunk without plaintext metadata, an encrypted footer), the file is read whole.
 */
private[sparkbloom] object FooterReader {

  private val Magic = "PAR1".getBytes(StandardCharsets.US_ASCII)

  /**
   * With a crypto factory configured, parquet-java itself parses the footer, exactly as in
   * a task: plaintext files may be refused, and encrypted columns need the keys.
   */
  def read(input: InputFile, options: ParquetReadOptions, stream: SeekableInputStream, conf: Configuration)
      : FooterSummary = {
    val decryptionConfigured = ProbeCache.decrypts(conf)
    val length = input.getLength
    if (length < 12) throw new IOException(s"$length bytes are too few for a Parquet file")
    val tail = BloomFilterIO.readFully(stream, length - 8, 8)
    val footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt
    val plaintextFooter = java.util.Arrays.equals(tail.slice(4, 8), Magic)
    if (!plaintextFooter || footerLength <= 0 || footerLength > length - 12) {
      // An encrypted footer ("PARE") or one that does not add up: parquet-java decides.
      return FooterSummary(ParquetFileReader.readFooter(input, options, stream), None)
    }
    val bytes = BloomFilterIO.readFully(stream, length - 8 - footerLength, footerLength)
    // The same Thrift size limit as parquet-java's own footer parsing.
    val raw = SparkShims.readThriftFooter(new ByteArrayInputStream(bytes), conf)
    val midpoints = splitMidpoints(raw)
    val parsed =
      if (decryptionConfigured || raw.isSetEncryption_algorithm) ParquetFileReader.readFooter(input, options, stream)
      else new ParquetMetadataConverter(options).fromParquetMetadata(raw)
    FooterSummary(parsed, midpoints)
  }

  /** The bytes of the file's footer with its 8-byte tail, as the tail says; 0 if it says nothing sensible. */
  def footerBytes(stream: SeekableInputStream, length: Long): Long =
    if (length < 12) 0L
    else {
      val tail = BloomFilterIO.readFully(stream, length - 8, 8)
      val footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt
      if (footerLength <= 0 || footerLength > length - 12) 0L else footerLength + 8L
    }

  /** The offsets parquet-java's split filter assigns row groups by, by its rule (a dictionary offset of 0 counts). */
  private[read] def splitMidpoints(raw: FileMetaData): Option[IndexedSeq[Long]] = {
    val rowGroups = Option(raw.getRow_groups).map(_.asScala.toIndexedSeq).getOrElse(IndexedSeq.empty)
    val midpoints = rowGroups.map { rowGroup =>
      val chunks = Option(rowGroup.getColumns).map(_.asScala.toSeq).getOrElse(Nil)
      for {
        first <- chunks.headOption.flatMap(c => Option(c.getMeta_data))
        size <-
          if (rowGroup.isSetTotal_compressed_size) Some(rowGroup.getTotal_compressed_size)
          else if (chunks.forall(_.isSetMeta_data)) Some(chunks.map(_.getMeta_data.getTotal_compressed_size).sum)
          else None
      } yield {
        val start =
          if (first.isSetDictionary_page_offset && first.getData_page_offset > first.getDictionary_page_offset) {
            first.getDictionary_page_offset
          } else first.getData_page_offset
        start + size / 2
      }
    }
    if (midpoints.forall(_.isDefined)) Some(midpoints.flatten) else None
  }
}
