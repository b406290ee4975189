// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom

import java.util.concurrent.ConcurrentLinkedQueue

import scala.jdk.CollectionConverters._

import org.apache.logging.log4j.{Level, LogManager}
import org.apache.logging.log4j.core.{LogEvent, Logger}
import org.apache.logging.log4j.core.appender.AbstractAppender
import org.apache.logging.log4j.core.config.Property

/** The warnings the named class logs (through Spark's log4j 2) while `work` runs. */
object LoggedWarnings {
  def of[T](loggerClass: Class[_])(work: => T): (T, Seq[String]) = {
    val logger = LogManager.getLogger(loggerClass).asInstanceOf[Logger]
    val messages = new ConcurrentLinkedQueue[String]()
    val appender = new AbstractAppender("sparkbloom-test-capture", null, null, true, Property.EMPTY_ARRAY) {
      override def append(event: LogEvent): Unit =
        if (event.getLevel.isMoreSpecificThan(Level.WARN)) messages.add(event.getMessage.getFormattedMessage)
    }
    appender.start()
    val previousLevel = logger.getLevel
    logger.addAppender(appender)
    logger.setLevel(Level.WARN)
    try {
      val result = work
      (result, messages.asScala.toSeq)
    } finally {
      logger.removeAppender(appender)
      logger.setLevel(previousLevel)
      appender.stop()
    }
  }
}
