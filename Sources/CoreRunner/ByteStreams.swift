/// Where a run's script comes from: a file on a host, semihosting or a
/// UART on a microcontroller.
public protocol ByteSource {
  /// Reads up to `buffer.count` bytes into `buffer`; returns how many, 0 at
  /// the end (or -1 on an error).
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
}

/// Where a run's trace goes.
public protocol ByteSink {
  /// Writes all of `bytes`; returns false on an error.
  mutating func write(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// Splits a byte stream into lines, in a buffer of fixed size (the longest
/// line: a frame of 256 cells of 24-bit counts is under 2.5 kB).
struct LineReader {
  static let capacity = 8192
  var bytes: InlineArray<8192, UInt8> = InlineArray(repeating: 0)
  /// The line found by `next`: `bytes[lineStart..<lineEnd]`, no newline.
  var lineStart = 0
  var lineEnd = 0
  /// Unread bytes: `bytes[next..<end]`.
  var next = 0
  var end = 0
  var atEnd = false
  /// 1-based number of the current line.
  var number = 0

  enum Outcome { case line, end, tooLong, readError }

  /// Back to no byte read (in place: the buffer stays where it is).
  mutating func reset() {
    lineStart = 0
    lineEnd = 0
    next = 0
    end = 0
    atEnd = false
    number = 0
  }

  /// Finds the next line, reading more from `source` as needed.
  mutating func advance<S: ByteSource>(_ source: inout S) -> Outcome {
    while true {
      var i = next
      while i < end && bytes[i] != 10 { i += 1 }
      if i < end || (atEnd && next < end) {
        number += 1
        lineStart = next
        lineEnd = i
        next = i < end ? i + 1 : end
        if lineEnd > lineStart && bytes[lineEnd - 1] == 13 { lineEnd -= 1 }  // CRLF
        return .line
      }
      if atEnd { return .end }
      // Move the partial line to the front and read more.
      if next > 0 {
        var k = 0
        while next + k < end {
          bytes[k] = bytes[next + k]
          k += 1
        }
        end = k
        next = 0
      }
      if end == LineReader.capacity { return .tooLong }
      let from = end
      var span = bytes.mutableSpan
      let count = span.withUnsafeMutableBytes { raw in
        source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[from...]))
      }
      if count < 0 { return .readError }
      if count == 0 { atEnd = true } else { end += count }
    }
  }
}

/// Builds lines of text in a fixed buffer and writes them to a sink.
struct LineWriter {
  static let capacity = 1024
  var bytes: InlineArray<1024, UInt8> = InlineArray(repeating: 0)
  var count = 0
  var failed = false

  mutating func byte<W: ByteSink>(_ b: UInt8, _ sink: inout W) {
    if count == LineWriter.capacity { flush(&sink) }
    bytes[count] = b
    count += 1
  }

  mutating func text<W: ByteSink>(_ s: StaticString, _ sink: inout W) {
    let p = s.utf8Start
    for i in 0..<s.utf8CodeUnitCount { byte(p[i], &sink) }
  }

  /// A space, then `value` in decimal.
  mutating func field<W: ByteSink>(_ value: Int64, _ sink: inout W) {
    byte(32, &sink)
    decimal(value, &sink)
  }

  mutating func decimal<W: ByteSink>(_ value: Int64, _ sink: inout W) {
    if value < 0 { byte(45, &sink) }
    var m = value.magnitude
    var digits: InlineArray<20, UInt8> = InlineArray(repeating: 0)
    var n = 0
    repeat {
      let q = m / 10
      digits[n] = 48 &+ UInt8(truncatingIfNeeded: m &- q &* 10)
      n += 1
      m = q
    } while m != 0
    while n > 0 {
      n -= 1
      byte(digits[n], &sink)
    }
  }

  /// A space, then `value` as 8 hexadecimal digits.
  mutating func hex<W: ByteSink>(_ value: UInt32, _ sink: inout W) {
    byte(32, &sink)
    var shift: UInt32 = 28
    while true {
      let d = UInt8(truncatingIfNeeded: (value &>> shift) & 15)
      byte(d < 10 ? 48 &+ d : 87 &+ d, &sink)
      if shift == 0 { break }
      shift &-= 4
    }
  }

  mutating func endLine<W: ByteSink>(_ sink: inout W) {
    byte(10, &sink)
  }

  mutating func flush<W: ByteSink>(_ sink: inout W) {
    guard count > 0 else { return }
    let n = count
    var span = bytes.mutableSpan
    let ok = span.withUnsafeMutableBytes { raw in sink.write(UnsafeRawBufferPointer(rebasing: raw[..<n])) }
    if !ok { failed = true }
    count = 0
  }
}
