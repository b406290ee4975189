// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream, ObjectStreamClass}
import java.lang.reflect.{Method, Modifier}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.iceberg.{FileContent, FileFormat, FileScanTask, ScanTaskGroup, Schema, StructLike, Table}
import org.apache.iceberg.types.Type
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.connector.read.{InputPartition, Scan}
import org.apache.spark.sql.execution.datasources.PartitionDirectory

import sparkbloom.catalyst.{Candidates, JoinKeys, ListingPruner}
import sparkbloom.read.{FileOpener, PruningStats}

/**
 * An Iceberg batch scan's task list, pruned through the pair of methods Iceberg's own
 * runtime filtering uses: `tasks()` (whole data files, each with its delete files) and
 * `resetTasks(kept)`, which also drops the task groups planned from the old list. Both are
 * protected members of Iceberg's scan classes in every release sparkbloom supports
 * (1.11, 1.12), reached by reflection; the rest is Iceberg's public table API.
 *
 * Loaded only for scans [[IcebergScans]] has named as Iceberg's: it links to Iceberg's classes.
 */
private[sparkbloom] object IcebergTasks {

  /**
   * Drops the tasks of files that cannot match `filters` from `scan`; the decision, or None
   * where the scan reads anything but Parquet data files (a metadata table's rows, say).
   */
  def prune(session: SparkSession, scan: Scan, filters: Seq[Expression]): Option[PruningStats] = {
    val tasks = call(scan, member("tasks")).asInstanceOf[java.util.List[AnyRef]].asScala.toIndexedSeq
    val files = parquetDataFiles(tasks).getOrElse(return None)
    val pruner = prunerOf(session, scan)
    val kept = keptPaths(session, pruner, filters, files)
    if (kept.size < files.size) {
      val keptTasks = files.filter(t => kept(pathOf(t)))
      callWith(scan, Seq(member("resetTasks")), Seq(keptTasks.asJava))
      // read back what Spark will be handed: the task groups Iceberg plans from the new list
      val planned = scala.util.Try(plannedPaths(scan))
      if (!planned.toOption.contains(keptTasks.map(pathOf).toSet)) {
        callWith(scan, Seq(member("resetTasks")), Seq(files.asJava)) // Iceberg's own list again
        throw new IllegalStateException(s"its scan did not take the narrowed task list (read back: $planned)")
      }
    }
    pruner.decided(Nil, filters)
  }

  /** The data files of the task groups `scan` plans now, as Spark will be handed them. */
  private def plannedPaths(scan: Scan): Set[String] =
    call(scan, member("taskGroups")).asInstanceOf[java.util.List[ScanTaskGroup[_ <: AnyRef]]].asScala
      .flatMap(_.tasks.asScala).map { case t: FileScanTask => pathOf(t) }.toSet

  /**
   * The name of one of Iceberg's members sparkbloom reaches: the name itself, but where a test
   * stands for an Iceberg release that names it otherwise (the system property
   * `sparkbloom.test.iceberg.<use>`, read on every call).
   */
  private def member(name: String, use: String = ""): String =
    System.getProperty(s"sparkbloom.test.iceberg.${if (use.isEmpty) name else use}", name)

  /**
   * The input partitions each partition of a planned scan reads once the files that cannot
   * hold a row with one of a join's `keys` are left out, and what was decided; None where a
   * partition holds anything but Parquet data files. An input partition keeps its object
   * where all its files are kept, is left out where none is, and is otherwise a copy that
   * reads only the kept files' tasks ([[withTasks]]), each with its delete files.
   */
  def narrowedByKeys(session: SparkSession, scan: Scan, partitions: Seq[Seq[InputPartition]], keys: JoinKeys.Runtime)
      : Option[(IndexedSeq[Seq[InputPartition]], PruningStats)] = {
    val grouped = partitions.map(_.map { input =>
      val tasks = call(input, member("taskGroup")).asInstanceOf[ScanTaskGroup[_ <: AnyRef]].tasks.asScala.toSeq
      input -> parquetDataFiles(tasks.map(t => t: AnyRef)).getOrElse(return None)
    })
    val pruner = prunerOf(session, scan)
    pruner.useJoinKeys(keys)
    val files = grouped.flatten.flatMap(_._2).groupBy(pathOf).values.map(_.head).toIndexedSeq
    val kept = keptPaths(session, pruner, Nil, files)
    pruner.decided(Nil, Nil).map { stats =>
      val narrowed = grouped.map(_.flatMap { case (input, tasks) =>
        val keptTasks = tasks.filter(t => kept(pathOf(t)))
        if (keptTasks.size == tasks.size) Some(input)
        else if (keptTasks.isEmpty) None
        else Some(validated(withTasks(input, keptTasks), keptTasks))
      })
      (narrowed.toIndexedSeq, stats)
    }
  }

  /**
   * `copy`, once it is known to reach an executor as made: serialized as Spark ships it, it
   * must read exactly `tasks`. A copy that would not fails here, on the driver, where the
   * guard makes the scan read every partition as Iceberg planned it.
   */
  private def validated(copy: InputPartition, tasks: Seq[FileScanTask]): InputPartition = {
    val shipped = roundTrip(copy)
    val reads = call(shipped, member("taskGroup")).asInstanceOf[ScanTaskGroup[_ <: AnyRef]].tasks.asScala
      .map { case t: FileScanTask => pathOf(t) }
    if (reads.toSeq.sorted != tasks.map(pathOf).sorted)
      throw new IllegalStateException(s"a narrowed input partition would read ${reads.size} files, not ${tasks.size}")
    copy
  }

  /** `input` through Java serialization, its classes from its own class loader (Iceberg's runtime jar). */
  private def roundTrip(input: InputPartition): InputPartition = {
    val loader = input.getClass.getClassLoader
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(input)
    out.close()
    val in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)) {
      override def resolveClass(desc: ObjectStreamClass): Class[_] =
        try Class.forName(desc.getName, false, loader)
        catch { case _: ClassNotFoundException => super.resolveClass(desc) }
    }
    in.readObject().asInstanceOf[InputPartition]
  }

  /**
   * A copy of Iceberg's input partition that reads `tasks` (some of its task group's, with
   * the group's grouping key) and is otherwise the same: its table, schema and file IO are
   * the partition's own. Copied through Java serialization (Iceberg's input partitions are
   * Serializable), then field by field, transient ones too, but for the task group.
   */
  private def withTasks(input: InputPartition, tasks: Seq[FileScanTask]): InputPartition = {
    val group = call(input, member("taskGroup")).asInstanceOf[ScanTaskGroup[_ <: AnyRef]]
    val narrowedGroup = Class.forName("org.apache.iceberg.BaseScanTaskGroup", true, input.getClass.getClassLoader)
      .getConstructor(classOf[StructLike], classOf[java.util.Collection[_]])
      .newInstance(group.groupingKey, tasks.asJava)
    val copy = roundTrip(input)
    input.getClass.getDeclaredFields.filterNot(f => Modifier.isStatic(f.getModifiers)).foreach { field =>
      field.setAccessible(true)
      field.set(copy,
        if (field.getName == member("taskGroup", use = "taskGroupField")) narrowedGroup else field.get(input))
    }
    copy
  }

  /** The tasks as Parquet data file tasks, if they all are. */
  private def parquetDataFiles(tasks: Seq[AnyRef]): Option[IndexedSeq[FileScanTask]] = {
    val files = tasks.collect {
      case t: FileScanTask
          if !t.isDataTask && t.file.content == FileContent.DATA && t.file.format == FileFormat.PARQUET =>
        t
    }
    if (files.size == tasks.size) Some(files.toIndexedSeq) else None
  }

  private def pathOf(task: FileScanTask): String = new Path(task.file.location).toString

  /** A judge of the files of `scan`, by field id in the columns as it reads them (its snapshot's schema, projected). */
  private def prunerOf(session: SparkSession, scan: Scan): ListingPruner = {
    val schema = call(scan, "projection", "expectedSchema").asInstanceOf[Schema]
    // Iceberg reads dates and timestamps as stored, never rebased from the hybrid calendar
    val options = Map(ListingPruner.RebaseModeOption -> "CORRECTED")
    val table = call(scan, "table").asInstanceOf[Table]
    val candidates = Candidates(options, IcebergColumns(fieldIds(schema)), IcebergFileOpener(table.io),
      indexRoots = () => Seq(new Path(table.location)), partitionColumns = () => Nil)
    new ListingPruner(session, candidates, selectRowGroups = false)
  }

  /** The files of Iceberg's `SparkTable` opened through the table's own IO. */
  def openerOf(sparkTable: AnyRef): FileOpener = IcebergFileOpener(icebergTable(sparkTable).io)

  /** Where the table of Iceberg's `SparkTable` is: its table index's root. */
  def location(sparkTable: AnyRef): String = icebergTable(sparkTable).location

  /**
   * The Parquet data files of the current snapshot of Iceberg's `SparkTable`, each
   * (location, length), as Iceberg plans them (through the table's `FileIO`).
   */
  def currentParquetFiles(sparkTable: AnyRef): IndexedSeq[(String, Long)] = {
    val planned = icebergTable(sparkTable).newScan().planFiles()
    try {
      planned.asScala.map(_.file).filter(f => f.content == FileContent.DATA && f.format == FileFormat.PARQUET)
        .map(f => (f.location, f.fileSizeInBytes)).toIndexedSeq.distinct
    } finally planned.close()
  }

  /** The field id of each primitive column of the current schema of Iceberg's `SparkTable`, by its dotted path. */
  def currentFieldIds(sparkTable: AnyRef): Map[String, Int] =
    fieldIds(icebergTable(sparkTable).schema).map { case (path, id) => path.mkString(".") -> id }

  private def icebergTable(sparkTable: AnyRef): Table = call(sparkTable, "table").asInstanceOf[Table]

  /** Of `files`, the paths ([[pathOf]]) of those `pruner` keeps. */
  private def keptPaths(session: SparkSession, pruner: ListingPruner, filters: Seq[Expression],
      files: Seq[FileScanTask]): Set[String] = {
    val defaultFs = FileSystem.get(session.sessionState.newHadoopConf())
    val statuses = files.map(t => statusOf(t.file.location, t.file.fileSizeInBytes, defaultFs))
    // every task path each status stands for: two spellings of one location qualify alike
    val taskPaths = statuses.map(_.getPath.toString).zip(files.map(pathOf)).groupBy(_._1)
      .map { case (status, paths) => status -> paths.map(_._2) }
    pruner.keptListing(Nil, filters)(Seq(PartitionDirectory(InternalRow.empty, statuses.toArray)))
      .flatMap(_.files.flatMap(f => taskPaths(f.fileStatus.getPath.toString))).toSet
  }

  /**
   * A data file as sparkbloom lists it: its length, and its location qualified as the table
   * index names files (Iceberg may write locations without a scheme, on the default file system).
   */
  def statusOf(location: String, length: Long, defaultFs: FileSystem): FileStatus = {
    val path = new Path(location)
    new FileStatus(length, false, 1, 0, 0, if (path.toUri.getScheme == null) defaultFs.makeQualified(path) else path)
  }

  /** Each primitive column's field id by its path of names, through structs. */
  private def fieldIds(schema: Schema): Map[Seq[String], Int] = {
    def walk(prefix: Seq[String], t: Type): Seq[(Seq[String], Int)] =
      t.asStructType.fields.asScala.toSeq.flatMap { f =>
        val path = prefix :+ f.name
        if (f.`type`.isPrimitiveType) Seq(path -> f.fieldId)
        else if (f.`type`.isStructType) walk(path, f.`type`)
        else Nil
      }
    walk(Nil, schema.asStruct).toMap
  }

  private def call(target: AnyRef, names: String*): AnyRef = callWith(target, names, Nil)

  /** The first of `names` that `target`'s class or a superclass declares with as many parameters as `args`. */
  private def callWith(target: AnyRef, names: Seq[String], args: Seq[AnyRef]): AnyRef = {
    val method = methodOf(target.getClass, names, args.size)
      .getOrElse(throw new NoSuchMethodException(s"${target.getClass.getName}: none of ${names.mkString(", ")}"))
    method.setAccessible(true)
    method.invoke(target, args: _*)
  }

  private def methodOf(c: Class[_], names: Seq[String], parameters: Int): Option[Method] = {
    val declared = Iterator.iterate[Class[_]](c)(_.getSuperclass).takeWhile(_ != null).flatMap(_.getDeclaredMethods)
      .toSeq
    names.flatMap(n => declared.find(m => m.getName == n && m.getParameterCount == parameters)).headOption
  }

  private val Source = "org.apache.iceberg.spark.source."

  /** Each method of Iceberg's classes reached by reflection: its class, its names (any one), its parameter count. */
  private val ReachedMethods: Seq[(String, Seq[String], Int)] = Seq(
    (s"${Source}SparkBatchQueryScan", Seq("tasks"), 0), (s"${Source}SparkBatchQueryScan", Seq("resetTasks"), 1),
    (s"${Source}SparkBatchQueryScan", Seq("taskGroups"), 0),
    (s"${Source}SparkBatchQueryScan", Seq("projection", "expectedSchema"), 0),
    (s"${Source}SparkBatchQueryScan", Seq("table"), 0), (s"${Source}SparkInputPartition", Seq("taskGroup"), 0),
    (s"${Source}SparkTable", Seq("table"), 0))

  /**
   * What sparkbloom reaches by reflection that the Iceberg in `loader` lacks: each method, the
   * input partition's task group field, and the task group's constructor; empty where every
   * one is there. A test runs it against each Iceberg runtime jar sparkbloom supports.
   */
  def unreachable(loader: ClassLoader): Seq[String] = {
    // a class whose members' types cannot be loaded is as missing as one that is not there
    def linked[T](body: => Option[T]): Option[T] =
      try body
      catch { case _: ReflectiveOperationException | _: LinkageError => None }
    def load(name: String): Option[Class[_]] = linked(Some(Class.forName(name, false, loader)))
    val methods = ReachedMethods.collect {
      case (owner, names, parameters) if linked(load(owner).flatMap(methodOf(_, names, parameters))).isEmpty =>
        s"$owner.${names.mkString("|")}/$parameters"
    }
    val partition = s"${Source}SparkInputPartition"
    val field = Seq(s"$partition#taskGroup")
      .filter(_ => linked(load(partition).filter(_.getDeclaredFields.exists(_.getName == "taskGroup"))).isEmpty)
    val group = Seq("org.apache.iceberg.BaseScanTaskGroup").filter { name =>
      linked(for (c <- load(name); key <- load("org.apache.iceberg.StructLike"))
          yield c.getConstructor(key, classOf[java.util.Collection[_]])).isEmpty
    }
    methods ++ field ++ group
  }
}
