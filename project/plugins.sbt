// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
addSbtPlugin("pl.project13.scala" % "sbt-jmh" % "0.4.7")
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.5.2")
