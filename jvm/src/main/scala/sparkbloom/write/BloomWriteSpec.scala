// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

/**
 * One column that gets a filter in every row group.
 *
 * @param path     the column's field names from the top of the schema, in their real case
 * @param fpp      the false-positive probability each row group's filter must meet
 * @param ndvHint  distinct values per row group, if the user knows them
 */
final case class BloomColumn(path: Seq[String], fpp: Double, ndvHint: Option[Long]) {

  /** The Parquet column path as parquet-java keys filters: names joined by dots. */
  def dottedPath: String = path.mkString(".")
}

/**
 * Everything a write needs to know to add filters: the columns, the size ceiling, and
 * whether filters take any whole number of blocks (`exactSize`) or, by default, a power of
 * two of blocks (the only sizes Arrow C++ and Velox accept).
 */
final case class BloomWriteSpec(columns: Seq[BloomColumn], maxBytes: Int, exactSize: Boolean) {

  /** A line-based text form, to hand the spec to executors through the Hadoop conf. */
  def encode: String =
    (s"maxBytes=$maxBytes" +: s"exactSize=$exactSize" +: columns.map { c =>
      s"column=${c.fpp}\t${c.ndvHint.getOrElse(-1L)}\t${c.path.map(escape).mkString("\t")}"
    }).mkString("\n")

  private def escape(name: String): String =
    name.flatMap { case '\\' => "\\\\"; case '\t' => "\\t"; case '\n' => "\\n"; case c => c.toString }
}

object BloomWriteSpec {

  /** Hadoop conf key under which a write's spec travels to the tasks. */
  val ConfKey = "sparkbloom.write.spec"

  def decode(text: String): BloomWriteSpec = {
    val lines = text.split("\n", -1).toSeq
    // The settings lines come first; a spec missing one was not written by this version of
    // the jar (driver and executors must run the same one), so fail rather than guess.
    def setting(name: String): String = lines.find(_.startsWith(name + "=")).map(_.stripPrefix(name + "="))
      .getOrElse(throw new IllegalStateException(
          s"sparkbloom write spec has no '$name': driver and executors run different jars?"))
    val maxBytes = setting("maxBytes").toInt
    val exactSize = setting("exactSize").toBoolean
    val columns = lines.filter(_.startsWith("column=")).map { line =>
      val fields = line.stripPrefix("column=").split("\t", -1).toSeq
      val ndv = fields(1).toLong
      BloomColumn(fields.drop(2).map(unescape), fields.head.toDouble, if (ndv < 0) None else Some(ndv))
    }
    BloomWriteSpec(columns, maxBytes, exactSize)
  }

  private def unescape(name: String): String = {
    val out = new StringBuilder
    var i = 0
    while (i < name.length) {
      if (name(i) == '\\' && i + 1 < name.length) {
        out += (name(i + 1) match { case 't' => '\t'; case 'n' => '\n'; case c => c })
        i += 2
      } else { out += name(i); i += 1 }
    }
    out.toString
  }
}
