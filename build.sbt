// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
// sparkbloom: Parquet split block Bloom filter data skipping for Apache Spark.
// Spark and the parquet-java it ships are Provided: the cluster brings them, we must not.

ThisBuild / organization := "io.sparkbloom"
ThisBuild / description := "Parquet split block Bloom filter data skipping for Apache Spark"
ThisBuild / licenses := List("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / versionScheme := Some("early-semver")
// The one place of the version, shared with the Python package (python/pyproject.toml).
ThisBuild / version := IO.read((ThisBuild / baseDirectory).value / "python" / "sparkbloom" / "VERSION").trim
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-unchecked")

// One jar per Spark line (dev/spark-lines), each compiled and tested against that line's own
// jars: those of its pyspark distribution, which dev/setup installs into .cache/lines/<line>/venv,
// and for the newest line into .venv (Spark 4.3 is on PyPI only). SPARKBLOOM_SPARK_JARS_<line>
// (e.g. _3_5) can point elsewhere.
lazy val sparkLines: Seq[SparkLine] = SparkLines.read(file("dev/spark-lines"))

// Spark on Java 17 needs these opens; Spark's launcher adds them, a forked test JVM must too.
val sparkJavaOptions = Seq(
  "-XX:+IgnoreUnrecognizedVMOptions",
  "--add-opens=java.base/java.lang=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
  "--add-opens=java.base/java.io=ALL-UNNAMED",
  "--add-opens=java.base/java.net=ALL-UNNAMED",
  "--add-opens=java.base/java.nio=ALL-UNNAMED",
  "--add-opens=java.base/java.util=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
  "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
  "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
  "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
  "-Djdk.reflect.useDirectMethodHandle=false",
  "-Dio.netty.tryReflectionSetAccessible=true"
)

// Shim sources: the files that differ between Spark lines, in directories named for the
// lines they serve (jvm/src/{main,test}/spark-<first>[-<last>]), behind sparkbloom.shims.SparkShim.
def lineProject(line: SparkLine): Project =
  Project(line.id, file("target") / line.id)
    .settings(
      name := s"sparkbloom-spark${line.line}",
      moduleName := name.value, // sbt would normalize "3.5" to "3-5"
      scalaVersion := line.scala,
      target := (ThisBuild / baseDirectory).value / "target" / line.id,
      Compile / unmanagedSourceDirectories := Seq(
        (ThisBuild / baseDirectory).value / "jvm" / "src" / "main" / "scala"
      ) ++ SparkLines.shimDirs((ThisBuild / baseDirectory).value / "jvm" / "src" / "main", line),
      Compile / unmanagedResourceDirectories := Seq(
        (ThisBuild / baseDirectory).value / "jvm" / "src" / "main" / "resources"),
      Test / unmanagedSourceDirectories := Seq(
        (ThisBuild / baseDirectory).value / "jvm" / "src" / "test" / "scala"
      ) ++ SparkLines.shimDirs((ThisBuild / baseDirectory).value / "jvm" / "src" / "test", line),
      Test / unmanagedResourceDirectories := Seq(
        (ThisBuild / baseDirectory).value / "jvm" / "src" / "test" / "resources"),
      Compile / unmanagedJars ++= Attributed.blankSeq(SparkLines.jars((ThisBuild / baseDirectory).value, line)),
      libraryDependencies ++= Seq(
        // Iceberg's table API, to judge an Iceberg scan's data files (catalyst.IcebergTasks): Provided,
        // its Spark runtime brings it; the oldest release a line is tested with (dev/spark-lines)
        ("org.apache.iceberg" % "iceberg-api" % "1.11.0" % Provided).intransitive(),
        "org.scalatest" %% "scalatest" % "3.2.19" % Test,
        "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test
      ) ++ SparkLines.parquetVersion((ThisBuild / baseDirectory).value, line).map { parquet =>
        // parquet-java's in-memory test KMS, for the encryption tests (the line's own version)
        ("org.apache.parquet" % "parquet-hadoop" % parquet % Test).classifier("tests").intransitive()
      },
      // Spark is Provided: the cluster brings it. The POM says which Spark this jar is for.
      pomPostProcess := { node => SparkLines.withProvidedSpark(node, line) },
      // Spark brings its own Scala library too: `--packages` fetches nothing beside the jar.
      autoScalaLibrary := false,
      libraryDependencies += "org.scala-lang" % "scala-library" % scalaVersion.value % Provided,
      // dev/release: a Maven repository under dist/maven (jar, sources, scaladoc, POM, checksums)
      publishTo := Some(Resolver.file("dist", (ThisBuild / baseDirectory).value / "dist" / "maven")(
          Resolver.mavenStylePatterns)),
      publishMavenStyle := true,
      Compile / packageBin / mappings += ((ThisBuild / baseDirectory).value / "LICENSE") -> "META-INF/LICENSE",
      // The JVM side reports its version and Spark line to Python; generated so they never drift.
      // In the bottom layer (sparkbloom.settings): the facade and the SQL functions both read it.
      Compile / sourceGenerators += Def.task {
        val file = (Compile / sourceManaged).value / "sparkbloom" / "settings" / "BuildVersion.scala"
        IO.write(file,
          s"""package sparkbloom.settings
             |
             |private[sparkbloom] object BuildVersion {
             |  val value: String = "${version.value}"
             |  val sparkLine: String = "${line.line}"
             |}
             |""".stripMargin)
        Seq(file)
      }.taskValue,
      // The write options' rules: one table, in the Python package and copied into the jar.
      Compile / resourceGenerators += Def.task {
        val table = (Compile / resourceManaged).value / "sparkbloom" / "write_options.json"
        IO.copyFile((ThisBuild / baseDirectory).value / "python" / "sparkbloom" / "write_options.json", table)
        Seq(table)
      }.taskValue,
      // Every line's sources but its shims are the same files: the newest line's check formats
      // them, each other line's only its shim files (five checks of the same ~180 files: 108 s).
      Seq(Compile, Test).map { config =>
        config / scalafmt / unmanagedSources := {
          val shims = SparkLines.shimDirs((ThisBuild / baseDirectory).value / "jvm" / "src" /
              (if (config == Compile) "main" else "test"), line)
          val sources = (config / unmanagedSources).value
          if (line == sparkLines.last) sources
          else sources.filter(f => shims.exists(d => f.toPath.startsWith(d.toPath)))
        }
      },
      Test / fork := true,
      // Tests make their tables in the test JVM's temporary directory: one under target, emptied
      // before and after each run, so that runs on five lines leave nothing behind in /tmp.
      // The serial collector: on 2 cores G1's concurrent threads compete with the tests' own
      // (JoinPruningSuite and SplitSelectionSuite on Spark 4.0: 2:04 with G1, 1:43 serial).
      Test / javaOptions ++= sparkJavaOptions ++ Seq("-Xmx4g", "-XX:+UseSerialGC", "-Dspark.ui.enabled=false",
        s"-Djava.io.tmpdir=${target.value / "test-tmp"}"),
      Test / testOptions ++= {
        val tmp = target.value / "test-tmp"
        Seq(Tests.Setup(() => { IO.delete(tmp); IO.createDirectory(tmp) }), Tests.Cleanup(() => IO.delete(tmp)))
      },
      Test / parallelExecution := false,
      Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
    )

def lineProject(line: String): Project =
  lineProject(sparkLines.find(_.line == line).getOrElse(sys.error(s"Spark $line is not in dev/spark-lines")))

lazy val spark35 = lineProject("3.5")
lazy val spark40 = lineProject("4.0")
lazy val spark41 = lineProject("4.1")
lazy val spark42 = lineProject("4.2")
lazy val spark43 = lineProject("4.3")
lazy val lineProjects = Seq(spark35, spark40, spark41, spark42, spark43)

// `./dev/sbt package` (or publishLocal, publishM2) builds every line; `spark35/test` tests one.
lazy val root = (project in file("."))
  .aggregate(lineProjects.map(p => p: ProjectReference): _*)
  .settings(publish / skip := true, test / aggregate := false, testOnly / aggregate := false)

lazy val bench = (project in file("bench/jmh"))
  .dependsOn(spark43)
  .enablePlugins(JmhPlugin)
  .settings(
    name := "sparkbloom-bench",
    publish / skip := true,
    scalaVersion := sparkLines.find(_.line == "4.3").get.scala,
    Compile / unmanagedJars ++= Attributed.blankSeq(SparkLines.jars((ThisBuild / baseDirectory).value,
        sparkLines.find(_.line == "4.3").get)),
    Jmh / javaOptions ++= sparkJavaOptions
  )
