/// The package's one JSON writer: every JSON document the tools write (the
/// certificate's summary, the evaluation, the server's documents, the
/// regions' pre-rendered fragments) is written with it, so there is one
/// escaper and one number format. Objects keep their keys' order.
///
/// - Strings (`quoted`): RFC 8259 — `"` and `\` escaped, `\n`, `\r`, `\t`
///   by name, other controls as `\u00XX` (lowercase hex); everything else,
///   UTF-8 included, as it is.
/// - Numbers (`number`): integral values below 1e15 as integers, others
///   the shortest text that reads back as the same `Double` (Swift's
///   `description`); NaN and infinities as `null`. Where a format
///   documents a resolution, `number(_:decimals:)` rounds to it first.
///
/// The frame path does not use it: the NDJSON encoder writes fixed-point
/// numbers straight into its buffer, and the regions' names and quick
/// actions it prints were rendered by this writer when their map was
/// compiled.
package struct JSONWriter: Sendable {
  /// The text so far.
  package private(set) var text = ""
  struct Level: Sendable {
    var close: Character?
    var first = true
  }
  var levels = [Level(close: nil)]
  /// A key was written: its value takes no comma.
  var afterKey = false

  /// An empty document, for `object { }` or `array { }`.
  package init() {}

  /// A document that is an object, opened: add members, then take `done`.
  package static func object() -> JSONWriter {
    var w = JSONWriter()
    w.open("{", "}")
    return w
  }

  /// A document that is an array, opened: add values, then take `done`.
  package static func array() -> JSONWriter {
    var w = JSONWriter()
    w.open("[", "]")
    return w
  }

  /// The text with every open object and array closed.
  package var done: String {
    var t = text
    for level in levels.reversed() { if let c = level.close { t.append(c) } }
    return t
  }

  // MARK: structure

  mutating func separator() {
    if afterKey {
      afterKey = false
    } else if levels[levels.count - 1].first {
      levels[levels.count - 1].first = false
    } else {
      text += ","
    }
  }

  mutating func open(_ bracket: Character, _ close: Character) {
    separator()
    text.append(bracket)
    levels.append(Level(close: close))
  }

  mutating func close() {
    if let c = levels.removeLast().close { text.append(c) }
  }

  /// An object's key; its value comes next.
  package mutating func key(_ k: String) {
    separator()
    text += JSONWriter.quoted(k) + ":"
    afterKey = true
  }

  /// A value that is JSON already (a number, a nested document).
  package mutating func value(_ json: String) {
    separator()
    text += json
  }

  /// A nested object, written by `body`.
  package mutating func object(_ body: (inout JSONWriter) -> Void) {
    open("{", "}")
    body(&self)
    close()
  }

  /// A nested array, written by `body`.
  package mutating func array(_ body: (inout JSONWriter) -> Void) {
    open("[", "]")
    body(&self)
    close()
  }

  // MARK: members

  package mutating func field(_ k: String, json: String) {
    key(k)
    value(json)
  }
  /// A string member (`null` for nil).
  package mutating func field(_ k: String, _ v: String?) { field(k, json: v.map(JSONWriter.quoted) ?? "null") }
  /// A number member (`null` for nil, NaN and infinities).
  package mutating func field(_ k: String, _ v: Double?) { field(k, json: v.map(JSONWriter.number) ?? "null") }
  package mutating func field(_ k: String, _ v: Int) { field(k, json: String(v)) }
  package mutating func field(_ k: String, _ v: Int64) { field(k, json: String(v)) }
  package mutating func field(_ k: String, _ v: UInt64) { field(k, json: String(v)) }
  package mutating func field(_ k: String, _ v: Bool) { field(k, json: v ? "true" : "false") }
  package mutating func field(_ k: String, object body: (inout JSONWriter) -> Void) {
    key(k)
    object(body)
  }
  package mutating func field(_ k: String, array body: (inout JSONWriter) -> Void) {
    key(k)
    array(body)
  }

  // MARK: the one escaper and the one number format

  /// `s` as a JSON string, quotes included.
  package static func quoted(_ s: String) -> String { String(decoding: quotedUTF8(s), as: UTF8.self) }

  /// `s` as a JSON string, quotes included, in UTF-8.
  package static func quotedUTF8(_ s: String) -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "\"")]
    out.reserveCapacity(s.utf8.count + 2)
    let hex = Array("0123456789abcdef".utf8)
    for b in s.utf8 {
      switch b {
      case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
      default: out.append(b)
      }
    }
    out.append(UInt8(ascii: "\""))
    return out
  }

  /// `v` as a JSON number: integral values below 1e15 without a point,
  /// others the shortest text that reads back the same; `null` when not
  /// finite.
  package static func number(_ v: Double) -> String {
    guard v.isFinite else { return "null" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return String(v)
  }

  /// `v` rounded to `decimals` places first (a documented resolution).
  package static func number(_ v: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return number((v * scale).rounded() / scale)
  }
}
