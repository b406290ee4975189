// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.scalatest.exceptions.TestFailedException
import org.scalatest.funsuite.AnyFunSuite

/**
 * sparkbloom's packages form layers: no package depends on a package that depends back on it,
 * directly or through others. From the bottom: the filter (`sbbf`, which depends on nothing);
 * the settings (`sparkbloom.settings`, with its bridge `org.apache.spark.sql.sparkbloom`) and
 * the error (`sparkbloom.errors`); `shims`, `runtime`, `warnings`, `hashing`, `predicate`;
 * `write`, `read`; `index`; `catalyst`; the helpers behind the SQL functions
 * (`sparkbloom.commands`); and on top the root package, which holds only the extension and
 * the facade.
 *
 * The graph is read from the main sources of every Spark line (`jvm/src/main/scala` and each
 * `jvm/src/main/spark-*`): a file belongs to the package its `package` clauses name, and
 * refers to another package by an import or a qualified name (`sparkbloom.read.X`,
 * `import sparkbloom.{read, write}`, `org.apache.spark.sql.sparkbloom.X`), or, where its
 * clauses open an enclosing package (`package sparkbloom` then `package object catalyst`), by
 * a bare name of that package's subpackages or top-level types. Comments and string
 * literals are not read; names inside `${...}` of an interpolated string are not seen.
 */
class PackageLayersSuite extends AnyFunSuite {
  import PackageLayersSuite._

  /** The checkout: the forked JVM runs in target/spark<line>, so walk up to build.sbt. */
  private lazy val root: File = {
    val start = new File(".").getAbsoluteFile
    Iterator.iterate(start)(_.getParentFile).takeWhile(_ != null).find(d => new File(d, "build.sbt").isFile)
      .getOrElse(fail(s"no build.sbt above $start"))
  }

  private lazy val graph: Graph = {
    val main = new File(root, "jvm/src/main")
    val dirs =
      main.listFiles().toSeq.filter(d => d.isDirectory && (d.getName == "scala" || d.getName.startsWith("spark-")))
    val files =
      dirs.flatMap(d => Files.walk(d.toPath).iterator().asScala.map(_.toFile).filter(_.getName.endsWith(".scala")))
    assert(files.size > 50, s"found only ${files.size} Scala sources under $main")
    dependencies(files.sortBy(_.getPath).map { f =>
      root.toPath.relativize(f.toPath).toString -> new String(Files.readAllBytes(f.toPath), StandardCharsets.UTF_8)
    })
  }

  private def dependents(pkg: String): Set[String] = graph.collect { case (from, to) if to.contains(pkg) => from }.toSet

  test("no package depends on a package that depends back on it") {
    assert(graph.keySet.contains("sparkbloom.read") && graph("sparkbloom.read").nonEmpty, graph)
    assertNoCycle(graph)
  }

  test("the root package holds only the extension and the facade, and no package depends on it") {
    val sources = new File(root, "jvm/src/main/scala/sparkbloom").listFiles().toSeq.filter(_.getName.endsWith(".scala"))
    assert(sources.map(_.getName).toSet == Set("SparkBloom.scala", "SparkBloomExtensions.scala"))
    assert(dependents("sparkbloom").isEmpty,
      s"packages that depend on the root package: ${graph.filter(_._2.contains("sparkbloom"))}")
  }

  test("the settings and the error sit below every other package, the helpers above all but the root") {
    assert(graph.getOrElse("sparkbloom.errors", Map.empty).isEmpty, graph.get("sparkbloom.errors"))
    // the settings' limits on filter sizes are the filter's own (sbbf depends on no package)
    assert(graph("sparkbloom.settings").keySet.subsetOf(Set(Bridge, "sparkbloom.sbbf")), graph("sparkbloom.settings"))
    assert(graph.getOrElse(Bridge, Map.empty).isEmpty, graph.get(Bridge))
    assert(graph.getOrElse("sparkbloom.sbbf", Map.empty).isEmpty, graph.get("sparkbloom.sbbf"))
    assert(dependents("sparkbloom.commands") == Set("sparkbloom"))
    assert(Set("sparkbloom.catalyst", "sparkbloom.index", "sparkbloom.write", "sparkbloom.read")
        .subsetOf(graph("sparkbloom.commands").keySet), graph("sparkbloom.commands"))
  }

  test("the table formats stay in their own packages: shared code names none, and none depends on them") {
    val formats = Set("sparkbloom.delta", "sparkbloom.iceberg")
    formats.foreach(f => assert(graph.contains(f), s"no package $f"))
    formats.foreach(f => assert(dependents(f).isEmpty, s"packages that depend on $f: ${dependents(f)}"))
    val main = new File(root, "jvm/src/main")
    val shared = Files.walk(main.toPath).iterator().asScala.map(_.toFile)
      .filter(f => f.getName.endsWith(".scala") && !formats.exists(p => f.getPath.contains(p.replace('.', '/') + "/")))
      .toSeq
    assert(shared.size > 50, shared.size)
    val naming = shared.flatMap { f =>
      // code and strings, not comments: a class named in a string is a format recognized by name
      val code = withoutComments(new String(Files.readAllBytes(f.toPath), StandardCharsets.UTF_8))
      FormatNames.findAllIn(code).map(n => s"${root.toPath.relativize(f.toPath)}: $n")
    }
    assert(naming.isEmpty, s"shared sources that name a table format:\n${naming.mkString("\n")}")
  }

