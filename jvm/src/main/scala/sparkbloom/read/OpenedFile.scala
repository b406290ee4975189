// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.{DelegatingSeekableInputStream, InputFile, SeekableInputStream}

import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * A Parquet file opened for its footer and Bloom filters: the one road by which sparkbloom
 * reads either (pruner, `inspect`, `might_contain`, table index), through the cache when
 * given. The file is opened at most once, only if the cache lacks something. With a crypto
 * factory configured, parquet-java finds the file's keys by its path as in a Spark task, and
 * decrypts the footer and encrypted filters.
 */
private[sparkbloom] final class OpenedFile(status: FileStatus, hadoopConf: Configuration,
    cache: Option[ProbeCache.Scoped], opener: FileOpener, tailSizing: ProbeReadPlan.TailSizing) {

  private lazy val cached = cache.map(c => (c.cache, FileKey.of(status, c.scope, opener.immutableFiles)))
  private lazy val input: InputFile =
    opener match {
      case _: FileOpener.HadoopFiles => HadoopInputFile.fromStatus(status, hadoopConf)
      case _ => new InputFile {
          override def getLength: Long = status.getLen
          override def newStream(): SeekableInputStream = opener.open(status, hadoopConf)
          override def toString: String = status.getPath.toString
        }
    }
  // Never the deprecated signed-order string min/max a reader may opt into for old files
  // (parquet.strings.signed-min-max.enabled): the footer is cached for every later read, which
  // did not opt in, and they can rule out strings outside ASCII that the file holds.
  private lazy val readOptions =
    HadoopReadOptions.builder(hadoopConf, status.getPath).useSignedStringMinMax(false).build()
  private var opened: RangeReadStream = _
  private var reader: ParquetFileReader = _
  private var bytesRead = 0L
  private var footerBytes = 0L
  private val columnsFetched = scala.collection.mutable.Set.empty[String]

  /** The file, opened once by its opener, read through [[RangeReadStream]]. */
  private def stream(): RangeReadStream = {
    if (opened == null) opened = new RangeReadStream(opener.open(status, hadoopConf), status.getLen)
    opened
  }

  /**
   * parquet-java's reader of this file, for what only it reads (encrypted filters, the
   * table index's values). It reads through this file's stream, which stays this file's to
   * close: on an object store every open is a request.
   */
  def parquetReader: ParquetFileReader = {
    if (reader == null) {
      val shared = new InputFile {
        override def getLength: Long = input.getLength
        override def newStream(): SeekableInputStream = new DelegatingSeekableInputStream(stream()) {
          override def getPos: Long = stream().getPos
          override def seek(position: Long): Unit = stream().seek(position)
          override def close(): Unit = ()
        }
        override def toString: String = input.toString
      }
      reader = new ParquetFileReader(shared, readOptions)
    }
    reader
  }

  /** The footer's summary; throws when the footer cannot be read. */
  lazy val footer: FooterSummary = {
    def load = {
      stream().fetch(Seq(tailSizing.tailBytes(status.getLen)))
      val read = FooterReader.read(input, readOptions, stream(), hadoopConf)
      footerBytes = FooterReader.footerBytes(stream(), status.getLen)
      read
    }
    cached.fold(load) { case (c, k) => c.footer(k)(load) }
  }

  /**
   * Fetches the filters of `column` in every row group, in as few reads as
   * [[ProbeReadPlan.coalesce]] makes of them: asked for one, a prober asks for the others
   * next. Filters without `bloom_filter_length` are read as asked.
   */
  private def fetchFiltersOf(column: String): Unit = if (columnsFetched.add(column)) {
    val length = status.getLen
    val wanted = footer.rowGroups.flatMap(_.columns.get(column))
      .filter(c => c.hasFilter && !c.encrypted && c.filterLength > 0 && c.filterOffset + c.filterLength <= length)
      .map(c => ByteRange(c.filterOffset, c.filterLength))
    stream().fetch(ProbeReadPlan.coalesce(wanted.filterNot(stream().holds)))
    if (footerBytes > 0) tailSizing.learn(ProbeReadPlan.Needed(length, footerBytes, wanted))
  }

  /**
   * A column chunk's filter. Never throws: a filter that cannot be read is
   * [[FilterLookup.Broken]], and the caller reads the data. Only what the file says is
   * cached, broken filters included; a read that failed (a timeout, a 503) is not, so the
   * next query tries again.
   */
  def filter(rowGroup: Int, column: String): FilterLookup = {
    def load: FilterLookup =
      footer.rowGroups.lift(rowGroup).flatMap(_.columns.get(column)) match {
        case None => FilterLookup.Missing
        case Some(chunk) =>
          val result =
            if (chunk.encrypted && chunk.hasFilter) decryptedFilter(rowGroup, column)
            else {
              if (chunk.hasFilter) fetchFiltersOf(column)
              BloomFilterIO.read(stream(), status.getLen, chunk)
            }
          bytesRead += result.bytesRead
          result.lookup
      }
    try cached.fold(load) { case (c, k) => c.filter(k, rowGroup, column)(load) }
    catch { case NonFatal(e) => FilterLookup.Broken(e.toString) }
  }

  /**
   * A column chunk's dictionary page as parquet-java reads it, with the column it belongs to
   * (to check the chunk's filter against, [[FilterChecks]]); None without one.
   */
  def dictionary(rowGroup: Int, column: String)
      : Option[(org.apache.parquet.column.ColumnDescriptor, org.apache.parquet.column.page.DictionaryPage)] = {
    val footer = parquetReader.getFooter
    val block = footer.getBlocks.get(rowGroup)
    block.getColumns.asScala.find(_.getPath.toDotString == column).flatMap { meta =>
      val descriptor = footer.getFileMetaData.getSchema.getColumnDescription(meta.getPath.toArray)
      // through its public interface: the reader's class is parquet-java's own
      val pages: org.apache.parquet.column.page.DictionaryPageReadStore = parquetReader.getDictionaryReader(block)
      Option(pages.readDictionaryPage(descriptor)).map((descriptor, _))
    }
  }

  /** Filter bytes read from the file (not from the cache) so far. */
  def filterBytesRead: Long = bytesRead

  /**
   * An encrypted column's filter, decrypted with the column key by parquet-java (header
   * and bitset are AES-GCM modules). Held in memory like any filter, never written anywhere.
   */
  private def decryptedFilter(rowGroup: Int, column: String): BloomFilterIO.Result = {
    val meta =
      parquetReader.getFooter.getBlocks.get(rowGroup).getColumns.asScala.find(_.getPath.toDotString == column)
    meta.flatMap(m => Option(parquetReader.readBloomFilter(m))) match {
      case Some(filter) =>
        val bitset = new java.io.ByteArrayOutputStream(filter.getBitsetSize)
        filter.writeTo(bitset)
        val bytes = bitset.toByteArray
        if (bytes.length < 32 || bytes.length % 32 != 0) {
          BloomFilterIO.Result(FilterLookup.Broken(s"decrypted bitset of ${bytes.length} bytes"), bytes.length)
        } else BloomFilterIO.Result(FilterLookup.Present(SplitBlockBloomFilter.fromBitset(bytes)), bytes.length)
      case None => BloomFilterIO.Result(FilterLookup.Missing, 0)
    }
  }

  def close(): Unit =
    try if (reader != null) reader.close()
    finally if (opened != null) opened.close()
}

private[sparkbloom] object OpenedFile {

  /**
   * `work` on the file, closed after. Files judged together share `tailSizing`: what the
   * first needed sizes the reads of the next.
   */
  def using[T](status: FileStatus, hadoopConf: Configuration, cache: Option[ProbeCache.Scoped],
      opener: FileOpener = FileOpener.HadoopFileSystem,
      tailSizing: ProbeReadPlan.TailSizing = new ProbeReadPlan.TailSizing)(work: OpenedFile => T): T = {
    val file = new OpenedFile(status, hadoopConf, cache, opener, tailSizing)
    try work(file)
    finally file.close()
  }
}
