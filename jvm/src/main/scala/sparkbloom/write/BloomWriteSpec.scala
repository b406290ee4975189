// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import sparkbloom.sbbf.FilterSizing

/**
 * One column that gets a filter in every row group.
 *
 * @param path     the column's field names from the top of the schema, in their real case
 * @param fpp      the false-positive probability each row group's filter must meet
 * @param ndvHint  distinct values per row group, if the user knows them
 */
private[sparkbloom] final case class BloomColumn(path: Seq[String], fpp: Double, ndvHint: Option[Long]) {

  /** The Parquet column path as parquet-java keys filters: names joined by dots. */
  def dottedPath: String = path.mkString(".")
}

/**
 * Everything a write needs to know to add filters: the columns, the size ceiling (None:
 * it follows the row group, [[FilterSizing.rowGroupCeiling]]), and whether filters take any
 * whole number of blocks (`exactSize`) or, by default, a power of two of blocks (the only
 * sizes Arrow C++ and Velox accept).
 */
private[sparkbloom] final case class BloomWriteSpec(columns: Seq[BloomColumn], maxBytes: Option[Int],
    exactSize: Boolean) {

  def ceiling(rowGroupBytes: Long): Int = maxBytes.getOrElse(FilterSizing.rowGroupCeiling(rowGroupBytes))

  /** JSON, to hand the spec to executors through the Hadoop conf. */
  def encode: String = {
    val json = new java.util.LinkedHashMap[String, Any]()
    json.put("maxBytes", maxBytes.map(Int.box).orNull)
    json.put("exactSize", exactSize)
    json.put("columns",
      columns.map { c =>
        val column = new java.util.LinkedHashMap[String, Any]()
        column.put("path", c.path.asJava)
        column.put("fpp", c.fpp)
        column.put("ndv", c.ndvHint.map(Long.box).orNull)
        column
      }.asJava)
    BloomWriteSpec.Json.writeValueAsString(json)
  }
}

private[sparkbloom] object BloomWriteSpec {

  val ConfKey = "sparkbloom.write.spec"

  private val Json = new ObjectMapper()

  def decode(text: String): BloomWriteSpec =
    try {
      val json = Json.readTree(text)
      def required(node: JsonNode, name: String): JsonNode = Option(node.get(name)).getOrElse(
        throw new IllegalStateException(s"no '$name'"))
      val maxBytes = Option(json.get("maxBytes")).filterNot(_.isNull).map(_.asInt)
      val columns = required(json, "columns").elements().asScala.map { c =>
        BloomColumn(required(c, "path").elements().asScala.map(_.asText).toSeq, required(c, "fpp").asDouble,
          Option(c.get("ndv")).filterNot(_.isNull).map(_.asLong))
      }.toSeq
      BloomWriteSpec(columns, maxBytes, required(json, "exactSize").asBoolean)
    } catch {
      // Driver and executors must run the same jar; a spec another version wrote is not guessed at.
      case e: Exception => throw new IllegalStateException(
          s"sparkbloom cannot read its write spec (driver and executors run different jars?): $text", e)
    }
}