  test("the cycle finder names a cycle of a small graph, and finds none where there is none") {
    val cyclic = Map("a" -> Set("b"), "b" -> Set("c", "d"), "c" -> Set("a"), "d" -> Set.empty[String], "e" -> Set("a"))
    assert(findCycle(cyclic).contains(Seq("a", "b", "c", "a")))
    assert(findCycle(Map("a" -> Set("a"))).contains(Seq("a", "a")))
    assert(findCycle(cyclic.updated("c", Set("d"))).isEmpty)
    assert(findCycle(Map.empty[String, Set[String]]).isEmpty)
  }

  test("a cycle made of sources fails the check, naming the packages and the files") {
    val sources = Seq(
      "a/Top.scala" -> """package sparkbloom
                         |import sparkbloom.low.Low
                         |class Top""".stripMargin,
      "a/low/Low.scala" -> """package sparkbloom.low
                             |import sparkbloom.{mid => m}
                             |object Low""".stripMargin,
      "a/mid/Mid.scala" -> """package sparkbloom.mid
                             |// sparkbloom.Top in a comment is no dependency
                             |object Mid { val s = "sparkbloom.Top"; def f: Any = sparkbloom.Top }""".stripMargin,
      "a/mid/package.scala" -> """package sparkbloom
                                 |package object mid { def g: Any = base.Base }""".stripMargin,
      "a/base/Base.scala" -> "package sparkbloom.base\nobject Base"
    )
    val g = dependencies(sources)
    assert(g == Map("sparkbloom" -> Map("sparkbloom.low" -> Seq("a/Top.scala")),
      "sparkbloom.low" -> Map("sparkbloom.mid" -> Seq("a/low/Low.scala")),
      "sparkbloom.mid" -> Map("sparkbloom" -> Seq("a/mid/Mid.scala"), "sparkbloom.base" -> Seq("a/mid/package.scala"))))
    val failure = intercept[TestFailedException](assertNoCycle(g))
    assert(failure.getMessage.contains("sparkbloom -> sparkbloom.low -> sparkbloom.mid -> sparkbloom"),
      failure.getMessage)
    assert(failure.getMessage.contains("sparkbloom.mid -> sparkbloom: a/mid/Mid.scala"), failure.getMessage)
    // without the back edge there is none
    assertNoCycle(dependencies(sources.filterNot(_._1 == "a/mid/Mid.scala")))
  }

  private def assertNoCycle(g: Graph): Unit =
    findCycle(g.map { case (k, v) => k -> v.keySet }).foreach { cycle =>
      val edges = cycle.zip(cycle.tail).map { case (a, b) => s"  $a -> $b: ${g(a)(b).mkString(", ")}" }
      fail(s"package cycle: ${cycle.mkString(" -> ")}\n${edges.mkString("\n")}")
    }
}

object PackageLayersSuite {

  /** Package -> the packages it depends on -> the files (relative paths) that make it depend. */
  type Graph = Map[String, Map[String, Seq[String]]]

  /** The one file in Spark's namespace (`ConfigBuilder` is `private[spark]`): part of the settings. */
  val Bridge = "org.apache.spark.sql.sparkbloom"

  private val PackageClause = """(?m)^\s*package\s+(?!object\b)([\w.]+)""".r
  private val PackageObject = """(?m)^\s*package\s+object\s+(\w+)""".r
  private val TopLevelType =
    """(?m)^(?:private\[\w+\]\s+|final\s+|sealed\s+|abstract\s+|case\s+|implicit\s+)*(?:class|object|trait|type)\s+(\w+)""".r
  private val Qualified =
    """(?<![\w.])(?:_root_\.)?((?:org\.apache\.spark\.sql\.)?sparkbloom(?:\.\w+)*)(\.\{[^}]*\})?""".r

