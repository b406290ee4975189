// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, File}
import java.nio.{ByteBuffer, ByteOrder}
import java.nio.file.Files

import org.apache.parquet.format.{FileMetaData, Util}

/**
 * Rewrites the Thrift footer of a plaintext Parquet file in place, for tests that need
 * footers real writers produce only sometimes (a dictionary page offset of 0, padded row
 * group sizes, missing key-value metadata). Data pages and filters stay where they are.
 */
object ParquetFooters {

  def rewrite(file: File)(edit: FileMetaData => Unit): Unit = {
    val bytes = Files.readAllBytes(file.toPath)
    val footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt
    val footerStart = bytes.length - 8 - footerLength
    val meta = Util.readFileMetaData(new ByteArrayInputStream(bytes, footerStart, footerLength))
    edit(meta)
    val footer = new ByteArrayOutputStream()
    Util.writeFileMetaData(meta, footer)
    val out = new ByteArrayOutputStream()
    out.write(bytes, 0, footerStart)
    footer.writeTo(out)
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size).array())
    out.write("PAR1".getBytes("US-ASCII"))
    Files.write(file.toPath, out.toByteArray)
    new File(file.getParent, "." + file.getName + ".crc").delete()
  }
}
