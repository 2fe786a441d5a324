/// Hand-written, allocation-free number parsing and formatting for recording rows.
enum RecordingText {
  typealias Bytes = UnsafeBufferPointer<UInt8>

  enum ParsedInteger {
    case value(Int64)
    case invalid
    case overflow
  }

  static func isSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
  }

  static func isBlank(_ bytes: Bytes) -> Bool {
    bytes.allSatisfy(isSpace)
  }

  /// `field` without surrounding spaces and tabs.
  static func trimmed(_ field: Slice<Bytes>) -> Slice<Bytes> {
    var low = field.startIndex
    var high = field.endIndex
    while low < high, isSpace(field[low]) {
      low += 1
    }
    while high > low, isSpace(field[high - 1]) {
      high -= 1
    }
    return field[low..<high]
  }

  /// A signed decimal integer (`-12`, `+7`, `0`), surrounding spaces allowed.
  static func integer(_ row: Bytes, _ range: Range<Int>) -> ParsedInteger {
    let field = trimmed(row[range])
    var index = field.startIndex
    var negative = false
    if index < field.endIndex, field[index] == UInt8(ascii: "-") || field[index] == UInt8(ascii: "+") {
      negative = field[index] == UInt8(ascii: "-")
      index += 1
    }
    guard index < field.endIndex else { return .invalid }
    // Accumulate as a negative number so that Int64.min is reachable.
    var value: Int64 = 0
    var overflow = false
    while index < field.endIndex {
      let digit = field[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return .invalid }
      let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit))
      overflow = overflow || overflow1 || overflow2
      value = next
      index += 1
    }
    if overflow || (!negative && value == .min) {
      return .overflow
    }
    return .value(negative ? value : -value)
  }

  private static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// A decimal number (`24.125`, `-3`, `.5`, `1e2`), surrounding spaces allowed;
  /// nil when malformed. Short inputs (the usual case) are converted exactly
  /// without allocating; very long ones fall back to the standard library.
  static func decimal(_ row: Bytes, _ range: Range<Int>) -> Double? {
    let field = trimmed(row[range])
    var index = field.startIndex
    let end = field.endIndex
    var negative = false
    if index < end, field[index] == UInt8(ascii: "-") || field[index] == UInt8(ascii: "+") {
      negative = field[index] == UInt8(ascii: "-")
      index += 1
    }
    var mantissa: UInt64 = 0
    var exponent = 0
    var sawDigit = false
    var inexact = false
    while index < end, case let digit = field[index] &- UInt8(ascii: "0"), digit < 10 {
      sawDigit = true
      if mantissa < 100_000_000_000_000_000 {
        mantissa = mantissa * 10 + UInt64(digit)
      } else {
        exponent += 1
        inexact = true
      }
      index += 1
    }
    if index < end, field[index] == UInt8(ascii: ".") {
      index += 1
      while index < end, case let digit = field[index] &- UInt8(ascii: "0"), digit < 10 {
        sawDigit = true
        if mantissa < 100_000_000_000_000_000 {
          mantissa = mantissa * 10 + UInt64(digit)
          exponent -= 1
        } else {
          inexact = true
        }
        index += 1
      }
    }
    guard sawDigit else { return nil }
    if index < end, field[index] == UInt8(ascii: "e") || field[index] == UInt8(ascii: "E") {
      index += 1
      var exponentNegative = false
      if index < end, field[index] == UInt8(ascii: "-") || field[index] == UInt8(ascii: "+") {
        exponentNegative = field[index] == UInt8(ascii: "-")
        index += 1
      }
      var written = 0
      var sawExponentDigit = false
      while index < end, case let digit = field[index] &- UInt8(ascii: "0"), digit < 10 {
        sawExponentDigit = true
        written = min(written * 10 + Int(digit), 100_000)
        index += 1
      }
      guard sawExponentDigit else { return nil }
      exponent += exponentNegative ? -written : written
    }
    guard index == end else { return nil }
    let magnitude: Double
    if !inexact, mantissa < 1 << 53, abs(exponent) < powersOfTen.count {
      let power = powersOfTen[abs(exponent)]
      magnitude = exponent < 0 ? Double(mantissa) / power : Double(mantissa) * power
    } else {
      guard let parsed = Double(String(decoding: field, as: UTF8.self)) else { return nil }
      magnitude = parsed.magnitude
    }
    guard magnitude.isFinite else { return nil }
    return negative ? -magnitude : magnitude
  }

  /// Writes `value` in decimal at `destination`; returns the byte count (at most 20).
  static func put(_ value: Int64, at destination: UnsafeMutablePointer<UInt8>) -> Int {
    if value < 0 {
      destination[0] = UInt8(ascii: "-")
      return 1 + put(unsigned: value.magnitude, at: destination + 1)
    }
    return put(unsigned: value.magnitude, at: destination)
  }

  /// Writes `value` in decimal at `destination`; returns the byte count (at most 20).
  static func put(unsigned value: UInt64, at destination: UnsafeMutablePointer<UInt8>) -> Int {
    var digits = 1
    var probe = value
    while probe >= 10 {
      probe /= 10
      digits += 1
    }
    var rest = value
    var index = digits - 1
    while index >= 0 {
      destination[index] = UInt8(ascii: "0") + UInt8(rest % 10)
      rest /= 10
      index -= 1
    }
    return digits
  }

  /// Writes `value` with exactly three decimals (`24.125`, `-0.500`); returns
  /// the byte count (at most 21). `value` must be finite, |value| < 1e15.
  static func putMillis(_ value: Double, at destination: UnsafeMutablePointer<UInt8>) -> Int {
    let scaled = Int64((value * 1000).rounded())
    var count = 0
    if scaled < 0 {
      destination[0] = UInt8(ascii: "-")
      count = 1
    }
    let magnitude = scaled.magnitude
    count += put(unsigned: magnitude / 1000, at: destination + count)
    destination[count] = UInt8(ascii: ".")
    let fraction = magnitude % 1000
    destination[count + 1] = UInt8(ascii: "0") + UInt8(fraction / 100)
    destination[count + 2] = UInt8(ascii: "0") + UInt8(fraction / 10 % 10)
    destination[count + 3] = UInt8(ascii: "0") + UInt8(fraction % 10)
    return count + 4
  }
}
