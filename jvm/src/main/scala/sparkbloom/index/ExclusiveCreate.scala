// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.index

import java.io.IOException
import java.nio.file.{FileAlreadyExistsException, FileSystemException, Files, Paths}

import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * Creates a small file whole, unless something already has its name: the commit of an index
 * version, which exactly one of several concurrent writers may make. A reader sees the whole
 * file or none. How depends on what the store guarantees:
 *
 *  - a local disk: the bytes written aside, then a hard link to the name (`link(2)` fails on
 *    an existing name; a rename would replace it);
 *  - an object store whose Hadoop connector declares conditional creation (S3A from Hadoop
 *    3.4.2, HADOOP-19256): one PUT with `If-None-Match: *`, which the store refuses when the
 *    name exists;
 *  - any other store: the bytes written aside, then a rename, which HDFS refuses onto an
 *    existing name. Where the rename replaces (an object store without conditional writes:
 *    a copy), two writers at the same instant may both succeed (docs/table-index.md).
 */
private[sparkbloom] object ExclusiveCreate {

  /** The path capability (and `createFile` option) of a connector that creates conditionally. */
  val ConditionalCreate = "fs.option.create.conditional.overwrite"

  /** Writes `bytes` at `target` if nothing is there: true if this call created it, false if it exists. */
  def apply(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean =
    if (isLocal(fs)) linked(fs, target, bytes)
    else if (conditional(fs, target.getParent)) conditionallyPut(fs, target, bytes)
    else renamed(fs, target, bytes)

  private def isLocal(fs: FileSystem): Boolean = fs.getUri.getScheme == "file"

  private def conditional(fs: FileSystem, dir: Path): Boolean =
    try fs.hasPathCapability(dir, ConditionalCreate)
    catch { case NonFatal(_) => false }

  private def pendingNext(target: Path): Path =
    new Path(target.getParent, s"${IndexLayout.PendingPrefix}${java.util.UUID.randomUUID()}")

  private def linked(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean = {
    val file = Paths.get(fs.makeQualified(target).toUri)
    val pending = Paths.get(fs.makeQualified(pendingNext(target)).toUri)
    Files.write(pending, bytes)
    try {
      Files.createLink(file, pending)
      true
    } catch {
      case _: FileAlreadyExistsException => false
      // a file system without hard links (some network mounts): the rename road; any other
      // failure is one, not a reason to risk replacing another writer's version
      case e: FileSystemException
          if Option(e.getReason).exists(r =>
            r.contains("not supported") ||
              r.contains("not permitted")) =>
        renamed(fs, target, bytes)
      case _: UnsupportedOperationException => renamed(fs, target, bytes)
    } finally Files.deleteIfExists(pending)
  }

  private def conditionallyPut(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean = {
    // overwrite(true): no HEAD before the PUT; the condition is what refuses an existing name
    val out = fs.createFile(target).overwrite(true).must(ConditionalCreate, true).build()
    try out.write(bytes)
    catch {
      case NonFatal(e) =>
        // never closed: a close would upload what was buffered, half a manifest
        out match {
          case abortable: org.apache.hadoop.fs.Abortable =>
            try abortable.abort()
            catch { case NonFatal(_) => }
          case _ =>
        }
        throw e
    }
    try {
      out.close()
      true
    } catch {
      // the store's refusal (412) surfaces as a connector-specific exception from close(): the
      // name is there now, whoever put it
      case e: IOException => if (fs.exists(target)) false else throw e
    }
  }

  private def renamed(fs: FileSystem, target: Path, bytes: Array[Byte]): Boolean = {
    val pending = pendingNext(target)
    val stream = fs.create(pending, false)
    try stream.write(bytes)
    finally stream.close()
    val created =
      try !fs.exists(target) && fs.rename(pending, target)
      catch { case _: org.apache.hadoop.fs.FileAlreadyExistsException => false }
    if (!created) fs.delete(pending, false)
    created
  }
}
