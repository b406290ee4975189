// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.hashing

/** What to look for in a column's filter to learn whether one literal can be present. */
private[sparkbloom] sealed trait ProbeHashes

private[sparkbloom] object ProbeHashes {

  /**
   * The literal is stored under one of these hashes (two for a floating-point zero,
   * whose sign SQL equality ignores): it is absent only if the filter has none of them.
   */
  final case class AnyOf(hashes: Seq[Long]) extends ProbeHashes {
    require(hashes.nonEmpty, "a probe needs at least one hash")
  }

  /** The filter cannot answer for this literal: the data must be read. */
  case object Undecidable extends ProbeHashes

  def one(hash: Long): ProbeHashes = AnyOf(Seq(hash))
}