  /** The graph of packages made by `sources` (path -> text); a package refers to itself with no edge. */
  def dependencies(sources: Seq[(String, String)]): Graph = {
    val parsed = sources.map { case (path, text) =>
      val code = withoutCommentsAndStrings(text)
      val clauses = PackageClause.findAllMatchIn(code).map(_.group(1)).toSeq
      val pkgObject = PackageObject.findFirstMatchIn(code).map(_.group(1)).toSeq
      val opened = clauses.indices.map(i => clauses.take(i + 1).mkString("."))
      val pkg = (clauses ++ pkgObject).mkString(".")
      (path, code, pkg, opened)
    }
    val packages = parsed.map(_._3).toSet
    val topLevel = parsed.groupBy(_._3).map { case (pkg, files) =>
      pkg -> files.flatMap(f => TopLevelType.findAllMatchIn(f._2).map(_.group(1))).toSet
    }

    /** The longest declared package that `name` is or lies in. */
    def owner(name: String): Option[String] =
      Iterator.iterate(name)(n => n.take(math.max(n.lastIndexOf('.'), 0))).takeWhile(_.nonEmpty).find(packages)
    val edges = parsed.flatMap { case (path, code, pkg, opened) =>
      val body = PackageClause.replaceAllIn(PackageObject.replaceAllIn(code, ""), "")
      // a qualified name, or `import a.{b, c => d, _}`: each selector (`_` stands for `a` itself)
      val names = Qualified.findAllMatchIn(body).filter(m => m.group(1).contains("sparkbloom.") || m.group(2) != null)
      val qualified = names.flatMap { m =>
        val selectors = Option(m.group(2)).fold(Seq(""))(_.drop(2).dropRight(1).split(',').toSeq
            .map(_.trim.takeWhile(c => c.isLetterOrDigit || c == '$')))
        selectors.flatMap(s => owner(if (s.isEmpty) m.group(1) else s"${m.group(1)}.$s"))
      }
      // where the clauses open an enclosing package, its subpackages and types are in scope by bare name
      val relative = opened.filter(_ != pkg).flatMap { open =>
        val subpackages = packages.filter(p => p.startsWith(s"$open.") && !p.drop(open.length + 1).contains('.'))
        def bare(name: String, after: String) = s"""(?<![\\w.])$name$after""".r.findFirstIn(body).isDefined
        subpackages.filter(p => bare(p.drop(open.length + 1), "\\.")) ++
          Some(open).filter(o => topLevel.getOrElse(o, Set.empty).exists(t => bare(t, "\\b")))
      }
      (qualified ++ relative).filter(_ != pkg).toSeq.distinct.map(to => (pkg, to, path))
    }
    edges.groupBy(_._1).map { case (from, es) =>
      from -> es.groupBy(_._2).map { case (to, e) => to -> e.map(_._3).distinct }
    }
  }

  /** One cycle of `g` (its first node repeated last), the first in sorted order; None if g has none. */
  def findCycle(g: Map[String, Set[String]]): Option[Seq[String]] = {
    val done = scala.collection.mutable.Set.empty[String]
    def visit(node: String, path: List[String]): Option[Seq[String]] =
      if (path.contains(node)) Some((node :: path.takeWhile(_ != node) ::: List(node)).reverse)
      else if (done(node)) None
      else {
        val found = g.getOrElse(node, Set.empty).toSeq.sorted.iterator.map(visit(_, node :: path)).collectFirst {
          case Some(c) => c
        }
        done += node
        found
      }
    g.keys.toSeq.sorted.iterator.map(visit(_, Nil)).collectFirst { case Some(c) => c }
  }

  /**
   * A table format's classes, packages, names or file conventions, as code or strings would
   * name them; not Parquet's delta encodings.
   */
  val FormatNames: scala.util.matching.Regex =
    """(?i)\b(?!delta_(?:binary|byte|length)_)\w*(?:delta|iceberg)\w*|metadata\.json""".r

  /** Scala source with its comments (nested too) blanked, its literals kept. */
  def withoutComments(src: String): String =
    src.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("(?m)//.*$", "")

  /** Scala source with its comments (nested too) blanked and its string and character literals emptied. */
  def withoutCommentsAndStrings(src: String): String = {
    val out = new StringBuilder
    var i = 0
    val n = src.length
    while (i < n) {
      if (src.startsWith("//", i)) {
        while (i < n && src(i) != '\n') i += 1
      } else if (src.startsWith("/*", i)) {
        var depth = 0
        do {
          if (src.startsWith("/*", i)) { depth += 1; i += 2 }
          else if (src.startsWith("*/", i)) { depth -= 1; i += 2 }
          else { if (src(i) == '\n') out += '\n'; i += 1 }
        } while (depth > 0 && i < n)
        out += ' '
      } else if (src.startsWith("\"\"\"", i)) {
        val end = src.indexOf("\"\"\"", i + 3)
        i = if (end < 0) n else { var e = end + 3; while (e < n && src(e) == '"') e += 1; e }
        out ++= "\"\""
      } else if (src(i) == '"') {
        i += 1
        while (i < n && src(i) != '"' && src(i) != '\n') i += (if (src(i) == '\\') 2 else 1)
        i += 1
        out ++= "\"\""
      } else if (src(i) == '\'' && i + 2 < n && src(i + 2) == '\'' && src(i + 1) != '\\') {
        i += 3
        out ++= "' '"
      } else if (src(i) == '\'' && i + 1 < n && src(i + 1) == '\\') {
        val end = src.indexOf('\'', i + 3)
        i = if (end < 0) n else end + 1
        out ++= "' '"
      } else {
        out += src(i)
        i += 1
      }
    }
    out.toString
  }
}
