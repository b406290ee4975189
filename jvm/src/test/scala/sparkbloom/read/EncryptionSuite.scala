// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.functions._
import org.scalatest.funsuite.AnyFunSuite

import sparkbloom.{ParquetFiles, SparkBloom, SparkSessionSuite}
import sparkbloom.sbbf.XxHash64

/**
 * Parquet modular encryption, configured as Spark users configure it, with parquet-java's
 * in-memory test KMS: filters on encrypted columns are written encrypted, used for
 * pruning when the keys are there, and without keys the query fails as vanilla Spark's.
 */
class EncryptionSuite extends AnyFunSuite with SparkSessionSuite {

  private val keys = Map(
    "parquet.crypto.factory.class" -> "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory",
    "parquet.encryption.kms.client.class" -> "org.apache.parquet.crypto.keytools.mocks.InMemoryKMS",
    "parquet.encryption.key.list" -> "keyA:AAECAwQFBgcICQoLDA0ODw==, keyB:AAECAAECAAECAAECAAECAA==")

  private def withKeys[T](body: => T): T = {
    keys.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally keys.keys.foreach(spark.conf.unset)
  }

  private lazy val table: String = withKeys {
    val path = Files.createTempDirectory("sparkbloom-encrypted").toString + "/t"
    spark.range(0, 20000, 1, 4).select((col("id") * 2).as("k"), concat(lit("s"), col("id")).as("s"))
      .repartition(4, rand(2))
      .write.option("bloom_filter_columns", "k,s")
      .option("parquet.encryption.column.keys", "keyA:k")
      .option("parquet.encryption.footer.key", "keyB")
      .parquet(path)
    path
  }

  test("filters of encrypted columns are written encrypted") {
    val file = ParquetFiles.dataFiles(table).head
    val conf = withKeys(spark.sessionState.newHadoopConf())
    val path = new Path(file.toURI)
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf),
      HadoopReadOptions.builder(conf, path).build())
    val raw = Files.readAllBytes(file.toPath)
    try {
      val column = reader.getFooter.getBlocks.get(0).getColumns.asScala.find(_.getPath.toDotString == "k").get
      assert(column.isEncrypted)
      assert(column.getBloomFilterOffset > 0)
      val filter = reader.readBloomFilter(column)
      assert(filter != null)
      val bitset = new java.io.ByteArrayOutputStream()
      filter.writeTo(bitset)
      val plain = bitset.toByteArray
      // no 64-byte window of the plaintext bitset appears anywhere in the file
      val windows = plain.grouped(64).filter(w => w.length == 64 && w.exists(_ != 0)).take(20).toSeq
      assert(windows.nonEmpty)
      windows.foreach(w => assert(raw.indexOfSlice(w.toSeq) < 0, "plaintext filter bytes found in the file"))
    } finally reader.close()
  }

  test("with the keys, pruning uses the encrypted filters") {
    ProbeCache.shared.clear()
    withKeys {
      assert(spark.read.parquet(table).where(col("k") === 778L).count() == 1)
      // odd values are absent but inside every file's min/max: only the filters rule them out
      ProbeCache.shared.clear()
      assert(spark.read.parquet(table).where(col("k") === 777L).count() == 0)
      val stats = SparkBloom.lastPruning(spark).asScala
      assert(stats("files_skipped") == 4L, stats)
      assert(stats("filter_bytes_read") > 0L, stats)
    }
  }

  test("without the keys the query fails as vanilla Spark's does") {
    def failure(enabled: Boolean): String = {
      spark.conf.set("spark.sparkbloom.enabled", enabled.toString)
      try {
        val e = intercept[Exception](spark.read.parquet(table).where(col("k") === 777L).collect())
        e.getClass.getName
      } finally spark.conf.unset("spark.sparkbloom.enabled")
    }
    ProbeCache.shared.clear()
    assert(failure(enabled = true) == failure(enabled = false))
  }

  test("the encrypted filter holds every value of its row group, hashed as parquet-java does") {
    withKeys {
      val conf = spark.sessionState.newHadoopConf()
      val file = new Path(ParquetFiles.dataFiles(table).head.toURI)
      val reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(file, conf), HadoopReadOptions.builder(conf, file).build())
      try {
        val column = reader.getFooter.getBlocks.get(0).getColumns.asScala.find(_.getPath.toDotString == "k").get
        val filter = reader.readBloomFilter(column)
        val values = spark.read.parquet(file.toString).select("k").collect().map(_.getLong(0))
        assert(values.nonEmpty)
        values.foreach(v => assert(filter.findHash(XxHash64.hashLong(v))))
      } finally reader.close()
    }
  }

  test("what one session decrypted never serves a session without the keys") {
    // old enough to be cached; the cache is not cleared between the sessions' queries
    ParquetFiles.dataFiles(table).foreach(_.setLastModified(System.currentTimeMillis() - 60000))
    withKeys {
      assert(spark.read.parquet(table).where(col("k") === 777L).count() == 0)
      assert(SparkBloom.lastPruning(spark).asScala("files_skipped") == 4L)
      assert(spark.read.parquet(table).where(col("k") === 777L).count() == 0)
      assert(SparkBloom.lastPruning(spark).asScala("filter_bytes_read") == 0L,
        "the second query is served by the cache")
    }
    // with the schema given, nothing but the pruning and the read itself touches the files
    val other = spark.newSession()
    intercept[Exception](other.read.schema("k long, s string").parquet(table).where(col("k") === 777L).collect())
    intercept[Exception](spark.read.schema("k long, s string").parquet(table).where(col("k") === 777L).collect())
  }
  test("columns encrypted with the footer key: their filters are decrypted for pruning, and never indexed") {
    // parquet-java shows such a column as a plain one, yet encrypts its filter
    val path = Files.createTempDirectory("sparkbloom-uniform").toString + "/t"
    withKeys {
      spark.range(0, 20000, 1, 4).select((col("id") * 2).as("k")).repartition(4, rand(2))
        .write.option("bloom_filter_columns", "k").option("parquet.encryption.uniform.key", "keyB").parquet(path)
      ProbeCache.shared.clear()
      assert(spark.read.parquet(path).where(col("k") === 777L).count() == 0)
      assert(SparkBloom.lastPruning(spark).asScala("files_skipped") == 4L, "the decrypted filters rule 777 out")
      assert(spark.read.parquet(path).where(col("k") === 778L).count() == 1)
      // the index is plaintext: it holds nothing of an encrypted file
      spark.sql(s"SELECT * FROM sparkbloom_build_index('$path', 'k')").collect()
      ProbeCache.shared.clear()
      assert(spark.read.parquet(path).where(col("k") === 777L).count() == 0)
      val stats = SparkBloom.lastPruning(spark).asScala
      assert(stats("files_skipped_by_index") == 0L && stats("files_skipped") == 4L, stats)
    }
  }
}
