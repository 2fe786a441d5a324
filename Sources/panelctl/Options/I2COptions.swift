import ArgumentParser
import PanelFirmware

/// Numbers the way i2c-tools read them (strtol base 0): `0x2a`, `42`, `052`.
enum I2CNumber {
  static func parse(_ text: String) -> Int? {
    let t = text.lowercased()
    if t.hasPrefix("0x") { return Int(t.dropFirst(2), radix: 16) }
    if t.count > 1 && t.hasPrefix("0") { return Int(t.dropFirst(), radix: 8) }
    return Int(t)
  }

  /// A 7-bit address in `range`, or a usage error naming `field`.
  static func address(_ text: String, field: String, range: ClosedRange<UInt8> = 0x00...0x7F) throws -> UInt8 {
    guard let v = parse(text) else {
      throw ValidationError("\(field) \"\(text)\" is not a number (write it as 0x2a or 42)")
    }
    guard v >= Int(range.lowerBound) && v <= Int(range.upperBound) else {
      throw OptionBounds.outOfRange(field, text, allowed: "\(hex(range.lowerBound))...\(hex(range.upperBound))")
    }
    return UInt8(v)
  }

  static func hex(_ v: UInt8) -> String { I2CAddress(v).description }
}

/// `--bus`: a device path, `i2c-1` or the adapter number as i2cdetect takes it.
enum BusName {
  static func path(_ text: String) -> String {
    if !text.isEmpty && text.allSatisfy(\.isNumber) { return "/dev/i2c-" + text }
    if text.hasPrefix("i2c-") { return "/dev/" + text }
    return text
  }
}
