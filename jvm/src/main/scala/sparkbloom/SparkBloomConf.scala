package sparkbloom

import org.apache.spark.sql.internal.SQLConf

/**
 * Every `spark.sparkbloom.*` session setting, with its default. All are read at the moment
 * they matter (planning a scan, starting a write), so `spark.conf.set` takes effect at once.
 */
object SparkBloomConf {
  val Prefix = "spark.sparkbloom."

  /** Default fpp for written filters when the write names none. */
  val WriteFpp = "spark.sparkbloom.write.fpp"
  val DefaultWriteFpp: Double = 0.01

  /** Default ceiling of one column chunk's filter, in bytes. */
  val WriteMaxBytes = "spark.sparkbloom.write.maxBytes"
  val DefaultWriteMaxBytes: Int = 1024 * 1024

  def writeFpp(conf: SQLConf): String = conf.getConfString(WriteFpp, DefaultWriteFpp.toString)

  def writeMaxBytes(conf: SQLConf): String = conf.getConfString(WriteMaxBytes, DefaultWriteMaxBytes.toString)
}
