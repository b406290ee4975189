// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream, IOException}
import java.util.zip.CRC32

import org.apache.hadoop.fs.{FSDataInputStream, FileStatus, FileSystem, Path}
import org.apache.hadoop.util.functional.FutureIO

import sparkbloom.read.FileIdentity
import sparkbloom.sbbf.SplitBlockBloomFilter

/**
 * The files of a table index, in `<table>/_sparkbloom_index/` (a name Spark's listing skips).
 *
 * - `v<N>.manifest`: the index's columns and fpp and its live segments, oldest first; the
 *   highest N is the index. Each change creates the next N, which exactly one writer can
 *   ([[commitManifest]]); the others read the newest and try again ([[IndexBuilder]]).
 *   Superseded manifests and the segments only they name are kept for a while
 *   ([[IndexRetention]]), as readers and writers may still be using them.
 * - `segment-<uuid>.sbi`: immutable. For each column, the filters of its units (a whole
 *   file, or one row group of a file) at one power-of-two block count, **block-major**:
 *   block 0 of every unit, then block 1 of every unit, and so on. A key hashes to one block,
 *   so probing every unit costs one contiguous read of `units x 32` bytes. Then a directory
 *   (files, their identities and row groups, and per column which units belong to which
 *   file), and an 12-byte trailer: the directory's offset and a magic number. Each block row
 *   and the directory carry a CRC32: a damaged segment is ignored, never believed.
 */
