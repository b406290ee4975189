// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 the sparkbloom authors
package sparkbloom.sbbf

import java.io.ByteArrayOutputStream

/**
 * The compact-thrift `BloomFilterHeader` that precedes every bitset in a file:
 * `numBytes` (i32, field 1), then the algorithm (BLOCK), hash (XXHASH) and compression
 * (UNCOMPRESSED) unions (fields 2 to 4), each holding one empty struct as field 1.
 *
 * Decoding is written for hostile input, because a filter comes from a file someone
 * else wrote: it never allocates by a size read from the input, never reads past the
 * bytes it is given, skips fields it does not know as thrift requires, and reports every
 * problem as a [[BloomFilterHeaderCodec.Invalid]] value, never as an exception.
 */
private[sparkbloom] object BloomFilterHeaderCodec {

  /** A header that names a filter sparkbloom can use: `numBytes` of bitset follow it. */
  final case class Header(numBytes: Int, headerLength: Int)

  /** Why a header was rejected, in words fit for a log line. */
  final case class Invalid(reason: String)

  // Compact protocol type ids.
  private final val TStop = 0
  private final val TTrue = 1
  private final val TFalse = 2
  private final val TByte = 3
  private final val TI16 = 4
  private final val TI32 = 5
  private final val TI64 = 6
  private final val TDouble = 7
  private final val TBinary = 8
  private final val TList = 9
  private final val TSet = 10
  private final val TMap = 11
  private final val TStruct = 12

  private final val MaxNesting = 32

  /** The header for a bitset of `numBytes` bytes: BLOCK, XXHASH, UNCOMPRESSED. */
  def encode(numBytes: Int): Array[Byte] = {
    val out = new ByteArrayOutputStream(16)
    out.write(0x15) // field 1 (delta 1), i32
    writeVarint(out, (numBytes << 1) ^ (numBytes >> 31))
    for (_ <- 2 to 4) {
      out.write(0x1c) // next field (delta 1), struct: the union
      out.write(0x1c) // union member 1, struct
      out.write(TStop) // the empty member struct
      out.write(TStop) // end of union
    }
    out.write(TStop)
    out.toByteArray
  }

  private def writeVarint(out: ByteArrayOutputStream, value: Int): Unit = {
    var v = value
    while ((v & ~0x7f) != 0) { out.write((v & 0x7f) | 0x80); v >>>= 7 }
    out.write(v)
  }

  /** Decodes the header at the start of `bytes[offset, offset + length)`. */
  def decode(bytes: Array[Byte], offset: Int, length: Int): Either[Invalid, Header] =
    try new Reader(bytes, offset, math.min(length, bytes.length - offset)).header()
    catch { case e: MalformedHeader => Left(Invalid(e.getMessage)) }

  def decode(bytes: Array[Byte]): Either[Invalid, Header] = decode(bytes, 0, bytes.length)

  private final class MalformedHeader(message: String) extends Exception(message, null, false, false)

  private final class Reader(bytes: Array[Byte], start: Int, length: Int) {
    private var pos = start
    private val end = start + math.max(length, 0)

    private def fail(reason: String): Nothing = throw new MalformedHeader(reason)

    private def byte(): Int = {
      if (pos >= end) fail("header is truncated")
      val b = bytes(pos) & 0xff
      pos += 1
      b
    }

    private def varint(maxBytes: Int): Long = {
      var result = 0L
      var shift = 0
      var i = 0
      while (true) {
        if (i >= maxBytes) fail("varint is too long")
        val b = byte()
        result |= (b & 0x7fL) << shift
        if ((b & 0x80) == 0) return result
        shift += 7
        i += 1
      }
      fail("unreachable")
    }

    private def zigzagI32(): Int = {
      val raw = varint(5)
      if (raw > 0xffffffffL) fail("i32 out of range")
      val n = raw.toInt
      (n >>> 1) ^ -(n & 1)
    }

    /** Reads a field header; returns (type, field id), type TStop at the end of a struct. */
    private def fieldHeader(lastId: Int): (Int, Int) = {
      val b = byte()
      val fieldType = b & 0x0f
      if (fieldType == TStop) return (TStop, 0)
      val delta = b >>> 4
      val id = if (delta != 0) lastId + delta
      else {
        val raw = varint(3)
        ((raw >>> 1) ^ -(raw & 1)).toInt
      }
      (fieldType, id)
    }

    def header(): Either[Invalid, Header] = {
      var numBytes: Option[Int] = None
      var algorithm: Option[Int] = None
      var hash: Option[Int] = None
      var compression: Option[Int] = None
      forEachField { (id, fieldType) =>
        (id, fieldType) match {
          case (1, TI32) => numBytes = Some(zigzagI32())
          case (2, TStruct) => algorithm = Some(unionMember())
          case (3, TStruct) => hash = Some(unionMember())
          case (4, TStruct) => compression = Some(unionMember())
          case (1 | 2 | 3 | 4, other) => fail(s"field $id has thrift type $other")
          case (_, other) => skip(other, 0)
        }
      }
      val headerLength = pos - start
      (numBytes, algorithm, hash, compression) match {
        case (None, _, _, _) => Left(Invalid("numBytes is missing"))
        case (_, None, _, _) | (_, _, None, _) | (_, _, _, None) =>
          Left(Invalid("algorithm, hash or compression is missing"))
        case (Some(n), _, _, _) if n < SplitBlockBloomFilter.BytesPerBlock =>
          Left(Invalid(s"numBytes $n is smaller than one block"))
        case (Some(n), _, _, _) if n % SplitBlockBloomFilter.BytesPerBlock != 0 =>
          Left(Invalid(s"numBytes $n is not a multiple of ${SplitBlockBloomFilter.BytesPerBlock}"))
        case (_, Some(a), _, _) if a != 1 => Left(Invalid(s"unknown algorithm (union member $a), only BLOCK is known"))
        case (_, _, Some(h), _) if h != 1 => Left(Invalid(s"unknown hash (union member $h), only XXHASH is known"))
        case (_, _, _, Some(c)) if c != 1 =>
          Left(Invalid(s"unknown compression (union member $c), only UNCOMPRESSED is known"))
        case (Some(n), _, _, _) => Right(Header(n, headerLength))
      }
    }

    /** Calls `onField(id, type)` for each field of the struct being read, up to its stop. */
    private def forEachField(onField: (Int, Int) => Unit): Unit = {
      var lastId = 0
      var (fieldType, id) = fieldHeader(lastId)
      while (fieldType != TStop) {
        lastId = id
        onField(id, fieldType)
        val next = fieldHeader(lastId)
        fieldType = next._1
        id = next._2
      }
    }

    /** Reads a union struct and returns the id of its one member (0 if it has none). */
    private def unionMember(): Int = {
      var member = 0
      forEachField { (id, fieldType) =>
        if (member != 0) fail("union has more than one member")
        member = id
        skip(fieldType, 1)
      }
      member
    }

    private def skip(fieldType: Int, depth: Int): Unit = {
      if (depth > MaxNesting) fail("nesting is too deep")
      fieldType match {
        case TTrue | TFalse => ()
        case TByte => byte()
        case TI16 | TI32 => varint(5)
        case TI64 => varint(10)
        case TDouble => skipBytes(8)
        case TBinary => skipBytes(varint(5))
        case TStruct => forEachField((_, t) => skip(t, depth + 1))
        case TList | TSet =>
          val sizeAndType = byte()
          val size = if ((sizeAndType >>> 4) == 15) varint(5) else (sizeAndType >>> 4).toLong
          val elementType = sizeAndType & 0x0f
          if (size > end - pos) fail("collection is longer than the header")
          var i = 0L
          while (i < size) { skipElement(elementType, depth + 1); i += 1 }
        case TMap =>
          val size = varint(5)
          if (size > 0) {
            val types = byte()
            if (size > end - pos) fail("map is longer than the header")
            var i = 0L
            while (i < size) { skipElement(types >>> 4, depth + 1); skipElement(types & 0x0f, depth + 1); i += 1 }
          }
        case other => fail(s"unknown thrift type $other")
      }
    }

    // In collections booleans take a byte each, unlike in fields.
    private def skipElement(elementType: Int, depth: Int): Unit =
      if (elementType == TTrue || elementType == TFalse) byte() else skip(elementType, depth)

    private def skipBytes(n: Long): Unit = {
      if (n < 0 || n > end - pos) fail("a field runs past the end of the header")
      pos += n.toInt
    }
  }
}
