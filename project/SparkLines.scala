// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
import sbt._

/** A Spark line sparkbloom builds a jar for, as dev/spark-lines lists it. */
case class SparkLine(line: String, spark: String, scala: String) {
  val id: String = "spark" + line.replace(".", "")
  val binaryScala: String = scala.split('.').take(2).mkString(".")

  /** Overrides where the line's Spark jars are, e.g. SPARKBLOOM_SPARK_JARS_3_5. */
  val envJars: String = "SPARKBLOOM_SPARK_JARS_" + line.replace('.', '_')

  private def version(v: String): Seq[Int] = v.split('.').toSeq.map(_.toInt)
  private def compare(a: Seq[Int], b: Seq[Int]): Int =
    a.zipAll(b, 0, 0).map { case (x, y) => x.compare(y) }.find(_ != 0).getOrElse(0)

  /** Whether a shim directory named spark-<first>[-<last>] serves this line. */
  def servedBy(dir: File): Boolean = {
    val bounds = dir.getName.stripPrefix("spark-").split("-").toSeq.map(version)
    compare(version(line), bounds.head) >= 0 && compare(version(line), bounds.last) <= 0
  }
}

object SparkLines {
  def read(table: File): Seq[SparkLine] =
    IO.readLines(table).map(_.trim).filterNot(l => l.isEmpty || l.startsWith("#"))
      .map(_.split("\\s+")).map(f => SparkLine(f(0), f(1), f(2)))

  /** The line's Spark jars, without the Scala library sbt brings itself: those of the line's
   *  pyspark, in its venv (dev/setup-venv), or in .venv for the newest line. */
  def jars(base: File, line: SparkLine): Seq[File] = {
    val dir = sparkJarsDir(base, line)
    val found = (dir * "*.jar").get.filterNot(_.getName.matches("scala-(library|reflect|compiler)-.*"))
    if (found.isEmpty) sys.error(s"No Spark ${line.line} jars in $dir: run dev/setup first.")
    found
  }

  private def sparkJarsDir(base: File, line: SparkLine): File = sys.env.get(line.envJars).map(file).getOrElse {
    val newest = read(base / "dev" / "spark-lines").last
    val venv = if (line == newest) base / ".venv" else base / ".cache" / "lines" / line.line / "venv"
    (venv / "lib" * "python*" / "site-packages" / "pyspark" / "jars").get.headOption
      .getOrElse(venv / "lib" / "python3" / "site-packages" / "pyspark" / "jars")
  }

  /** parquet-java as the line ships it, read from its jar's name; None while the line is not
   *  set up (dev/quickstart sets up the newest line only, and sbt loads every line's build). */
  def parquetVersion(base: File, line: SparkLine): Option[String] =
    (sparkJarsDir(base, line) * "parquet-hadoop-*.jar").get.headOption
      .map(_.getName.stripPrefix("parquet-hadoop-").stripSuffix(".jar"))

  /** Shim source directories under `root` (spark-<first>[-<last>]) that serve the line. */
  def shimDirs(root: File, line: SparkLine): Seq[File] =
    (root * "spark-*").get.filter(d => d.isDirectory && line.servedBy(d)).sortBy(_.getName)

  /** The POM names the Spark the jar is built for, as provided: the cluster brings it. */
  def withProvidedSpark(node: scala.xml.Node, line: SparkLine): scala.xml.Node = {
    import scala.xml._
    import scala.xml.transform._
    val spark =
      <dependency>
        <groupId>org.apache.spark</groupId>
        <artifactId>{s"spark-sql_${line.binaryScala}"}</artifactId>
        <version>{line.spark}</version>
        <scope>provided</scope>
      </dependency>
    new RuleTransformer(new RewriteRule {
      override def transform(n: Node): Seq[Node] = n match {
        case e: Elem if e.label == "dependencies" => e.copy(child = e.child ++ spark)
        case other => other
      }
    }).transform(node).head
  }
}
