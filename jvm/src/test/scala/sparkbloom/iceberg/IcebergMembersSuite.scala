// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.iceberg

import java.io.File
import java.net.URLClassLoader

import scala.io.Source

import org.scalatest.funsuite.AnyFunSuite

/**
 * The canary of each Iceberg release sparkbloom supports: every member of Iceberg's classes
 * it reaches by reflection is in the line's Iceberg Spark runtime jar (dev/spark-lines names
 * the release, dev/iceberg-jars fetches it into .cache/iceberg). A release that moves one
 * makes sparkbloom read Iceberg scans whole; this says which, before a user's scan does.
 * Lines without an Iceberg release have no test here.
 */
class IcebergMembersSuite extends AnyFunSuite {

  /** The checkout: the forked JVM runs in target/spark<line>, so walk up to build.sbt. */
  private lazy val root: File = Iterator.iterate(new File(".").getAbsoluteFile)(_.getParentFile)
    .takeWhile(_ != null).find(d => new File(d, "build.sbt").isFile).getOrElse(fail("no build.sbt above the test"))

  private val line = org.apache.spark.SPARK_VERSION.split("[.-]").take(2).mkString(".")

  /** This line's Iceberg release in dev/spark-lines, if it has one. */
  private val release: Option[String] = {
    val table = Iterator.iterate(new File(".").getAbsoluteFile)(_.getParentFile).takeWhile(_ != null)
      .map(new File(_, "dev/spark-lines")).find(_.isFile)
    table.flatMap { f =>
      val source = Source.fromFile(f, "UTF-8")
      try source.getLines().map(_.trim.split("\\s+")).find(r => r.headOption.contains(line)).flatMap(_.lift(5))
      finally source.close()
    }.filter(_ != "-")
  }

  for (iceberg <- release) {
    test(s"every member sparkbloom reaches is in Iceberg $iceberg's Spark runtime for Spark $line") {
      val jars = Option(new File(root, s".cache/iceberg/$line/jars").listFiles()).toSeq.flatten
        .filter(_.getName.endsWith(".jar"))
      assert(jars.size == 1,
        s"Iceberg's runtime jar for Spark $line is not in .cache/iceberg: run dev/iceberg-jars $line")
      assert(jars.head.getName.contains(s"-$iceberg.jar"), jars.head.getName)
      val loader = new URLClassLoader(Array(jars.head.toURI.toURL), getClass.getClassLoader)
      try {
        assert(IcebergTasks.unreachable(getClass.getClassLoader).nonEmpty, "Iceberg is on the test class path itself")
        assert(IcebergTasks.unreachable(loader).isEmpty)
      } finally loader.close()
    }
  }
}