private[sparkbloom] object IndexLayout {
  val DirName = "_sparkbloom_index"
  private val ManifestMagic = 0x53424d31 // "SBM1"
  private val SegmentMagic = 0x53425331 // "SBS1"
  val ManifestName = """v(\d+)\.manifest""".r
  val SegmentPrefix = "segment-"

  /** Bytes written aside before they take their name: hidden from listings (a leading dot). */
  val PendingPrefix = ".pending-"

  def dirOf(root: Path): Path = new Path(root, DirName)

  /**
   * Where the index of data at `path` may be: the path, and as many parents as the table
   * has partition columns (a catalog table's listing or write may start at a partition).
   */
  def candidateRoots(path: Path, partitionDepth: Int): Seq[Path] =
    Iterator.iterate(path)(_.getParent).takeWhile(_ != null).take(partitionDepth + 1).toSeq

  /** An index directory as one listing showed it: its newest manifest, and every file by name. */
  final case class Listed(manifest: FileStatus, version: Long, files: Map[String, FileStatus])

  /**
   * The newest manifest in `dir`; none if there is none, or no `dir`. One listing either way
   * (on an object store one LIST), whose statuses then open the manifest and segments with
   * no HEAD of their own.
   */
  def latestManifest(fs: FileSystem, dir: Path): Option[Listed] = {
    val listed =
      try fs.listStatus(dir).toSeq
      catch { case _: java.io.FileNotFoundException => Nil }
    val byName = listed.map(s => s.getPath.getName -> s).toMap
    listed.flatMap(s =>
      s.getPath.getName match {
        case ManifestName(n) => Some(s -> n.toLong)
        case _ => None
      }).sortBy(_._2).lastOption.map { case (manifest, version) => Listed(manifest, version, byName) }
  }

  /** Opens a file of the index by its listed status: no HEAD, and reads where they are asked. */
  def open(fs: FileSystem, status: FileStatus): FSDataInputStream =
    FutureIO.awaitFuture(fs.openFile(status.getPath).withFileStatus(status)
        .opt("fs.option.openfile.read.policy", "random").build())

  final case class Manifest(version: Long, columns: Seq[String], fpp: Double, maxBytes: Int, segments: Seq[String])

  /**
   * Commits `manifest` as `v<N>.manifest` unless that version exists: true if this writer
   * made it, false if another writer has (read the newest and try the next version). A reader
   * never sees half a manifest ([[ExclusiveCreate]]).
   */
  def commitManifest(fs: FileSystem, dir: Path, manifest: Manifest): Boolean = {
    val bytes = encoded { out =>
      out.writeInt(ManifestMagic)
      out.writeLong(manifest.version)
      out.writeDouble(manifest.fpp)
      out.writeInt(manifest.maxBytes)
      writeStrings(out, manifest.columns)
      writeStrings(out, manifest.segments)
    }
    ExclusiveCreate(fs, manifestPath(dir, manifest.version), withCrc(bytes))
  }

  def manifestPath(dir: Path, version: Long): Path = new Path(dir, s"v$version.manifest")

  def readManifest(fs: FileSystem, status: FileStatus, version: Long): Manifest = {
    val path = status.getPath
    val stream = open(fs, status)
    val bytes =
      try org.apache.commons.io.IOUtils.toByteArray(stream)
      finally stream.close()
    val in = new DataInputStream(new ByteArrayInputStream(checkedBytes(bytes, path.toString)))
    if (in.readInt() != ManifestMagic) throw new IOException(s"$path is not a sparkbloom index manifest")
    val stored = in.readLong()
    if (stored != version) throw new IOException(s"$path says it is version $stored")
    Manifest(stored, fpp = in.readDouble(), maxBytes = in.readInt(), columns = readStrings(in),
      segments = readStrings(in))
  }

  final case class IndexedFile(
      relativePath: String,
      identity: FileIdentity,
      rowGroups: Int,
      midpoints: Option[IndexedSeq[Long]],
      legacyCalendar: Boolean)

  /**
   * Where one file's filters for a column are: `units` consecutive units from `firstUnit`,
   * one for the whole file (`fileLevel`) or one per row group; `units == 0` when the file
   * has no usable column of that name (missing, ambiguous, repeated, a type without filters).
   *
   * @param fileColumn    the column's dotted path in the file, in the file's case
   * @param ambiguousCase another column of the file has the same path case-insensitively
   * @param primitiveType the file column's Parquet type, as a schema fragment
   */
  final case class ColumnEntry(
      fileColumn: String,
      ambiguousCase: Boolean,
      primitiveType: String,
      firstUnit: Int,
      units: Int,
      fileLevel: Boolean,
      shape: Int = -1) {
    def shapeKey: Shape = Shape(fileColumn, ambiguousCase, primitiveType)
  }

  /** What most files of a column share: its name and type in the file. */
  final case class Shape(fileColumn: String, ambiguousCase: Boolean, primitiveType: String)

  object ColumnEntry {
    val NotCovered: ColumnEntry = ColumnEntry("", ambiguousCase = false, "", 0, 0, fileLevel = false)
  }

  /** @param maxUnitFpp the largest fpp of any unit at `numBlocks` (measured on its bits), for `describe` */
  final case class SegmentColumn(
      name: String,
      numBlocks: Int,
      numUnits: Int,
      dataOffset: Long,
      rowCrcs: IndexedSeq[Int],
      maxUnitFpp: Double,
      shapes: IndexedSeq[Shape],
      entries: IndexedSeq[ColumnEntry]) {
    def rowBytes: Int = numUnits * SplitBlockBloomFilter.BytesPerBlock
  }

  final case class SegmentDirectory(files: IndexedSeq[IndexedFile], columns: IndexedSeq[SegmentColumn])

  /** Column data to write: the units' filters, all at `numBlocks`, in unit order. */
  final case class ColumnData(name: String, numBlocks: Int, units: IndexedSeq[SplitBlockBloomFilter],
      maxUnitFpp: Double, entries: IndexedSeq[ColumnEntry])

  /** Writes a segment; returns its directory and length. */
  def writeSegment(fs: FileSystem, path: Path, files: IndexedSeq[IndexedFile], columns: Seq[ColumnData])
      : (SegmentDirectory, Long) = {
    val out = fs.create(path, false)
    try {
      val written = columns.map { column =>
        val offset = out.getPos
        val bitsets = column.units.map(_.toBitset)
        val row = new Array[Byte](bitsets.size * SplitBlockBloomFilter.BytesPerBlock)
        val crcs = (0 until column.numBlocks).map { block =>
          bitsets.indices.foreach { u =>
            System.arraycopy(bitsets(u), block * SplitBlockBloomFilter.BytesPerBlock, row,
              u * SplitBlockBloomFilter.BytesPerBlock, SplitBlockBloomFilter.BytesPerBlock)
          }
          out.write(row)
          crc(row, row.length)
        }
        val shapes = column.entries.map(_.shapeKey).distinct
        SegmentColumn(column.name, column.numBlocks, bitsets.size, offset, crcs, column.maxUnitFpp, shapes,
          column.entries)
      }
      val directoryOffset = out.getPos
      val directory = SegmentDirectory(files, written.toIndexedSeq)
      out.write(withCrc(encodeDirectory(directory)))
      out.writeLong(directoryOffset)
      out.writeInt(SegmentMagic)
      (directory, out.getPos)
    } finally out.close()
  }

  def readDirectory(fs: FileSystem, status: FileStatus): SegmentDirectory = {
    val path = status.getPath
    val in = open(fs, status)
    try {
      val length = status.getLen
      if (length < 12) throw new IOException(s"$path is too short for an index segment")
      val trailer = new Array[Byte](12)
      in.readFully(length - 12, trailer)
      val tail = new DataInputStream(new ByteArrayInputStream(trailer))
      val offset = tail.readLong()
      if (tail.readInt() != SegmentMagic || offset < 0 || offset > length - 12 || length - 12 - offset > Int.MaxValue) {
        throw new IOException(s"$path is not a sparkbloom index segment")
      }
      val bytes = new Array[Byte]((length - 12 - offset).toInt)
      in.readFully(offset, bytes)
      val directory = decodeDirectory(checkedBytes(bytes, path.toString))
      directory.columns.foreach { c =>
        if (c.dataOffset < 0 || c.dataOffset + c.numBlocks.toLong * c.rowBytes > offset || c.rowCrcs.size != c.numBlocks) {
          throw new IOException(s"$path: column ${c.name} does not fit the segment")
        }
      }
      directory
    } finally in.close()
  }

  def readRow(
      in: org.apache.hadoop.fs.FSDataInputStream, path: Path, column: SegmentColumn, block: Int): Array[Byte] = {
    val row = new Array[Byte](column.rowBytes)
    in.readFully(column.dataOffset + block.toLong * column.rowBytes, row)
    if (crc(row, row.length) != column.rowCrcs(block)) {
      throw new IOException(s"$path: block $block of column ${column.name} fails its checksum")
    }
    row
  }

  private def encodeDirectory(d: SegmentDirectory): Array[Byte] = encoded { out =>
    out.writeInt(d.files.size)
    d.files.foreach { f =>
      out.writeUTF(f.relativePath)
      out.writeLong(f.identity.length)
      out.writeLong(f.identity.modificationTime)
      out.writeUTF(f.identity.etag)
      out.writeLong(f.identity.changeTime)
      out.writeInt(f.rowGroups)
      out.writeBoolean(f.legacyCalendar)
      out.writeInt(f.midpoints.map(_.size).getOrElse(-1))
      f.midpoints.foreach(_.foreach(out.writeLong))
    }
    out.writeInt(d.columns.size)
    d.columns.foreach { c =>
      out.writeUTF(c.name)
      out.writeInt(c.numBlocks)
      out.writeInt(c.numUnits)
      out.writeLong(c.dataOffset)
      out.writeDouble(c.maxUnitFpp)
      c.rowCrcs.foreach(out.writeInt)
      // Files mostly share a column's name and type: each distinct one is written once.
      val shapeIndex = c.shapes.zipWithIndex.toMap
      out.writeInt(c.shapes.size)
      c.shapes.foreach { shape =>
        out.writeUTF(shape.fileColumn)
        out.writeBoolean(shape.ambiguousCase)
        out.writeUTF(shape.primitiveType)
      }
      c.entries.foreach { e =>
        out.writeInt(shapeIndex(e.shapeKey))
        out.writeInt(e.firstUnit)
        out.writeInt(e.units)
        out.writeBoolean(e.fileLevel)
      }
    }
  }

  private def decodeDirectory(bytes: Array[Byte]): SegmentDirectory = {
    val in = new DataInputStream(new ByteArrayInputStream(bytes))
    // named arguments are evaluated in the order written: the order of the fields in the file
    val files = IndexedSeq.fill(in.readInt()) {
      IndexedFile(in.readUTF(), FileIdentity(in.readLong(), in.readLong(), in.readUTF(), in.readLong()),
        rowGroups = in.readInt(), legacyCalendar = in.readBoolean(),
        midpoints = Some(in.readInt()).filter(_ >= 0).map(n => IndexedSeq.fill(n)(in.readLong())))
    }
    val columns = IndexedSeq.fill(in.readInt()) {
      val name = in.readUTF()
      val numBlocks = in.readInt()
      val numUnits = in.readInt()
      val offset = in.readLong()
      val fpp = in.readDouble()
      val crcs = IndexedSeq.fill(numBlocks)(in.readInt())
      val shapes = IndexedSeq.fill(in.readInt())(Shape(in.readUTF(), in.readBoolean(), in.readUTF()))
      val entries = IndexedSeq.fill(files.size) {
        val index = in.readInt()
        if (index < 0 || index >= shapes.size) throw new IOException(s"an entry of column $name has no shape $index")
        val shape = shapes(index)
        ColumnEntry(shape.fileColumn, shape.ambiguousCase, shape.primitiveType, in.readInt(), in.readInt(),
          in.readBoolean(), index)
      }
      entries.foreach { e =>
        if (e.units < 0 || e.firstUnit < 0 || e.firstUnit.toLong + e.units > numUnits) {
          throw new IOException(s"an entry of column $name points outside its $numUnits units")
        }
      }
      SegmentColumn(name, numBlocks, numUnits, offset, crcs, fpp, shapes, entries)
    }
    SegmentDirectory(files, columns)
  }

  private def writeStrings(out: DataOutputStream, values: Seq[String]): Unit = {
    out.writeInt(values.size)
    values.foreach(out.writeUTF)
  }

  private def readStrings(in: DataInputStream): Seq[String] = Seq.fill(in.readInt())(in.readUTF())

  private def encoded(write: DataOutputStream => Unit): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    write(out)
    out.flush()
    bytes.toByteArray
  }

  private def crc(bytes: Array[Byte], length: Int): Int = {
    val c = new CRC32()
    c.update(bytes, 0, length)
    c.getValue.toInt
  }

  private def withCrc(bytes: Array[Byte]): Array[Byte] = {
    val out = java.util.Arrays.copyOf(bytes, bytes.length + 4)
    java.nio.ByteBuffer.wrap(out, bytes.length, 4).putInt(crc(bytes, bytes.length))
    out
  }

  /** `bytes` without their trailing CRC32, which must match. */
  private def checkedBytes(bytes: Array[Byte], what: String): Array[Byte] = {
    if (bytes.length < 4) throw new IOException(s"$what is truncated")
    val body = bytes.length - 4
    if (java.nio.ByteBuffer.wrap(bytes, body, 4).getInt != crc(bytes, body))
      throw new IOException(s"$what fails its checksum")
    java.util.Arrays.copyOf(bytes, body)
  }
}
