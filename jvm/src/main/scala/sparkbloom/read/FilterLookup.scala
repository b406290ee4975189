// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.read

import sparkbloom.sbbf.SplitBlockBloomFilter

/** The outcome of looking for one column chunk's filter. */
private[sparkbloom] sealed trait FilterLookup {
  def bytes: Long
}

private[sparkbloom] object FilterLookup {
  final case class Present(filter: SplitBlockBloomFilter) extends FilterLookup {
    def bytes: Long = filter.numBytes.toLong + 64
  }

  /** The chunk has no filter (or one sparkbloom must not read, as an encrypted one). */
  case object Missing extends FilterLookup { def bytes: Long = 32 }

  /** The file claims a filter that cannot be used; the data is read instead. */
  final case class Broken(reason: String) extends FilterLookup { def bytes: Long = 64L + reason.length }
}
