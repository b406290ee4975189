// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.math.BigInteger
import java.util.Locale
import java.util.regex.{Matcher, Pattern}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import sparkbloom.errors.SparkBloomException

/**
 * The rules of the write options' values and their messages, read from the one table the
 * Python package reads too (python/sparkbloom/write_options.json, which the build copies into
 * the jar), so that `sparkbloom.write_options` accepts and refuses what the JVM does, in the
 * same words, without a JVM. tests/test_write_option_rules.py runs both over the same inputs.
 */
private[sparkbloom] object WriteOptionRules {
  val Resource = "/sparkbloom/write_options.json"

  private val table: JsonNode = {
    val in = getClass.getResourceAsStream(Resource)
    if (in == null) throw new IllegalStateException(s"sparkbloom's jar has no $Resource")
    try new ObjectMapper().readTree(in)
    finally in.close()
  }

  /** One option's value: its type's pattern, its bounds, its message. */
  final class Rule private[WriteOptionRules] (node: JsonNode) {
    val key: String = node.get("key").asText
    val kind: String = node.get("type").asText
    val scopes: Set[String] = node.get("scopes").elements().asScala.map(_.asText).toSet
    private val pattern = Pattern.compile(
      Option(table.get("types").get(kind)).getOrElse(throw new IllegalStateException(s"$Resource: no type '$kind'")).asText)
    private val message = node.get("message").asText
    private val min = Option(node.get("min"))
    private val max = Option(node.get("max"))
    private val minInclusive = node.path("min_inclusive").asBoolean(true)
    private val maxInclusive = node.path("max_inclusive").asBoolean(true)

    /** Whether a value is within the bounds; `compare` is the value's sign against a bound. */
    private def within(compare: JsonNode => Int): Boolean =
      min.forall(m => if (minInclusive) compare(m) >= 0 else compare(m) > 0) &&
        max.forall(m => if (maxInclusive) compare(m) <= 0 else compare(m) < 0)

    /**
     * The value `text` stands for (a Double, Long or Boolean, by type), or a
     * [[SparkBloomException]] naming `option`, the key as the user wrote it.
     */
    def parse(option: String, text: String): Any = {
      def refuse: Nothing = throw new SparkBloomException(render(message, option, text, min, max))
      val matched = pattern.matcher(text)
      if (!matched.matches()) refuse
      val value = matched.group(1)
      kind match {
        case "decimal" =>
          val number = value.toDouble
          // plain comparisons, as Python's: -0.0 is 0
          if (within(m => if (number < m.asDouble) -1 else if (number > m.asDouble) 1 else 0)) number else refuse
        case "integer" =>
          val number = new BigInteger(value)
          if (within(m => number.compareTo(m.bigIntegerValue))) number.longValueExact else refuse
        case "boolean" => value.toLowerCase(Locale.ROOT) == "true"
        case other => throw new IllegalStateException(s"$Resource: no type '$other'")
      }
    }
  }

  val rules: Seq[Rule] = table.get("values").elements().asScala.map(new Rule(_)).toSeq

  def rule(key: String): Rule =
    rules.find(_.key == key).getOrElse(throw new IllegalStateException(s"$Resource has no option '$key'"))

  /** Options set for the whole write by their key. */
  def writeKeys: Seq[String] = rules.filter(_.scopes("write")).map(_.key)

  /** Options set for one column by `key.<column>`. */
  def columnKeys: Seq[String] = rules.filter(_.scopes("column")).map(_.key)

  /**
   * The value of option `key` (any case; `name.<column>` for one column) whose text is `text`,
   * or the option's [[SparkBloomException]]. Python's tests ask the JVM through this.
   */
  def check(key: String, text: String): Any = {
    val lower = key.toLowerCase(Locale.ROOT)
    rules.find(r => r.scopes("write") && lower == r.key)
      .orElse(rules.find(r => r.scopes("column") && lower.startsWith(r.key + ".")))
      .getOrElse(throw new SparkBloomException(s"unknown option '$key'"))
      .parse(key, text)
  }

  private val columns = table.get("columns")

  def columnsKey: String = columns.get("key").asText
  def emptyColumnName(value: String): String = render(columns.get("empty_name").asText, columnsKey, value)
  def noColumn: String = render(columns.get("no_column").asText, columnsKey, "")
  def notListed(option: String): String = render(columns.get("not_listed").asText, option, "")
  def sameColumn(option: String, other: String): String = render(columns.get("same_column").asText, option, other)

  private val Placeholder = Pattern.compile("\\{(key|value|min|max)\\}")

  /** `template` with its placeholders replaced, in one pass (a value may contain braces). */
  private def render(template: String, key: String, value: String, min: Option[JsonNode] = None,
      max: Option[JsonNode] = None): String = {
    val fields = Map("key" -> key, "value" -> value, "min" -> min.fold("")(_.asText), "max" -> max.fold("")(_.asText))
    val (m, out) = (Placeholder.matcher(template), new StringBuffer)
    while (m.find()) m.appendReplacement(out, Matcher.quoteReplacement(fields(m.group(1))))
    m.appendTail(out).toString
  }
}
