// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.write

import java.nio.file.Files

import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkSessionSuite}
import sparkbloom.errors.SparkBloomException
import sparkbloom.sbbf.XxHash64

/** Every way a Spark user writes Parquet gets the filters the options ask for. */
class WriteFormsSuite extends AnyFunSuite with SparkSessionSuite {

  override protected def sessionConf: Map[String, String] =
    Map("spark.sql.warehouse.dir" -> Files.createTempDirectory("sparkbloom-warehouse").toString)

  private def data(from: Long, to: Long) =
    spark.range(from, to, 1, 2).select(col("id").as("user_id"), concat(lit("u"), col("id")).as("email"),
      (col("id") % 4).as("part"))

  /** Every row group of every file under `dir` has a filter on `column` holding its values. */
  private def assertFiltered(dir: String, column: String, ids: Seq[Long]): Unit = {
    val files = ParquetFiles.dataFiles(dir)
    assert(files.nonEmpty, s"no files under $dir")
    val chunks = files.flatMap(ParquetFiles.chunks).filter(_.path == column)
    assert(chunks.nonEmpty && chunks.forall(_.filter.isDefined), s"$dir: a row group lacks a filter on $column")
    ids.foreach(v => assert(chunks.exists(_.filter.get.findHash(XxHash64.hashLong(v))), s"$column $v"))
  }

  private def tableDir(name: String): String =
    spark.sessionState.catalog.getTableMetadata(spark.sessionState.sqlParser.parseTableIdentifier(name))
      .location.getPath

  test("format(parquet).save, append, partitioned and bucketed writes") {
    val path = Files.createTempDirectory("forms").toString + "/t"
    data(0, 100).write.format("parquet").option("bloom_filter_columns", "user_id").save(path)
    data(100, 200).write.mode("append").option("bloom_filter_columns", "user_id").parquet(path)
    assertFiltered(path, "user_id", 0L until 200L)

    val partitioned = Files.createTempDirectory("forms").toString + "/p"
    data(0, 100).write.partitionBy("part").option("bloom_filter_columns", "user_id,email").parquet(partitioned)
    assertFiltered(partitioned, "user_id", 0L until 100L)
    val error = intercept[SparkBloomException](
      data(0, 10).write.partitionBy("part").option("bloom_filter_columns", "part").parquet(partitioned + "2"))
    assert(error.getMessage.contains("partition column"))

    data(0, 100).write.bucketBy(4, "user_id").option("bloom_filter_columns", "user_id").saveAsTable("bucketed")
    assertFiltered(tableDir("bucketed"), "user_id", 0L until 100L)
  }

  test("saveAsTable and insertInto") {
    data(0, 50).write.option("bloom_filter_columns", "user_id").saveAsTable("saved")
    assertFiltered(tableDir("saved"), "user_id", 0L until 50L)
    // insertInto takes the table's stored options
    data(50, 80).write.insertInto("saved")
    assertFiltered(tableDir("saved"), "user_id", 0L until 80L)
  }

  test("CREATE TABLE with OPTIONS or TBLPROPERTIES, INSERT, CTAS") {
    spark.sql(
      "CREATE TABLE opt_t (user_id BIGINT, email STRING) USING parquet OPTIONS (bloom_filter_columns 'user_id')")
    spark.sql("INSERT INTO opt_t SELECT id, concat('u', id) FROM range(40)")
    assertFiltered(tableDir("opt_t"), "user_id", 0L until 40L)

    spark.sql("CREATE TABLE prop_t (User_Id BIGINT, email STRING) USING parquet " +
      "TBLPROPERTIES (bloom_filter_columns 'user_id', bloom_filter_fpp '0.001')")
    spark.sql("INSERT INTO prop_t SELECT id, concat('u', id) FROM range(40)")
    assertFiltered(tableDir("prop_t"), "User_Id", 0L until 40L)

    spark.sql("CREATE TABLE ctas_t USING parquet OPTIONS (bloom_filter_columns 'user_id') AS " +
      "SELECT id AS user_id FROM range(60)")
    assertFiltered(tableDir("ctas_t"), "user_id", 0L until 60L)

    val error = intercept[SparkBloomException](
      spark.sql("CREATE TABLE bad_t (a BIGINT) USING parquet OPTIONS (bloom_filter_columns 'b')"))
    assert(error.getMessage.contains("does not exist"))
    assert(!spark.catalog.tableExists("bad_t"))
  }

  test("ALTER TABLE SET TBLPROPERTIES: a bad option fails the ALTER, a good one filters the next INSERT") {
    spark.sql("CREATE TABLE alter_t (user_id BIGINT, email STRING) USING parquet")
    val error = intercept[SparkBloomException](
      spark.sql("ALTER TABLE alter_t SET TBLPROPERTIES (bloom_filter_columns 'nope')"))
    assert(error.getMessage.contains("does not exist"))
    assert(!spark.sql("SHOW TBLPROPERTIES alter_t").collect().exists(_.getString(0) == "bloom_filter_columns"))
    spark.sql("ALTER TABLE alter_t SET TBLPROPERTIES (bloom_filter_columns 'user_id')")
    spark.sql("INSERT INTO alter_t SELECT id, concat('u', id) FROM range(40)")
    assertFiltered(tableDir("alter_t"), "user_id", 0L until 40L)
  }
}
