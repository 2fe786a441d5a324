/// Parses TOML integers and floats from the bytes of one token.
enum TOMLNumber {
  /// Why a token is not a valid number; the message is ready for a `FileError`.
  struct Invalid: Error {
    let message: String
  }

  /// Parses `token` (already known to start with a digit or a sign) as an
  /// integer (`-12`, `1_000`, `0xFF`, `0o17`, `0b101`) or a float (`0.8`, `1e3`, `-2.5E-3`).
  static func parse(_ token: ArraySlice<UInt8>) -> Result<TOMLValue, Invalid> {
    let bytes = Array(token)
    var quoted: String { Quote.bytes(bytes) }
    var invalid: Invalid { Invalid(message: "invalid number \(quoted)") }
    var outOfRange: Invalid { Invalid(message: "number \(quoted) is out of range") }
    var index = 0
    var negative = false
    var signed = false
    if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
      negative = first == UInt8(ascii: "-")
      signed = true
      index = 1
    }

    // 0x, 0o, 0b
    if bytes.count >= index + 2, bytes[index] == UInt8(ascii: "0"),
      let radix = radix(of: bytes[index + 1])
    {
      guard !signed else {
        return .failure(Invalid(message: "invalid number \(quoted) (no sign allowed before 0x, 0o or 0b)"))
      }
      guard let end = scanDigits(bytes, from: index + 2, radix: radix), end == bytes.count else {
        return .failure(invalid)
      }
      guard let value = accumulate(bytes[(index + 2)..<end], radix: radix, negative: false) else {
        return .failure(outOfRange)
      }
      return .success(.integer(value))
    }

    guard let integerEnd = scanDigits(bytes, from: index, radix: 10) else {
      return .failure(invalid)
    }
    let integerDigits = bytes[index..<integerEnd].filter { $0 != UInt8(ascii: "_") }
    if integerDigits.count > 1, integerDigits.first == UInt8(ascii: "0") {
      return .failure(Invalid(message: "invalid number \(quoted) (leading zeros are not allowed)"))
    }
    var end = integerEnd
    var isFloat = false
    if end < bytes.count, bytes[end] == UInt8(ascii: ".") {
      isFloat = true
      guard let fractionEnd = scanDigits(bytes, from: end + 1, radix: 10) else {
        return .failure(invalid)
      }
      end = fractionEnd
    }
    if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
      isFloat = true
      end += 1
      if end < bytes.count, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") {
        end += 1
      }
      guard let exponentEnd = scanDigits(bytes, from: end, radix: 10) else {
        return .failure(invalid)
      }
      end = exponentEnd
    }
    guard end == bytes.count else {
      return .failure(invalid)
    }
    if isFloat {
      let cleaned = String(decoding: bytes.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
      guard let value = Double(cleaned), value.isFinite else {
        return .failure(outOfRange)
      }
      return .success(.float(value))
    }
    guard let value = accumulate(bytes[index..<integerEnd], radix: 10, negative: negative) else {
      return .failure(outOfRange)
    }
    return .success(.integer(value))
  }

  /// The index after a run of digits in which every `_` sits between two
  /// digits; nil when there is no digit or an `_` is misplaced.
  private static func scanDigits(_ bytes: [UInt8], from start: Int, radix: Int) -> Int? {
    var index = start
    var sawDigit = false
    var lastWasDigit = false
    while index < bytes.count {
      let byte = bytes[index]
      if let digit = digitValue(byte), digit < radix {
        sawDigit = true
        lastWasDigit = true
      } else if byte == UInt8(ascii: "_") {
        guard lastWasDigit else { return nil }
        lastWasDigit = false
      } else {
        break
      }
      index += 1
    }
    return sawDigit && lastWasDigit ? index : nil
  }

  /// The value of validated digits (underscores skipped), nil on overflow.
  private static func accumulate(_ digits: ArraySlice<UInt8>, radix: Int, negative: Bool) -> Int64? {
    // Accumulate as a negative number so that Int64.min is reachable.
    var value: Int64 = 0
    for byte in digits {
      guard let digit = digitValue(byte) else { continue }
      let (shifted, overflow1) = value.multipliedReportingOverflow(by: Int64(radix))
      let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit))
      if overflow1 || overflow2 {
        return nil
      }
      value = next
    }
    if negative {
      return value
    }
    return value == .min ? nil : -value
  }

  private static func radix(of byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "x"): 16
    case UInt8(ascii: "o"): 8
    case UInt8(ascii: "b"): 2
    default: nil
    }
  }

  private static func digitValue(_ byte: UInt8) -> Int? {
    hexValue(byte).map(Int.init)
  }

  /// The value of a hex digit (either case), nil for anything else.
  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
