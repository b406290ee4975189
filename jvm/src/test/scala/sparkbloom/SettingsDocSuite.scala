// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.collection.JavaConverters._

import org.apache.spark.sql.sparkbloom.TypedSettings.Setting
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.settings.SparkBloomConf

/**
 * docs/settings.md holds the one table of `spark.sparkbloom.*` settings. It must name every
 * typed config entry of [[SparkBloomConf]] once, with its default, and name nothing else; and
 * no other document may carry a table of them.
 */
class SettingsDocSuite extends AnyFunSuite {

  /** The checkout: the forked JVM runs in target/spark<line>, so walk up to build.sbt. */
  private lazy val root: File = {
    val start = new File(".").getAbsoluteFile
    Iterator.iterate(start)(_.getParentFile).takeWhile(_ != null).find(d => new File(d, "build.sbt").isFile)
      .getOrElse(fail(s"no build.sbt above $start"))
  }

  private def lines(file: File): Seq[String] =
    Files.readAllLines(file.toPath, StandardCharsets.UTF_8).asScala.toSeq

  private val SettingRow = """^\|\s*`(spark\.sparkbloom\.[^`]+)`\s*\|([^|]*)\|.*$""".r
  private val Quoted = """`([^`]*)`""".r

  /** The table's rows: key and the first quoted value of the default column. */
  private lazy val documented: Seq[(String, String)] =
    lines(new File(root, "docs/settings.md")).collect { case SettingRow(key, default) =>
      key -> Quoted.findFirstMatchIn(default).map(_.group(1)).getOrElse(default.trim)
    }

  /** Every `Setting` value of SparkBloomConf, found by reflection so a new one cannot be left out. */
  private lazy val declared: Map[String, Any] =
    SparkBloomConf.getClass.getMethods.toSeq
      .filter(m => m.getParameterCount == 0 && classOf[Setting[_]].isAssignableFrom(m.getReturnType))
      .map(m => m.invoke(SparkBloomConf).asInstanceOf[Setting[_]])
      .map(s => s.key -> (s.default: Any)).toMap

  private def sameDefault(documented: String, default: Any): Boolean =
    scala.util.Try(default match {
      case d: Double => documented.toDouble == d
      case n: Int => documented.toLong == n.toLong
      case n: Long => documented.toLong == n
      case b: Boolean => documented.toBoolean == b
      case other => documented == other.toString
    }).getOrElse(false)

  test("the typed config entries are found") {
    assert(declared.size >= 14, declared.keys)
    assert(declared("spark.sparkbloom.write.fpp") == 0.0001)
  }

  test("docs/settings.md names every setting once, and only settings that exist") {
    val keys = documented.map(_._1)
    val twice = keys.groupBy(identity).collect { case (k, all) if all.size > 1 => k }
    assert(twice.isEmpty, s"documented more than once in docs/settings.md: ${twice.mkString(", ")}")
    val missing = declared.keySet -- keys
    assert(missing.isEmpty, s"settings missing from docs/settings.md: ${missing.toSeq.sorted.mkString(", ")}")
    val unknown = keys.toSet -- declared.keySet
    assert(unknown.isEmpty,
      s"docs/settings.md names settings that do not exist: ${unknown.toSeq.sorted.mkString(", ")}")
  }

  test("docs/settings.md gives every setting its real default") {
    val wrong = documented.collect {
      case (key, doc) if declared.contains(key) && !sameDefault(doc, declared(key)) =>
        s"$key: documented $doc, declared ${declared(key)}"
    }
    assert(wrong.isEmpty, wrong.mkString("; "))
  }

  test("no other document has a table of settings") {
    val docs = new File(root, "docs").listFiles().toSeq.filter(_.getName.endsWith(".md"))
      .filterNot(_.getName == "settings.md")
    val others = Seq(new File(root, "README.md"), new File(root, "bench/README.md"), new File(root, "python/README.md"))
      .filter(_.isFile) ++ docs
    val rows = for {
      file <- others
      line <- lines(file)
      if SettingRow.pattern.matcher(line).matches()
    } yield s"${root.toPath.relativize(file.toPath)}: $line"
    assert(rows.isEmpty, s"settings belong in docs/settings.md only:\n${rows.mkString("\n")}")
  }
}
