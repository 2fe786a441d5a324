import PanelFirmware

/// A JSON object or array written as text, for the server's small
/// documents (`/panel.json`, `/status.json`, control replies).
struct JSONWriter {
  private(set) var text: String
  private let close: Character
  private var first = true

  static func object() -> JSONWriter { JSONWriter(text: "{", close: "}") }
  static func array() -> JSONWriter { JSONWriter(text: "[", close: "]") }

  private init(text: String, close: Character) {
    self.text = text
    self.close = close
  }

  /// The finished document.
  var done: String { text + String(close) }

  /// A member of an object, `value` already JSON.
  mutating func raw(_ key: String, _ value: String) {
    separate()
    text += JSONWriter.quoted(key) + ":" + value
  }

  /// An element of an array, already JSON.
  mutating func raw(_ value: String) {
    separate()
    text += value
  }

  mutating func add(_ key: String, _ value: String?) { raw(key, value.map(JSONWriter.quoted) ?? "null") }
  mutating func add(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
  mutating func add(_ key: String, _ value: Int) { raw(key, String(value)) }
  mutating func add(_ key: String, _ value: Int64) { raw(key, String(value)) }
  mutating func add(_ key: String, _ value: UInt64) { raw(key, String(value)) }
  mutating func add(_ key: String, _ value: Double?) { raw(key, value.map(JSONWriter.number) ?? "null") }

  private mutating func separate() {
    if !first { text += "," }
    first = false
  }

  static func quoted(_ s: String) -> String { String(decoding: JSONText.quoted(s), as: UTF8.self) }

  /// A finite number as Swift writes it (shortest form that reads back the
  /// same, valid JSON); NaN and infinities are null.
  static func number(_ v: Double) -> String {
    guard v.isFinite else { return "null" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return String(v)
  }

  /// `v` rounded to `decimals` places.
  static func number(_ v: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    return number((v * scale).rounded() / scale)
  }
}
