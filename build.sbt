// sparkbloom: Parquet split block Bloom filter data skipping for Apache Spark.
// Spark and the parquet-java it ships are Provided: the cluster brings them, we must not.

ThisBuild / organization := "io.sparkbloom"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.18"
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-unchecked")

// Spark 4.3 is not on Maven Central as this machine reaches it, and the jars of the PyPI
// pyspark wheel are the Spark we test against anyway: compile against exactly those.
// dev/setup creates .venv before sbt runs; SPARKBLOOM_SPARK_JARS can point elsewhere.
def sparkJars(base: File): Seq[File] = {
  val dirs = sys.env.get("SPARKBLOOM_SPARK_JARS").map(file).toSeq ++
    (base / ".venv" / "lib" * "python*" / "site-packages" / "pyspark" / "jars").get
  val jars = dirs.flatMap(d => (d * "*.jar").get)
    .filterNot(_.getName.matches("scala-(library|reflect|compiler)-.*"))
  if (jars.isEmpty) sys.error("No Spark jars: run dev/setup first (it installs pyspark into .venv).")
  jars
}

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

val sparkProvided = Seq(
  Compile / unmanagedJars ++= Attributed.blankSeq(sparkJars((ThisBuild / baseDirectory).value))
)

lazy val root = (project in file("."))
  .settings(
    name := "sparkbloom",
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    sparkProvided,
    libraryDependencies ++= Seq(
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test,
      // parquet-java's in-memory test KMS, for the encryption tests (same version as Spark's)
      ("org.apache.parquet" % "parquet-hadoop" % "1.17.0" % Test).classifier("tests").intransitive()
    ),
    // The JVM side reports its version to Python; generate it from the build so they never drift.
    Compile / sourceGenerators += Def.task {
      val file = (Compile / sourceManaged).value / "sparkbloom" / "BuildVersion.scala"
      IO.write(file,
        s"""package sparkbloom
           |
           |private[sparkbloom] object BuildVersion {
           |  val value: String = "${version.value}"
           |}
           |""".stripMargin)
      Seq(file)
    }.taskValue,
    Test / fork := true,
    Test / javaOptions ++= sparkJavaOptions ++ Seq("-Xmx4g", "-Dspark.ui.enabled=false"),
    Test / parallelExecution := false,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
  )

lazy val bench = (project in file("bench/jmh"))
  .dependsOn(root)
  .enablePlugins(JmhPlugin)
  .settings(
    name := "sparkbloom-bench",
    publish / skip := true,
    sparkProvided,
    Jmh / javaOptions ++= sparkJavaOptions
  )
