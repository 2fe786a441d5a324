/// The space-separated words of the reader's current line, read in order.
struct Tokens {
  var position: Int
  let end: Int

  init(_ reader: LineReader) {
    position = reader.lineStart
    end = reader.lineEnd
  }

  /// The next word as `start..<end` in the reader's buffer, or nil at the
  /// end of the line.
  mutating func next(_ reader: inout LineReader) -> Range<Int>? {
    while position < end && (reader.bytes[position] == 32 || reader.bytes[position] == 9) { position += 1 }
    guard position < end else { return nil }
    let start = position
    while position < end && reader.bytes[position] != 32 && reader.bytes[position] != 9 { position += 1 }
    return start..<position
  }

  /// Whether the line has no words left.
  mutating func isAtEnd(_ reader: inout LineReader) -> Bool {
    let saved = position
    defer { position = saved }
    return next(&reader) == nil
  }
}

extension LineReader {
  /// Whether `word` is `text`.
  mutating func word(_ word: Range<Int>, is text: StaticString) -> Bool {
    guard word.count == text.utf8CodeUnitCount else { return false }
    let p = text.utf8Start
    var i = 0
    for k in word {
      if bytes[k] != p[i] { return false }
      i += 1
    }
    return true
  }

  /// `word` as a decimal integer (optional sign), nil when it is not one
  /// or does not fit 64 bits.
  mutating func integer(_ word: Range<Int>) -> Int64? {
    var k = word.lowerBound
    var negative = false
    if k < word.upperBound && (bytes[k] == 45 || bytes[k] == 43) {
      negative = bytes[k] == 45
      k += 1
    }
    guard k < word.upperBound else { return nil }
    var magnitude: UInt64 = 0
    while k < word.upperBound {
      let b = bytes[k]
      guard b >= 48 && b <= 57 else { return nil }
      let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(_truncatingBits: UInt(b &- 48)))
      if o1 || o2 { return nil }
      magnitude = sum
      k += 1
    }
    let limit: UInt64 = negative ? 0x8000_0000_0000_0000 : 0x7FFF_FFFF_FFFF_FFFF
    guard magnitude <= limit else { return nil }
    let value = Int64(bitPattern: magnitude)
    return negative ? 0 &- value : value
  }
}
