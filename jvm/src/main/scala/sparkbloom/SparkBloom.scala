package sparkbloom

/** Facts about the JVM side that the Python package asks for through Py4J. */
object SparkBloom {

  /** The version of this jar; Python's `sparkbloom.version()` returns it. */
  def version: String = BuildVersion.value

  /** The extension class name, for `spark.sql.extensions`. */
  val ExtensionClass: String = classOf[SparkBloomExtensions].getName
}
