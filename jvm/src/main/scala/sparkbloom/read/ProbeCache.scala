package sparkbloom.read

import java.util.{LinkedHashMap => JLinkedHashMap}

/**
 * Footers and filters read on the driver, shared by every query of the JVM, bounded in
 * bytes and evicted least-recently-used first. Keys carry the file's length and
 * modification time, so a file rewritten in place is read again, never judged by what
 * an older file at the same path held.
 */
final class ProbeCache(initialMaxBytes: Long) {
  import ProbeCache._

  private var maxBytes = initialMaxBytes
  private var usedBytes = 0L
  private val entries = new JLinkedHashMap[Key, Entry](1024, 0.75f, true)

  def footer(file: FileKey)(load: => FooterSummary): FooterSummary =
    getOrLoad(FooterKey(file), FooterEntry(load)).asInstanceOf[FooterEntry].footer

  def filter(file: FileKey, rowGroup: Int, column: String)(load: => FilterLookup): FilterLookup =
    getOrLoad(FilterKey(file, rowGroup, column), FilterEntry(load)).asInstanceOf[FilterEntry].lookup

  /** Changes the budget (the session setting may change between queries). */
  def resize(bytes: Long): Unit = synchronized {
    maxBytes = math.max(bytes, 0L)
    evict()
  }

  def sizeInBytes: Long = synchronized(usedBytes)

  def clear(): Unit = synchronized { entries.clear(); usedBytes = 0 }

  private def getOrLoad(key: Key, load: => Entry): Entry = {
    val cached = synchronized(entries.get(key))
    if (cached != null) return cached
    // Loaded outside the lock: a slow read must not stall other queries. Two threads may
    // load the same entry; both results are equal, the second simply replaces the first.
    val loaded = load
    synchronized {
      val previous = entries.put(key, loaded)
      if (previous != null) usedBytes -= previous.bytes
      usedBytes += loaded.bytes
      evict()
    }
    loaded
  }

  private def evict(): Unit = {
    val it = entries.values().iterator()
    while (usedBytes > maxBytes && it.hasNext) {
      usedBytes -= it.next().bytes
      it.remove()
    }
  }
}

object ProbeCache {
  private sealed trait Key
  private final case class FooterKey(file: FileKey) extends Key
  private final case class FilterKey(file: FileKey, rowGroup: Int, column: String) extends Key

  private sealed trait Entry { def bytes: Long }
  private final case class FooterEntry(footer: FooterSummary) extends Entry {
    val bytes: Long = footer.estimatedBytes
  }
  private final case class FilterEntry(lookup: FilterLookup) extends Entry {
    val bytes: Long = lookup.bytes + 96
  }

  /** The driver's cache, shared by all sessions of this JVM. */
  lazy val shared: ProbeCache = new ProbeCache(256L * 1024 * 1024)
}
