import PanelFormats

/// One OSC argument.
public enum OSCArgument: Equatable, Sendable, CustomStringConvertible {
  case int32(Int32)
  case float32(Float)
  case string(String)
  case timeTag(OSCTimeTag)
  case blob([UInt8])

  public var description: String {
    switch self {
    case .int32(let v): return String(v)
    case .float32(let v): return String(v)
    case .string(let s): return "\"" + s + "\""
    case .timeTag(let t): return "\(t.seconds).\(t.fraction)t"
    case .blob(let b): return "<\(b.count) bytes>"
    }
  }
}

/// One OSC message: address, type tags (with the leading comma) and
/// arguments.
public struct OSCMessage: Equatable, Sendable {
  public var address: String
  public var tags: String
  public var arguments: [OSCArgument]
}

/// A packet that breaks OSC 1.0: where and how.
public struct OSCFormatError: Error, Equatable, Sendable, CustomStringConvertible {
  public var offset: Int
  public var message: String
  public var description: String { "byte \(offset): \(message)" }
}

/// Strict OSC 1.0 decoding, for `panelctl listen` and tests: unlike lenient
/// decoders it rejects sizes that are not multiples of 4, strings without a
/// terminating NUL or with non-NUL padding, unknown type tags, arguments
/// that run past their message and bytes left over after them.
public enum OSCReader {
  /// A packet's messages in order (nested bundles flattened) and the
  /// outermost bundle's time tag (nil for a bare message).
  public static func parse(_ bytes: [UInt8]) throws(OSCFormatError) -> (time: OSCTimeTag?, messages: [OSCMessage]) {
    var messages: [OSCMessage] = []
    var time: OSCTimeTag?
    try element(bytes, 0, bytes.count, &messages, &time)
    return (time, messages)
  }

  static func element(
    _ b: [UInt8], _ start: Int, _ end: Int, _ messages: inout [OSCMessage], _ time: inout OSCTimeTag?
  ) throws(OSCFormatError) {
    guard (end - start) % 4 == 0 else {
      throw OSCFormatError(offset: start, message: "size \(end - start) is not a multiple of 4")
    }
    if end - start >= 8 && Array(b[start..<start + 8]) == Array("#bundle\0".utf8) {
      guard end - start >= 16 else { throw OSCFormatError(offset: start, message: "bundle without a time tag") }
      let t = OSCTimeTag(seconds: u32(b, start + 8), fraction: u32(b, start + 12))
      if time == nil { time = t }
      var p = start + 16
      while p < end {
        guard p + 4 <= end else { throw OSCFormatError(offset: p, message: "truncated element size") }
        let size = Int(u32(b, p))
        guard size % 4 == 0, p + 4 + size <= end else {
          throw OSCFormatError(offset: p, message: "element size \(size) is not a multiple of 4 or runs past the bundle")
        }
        try element(b, p + 4, p + 4 + size, &messages, &time)
        p += 4 + size
      }
      return
    }
    messages.append(try message(b, start, end))
  }

  static func message(_ b: [UInt8], _ start: Int, _ end: Int) throws(OSCFormatError) -> OSCMessage {
    var p = start
    let address = try string(b, &p, end)
    guard address.hasPrefix("/") else { throw OSCFormatError(offset: start, message: "address \(Quote.text(address)) does not start with /") }
    let tagsAt = p
    let tags = try string(b, &p, end)
    guard tags.hasPrefix(",") else { throw OSCFormatError(offset: tagsAt, message: "type tags \(Quote.text(tags)) do not start with ,") }
    var arguments: [OSCArgument] = []
    for tag in tags.utf8.dropFirst() {
      switch tag {
      case UInt8(ascii: "i"):
        guard p + 4 <= end else { throw OSCFormatError(offset: p, message: "int32 runs past the message") }
        arguments.append(.int32(Int32(bitPattern: u32(b, p))))
        p += 4
      case UInt8(ascii: "f"):
        guard p + 4 <= end else { throw OSCFormatError(offset: p, message: "float32 runs past the message") }
        arguments.append(.float32(Float(bitPattern: u32(b, p))))
        p += 4
      case UInt8(ascii: "t"):
        guard p + 8 <= end else { throw OSCFormatError(offset: p, message: "time tag runs past the message") }
        arguments.append(.timeTag(OSCTimeTag(seconds: u32(b, p), fraction: u32(b, p + 4))))
        p += 8
      case UInt8(ascii: "s"):
        arguments.append(.string(try string(b, &p, end)))
      case UInt8(ascii: "b"):
        guard p + 4 <= end else { throw OSCFormatError(offset: p, message: "blob size runs past the message") }
        let n = Int(u32(b, p))
        let padded = (n + 3) / 4 * 4
        guard p + 4 + padded <= end else { throw OSCFormatError(offset: p, message: "blob runs past the message") }
        arguments.append(.blob(Array(b[p + 4..<p + 4 + n])))
        p += 4 + padded
      default:
        throw OSCFormatError(offset: tagsAt, message: "unknown type tag \(Quote.text(String(Character(Unicode.Scalar(tag))))) in \(Quote.text(tags))")
      }
    }
    guard p == end else {
      throw OSCFormatError(offset: p, message: "\(end - p) bytes after the arguments of \(address) \(tags)")
    }
    return OSCMessage(address: address, tags: tags, arguments: arguments)
  }

  /// A NUL-terminated string padded with NULs to a multiple of 4.
  static func string(_ b: [UInt8], _ p: inout Int, _ end: Int) throws(OSCFormatError) -> String {
    let start = p
    var nul = p
    while nul < end && b[nul] != 0 { nul += 1 }
    guard nul < end else { throw OSCFormatError(offset: start, message: "string without a terminating NUL") }
    let padded = start + ((nul - start) / 4 + 1) * 4
    guard padded <= end else { throw OSCFormatError(offset: start, message: "string padding runs past the message") }
    for i in nul..<padded where b[i] != 0 {
      throw OSCFormatError(offset: i, message: "non-NUL byte in string padding")
    }
    p = padded
    return String(decoding: b[start..<nul], as: UTF8.self)
  }

  static func u32(_ b: [UInt8], _ p: Int) -> UInt32 {
    UInt32(b[p]) << 24 | UInt32(b[p + 1]) << 16 | UInt32(b[p + 2]) << 8 | UInt32(b[p + 3])
  }
}
