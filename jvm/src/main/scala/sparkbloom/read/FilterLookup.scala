// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import sparkbloom.sbbf.{FilterEstimates, SplitBlockBloomFilter}

/** The outcome of looking for one column chunk's filter. */
private[sparkbloom] sealed trait FilterLookup {
  def bytes: Long
}

private[sparkbloom] object FilterLookup {
  final case class Present(filter: SplitBlockBloomFilter) extends FilterLookup {
    def bytes: Long = filter.numBytes.toLong + 64

    /**
     * The probability its bits answer "maybe" for a value not in it, estimated from a sample
     * of its blocks ([[FilterEstimates.sampledFpp]]); once per filter read (the cache keeps it).
     */
    lazy val fpp: Double = FilterEstimates.sampledFpp(filter)

    /** No bit set. */
    lazy val empty: Boolean = FilterEstimates.empty(filter)

    /** So full that it rules out almost nothing: not used, and named in the report. */
    def saturated: Boolean = fpp >= SaturatedFpp
  }

  /** A filter answering "maybe" this often for absent values (its words 98.7% set) is saturated. */
  val SaturatedFpp = 0.9

  /** The chunk has no filter (or one sparkbloom must not read, as an encrypted one). */
  case object Missing extends FilterLookup { def bytes: Long = 32 }

  /** The file claims a filter that cannot be used; the data is read instead. */
  final case class Broken(reason: String) extends FilterLookup { def bytes: Long = 64L + reason.length }

  /** A filter read but not trusted ([[FilterChecks]]): `why` keeps its chunk. Never cached. */
  final case class Distrusted(why: Decision, reason: String) extends FilterLookup {
    require(!why.skips, s"a filter not trusted cannot rule out: $why")
    def bytes: Long = 64
  }
}
