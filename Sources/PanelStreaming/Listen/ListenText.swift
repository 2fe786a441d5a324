import PanelFormats

/// How `listen` prints TUIO bundles.
enum TUIOText {
  /// One line per message: address, type tags, arguments.
  static func raw(_ messages: [OSCMessage]) -> String {
    messages.map { m in
      Quote.printable(([m.address, m.tags] + m.arguments.map(\.description)).joined(separator: " ")) + "\n"
    }.joined()
  }

  /// One JSON object per bundle: the frame, its touches (position, and for
  /// TUIO 2.0 pressure; stage and force from the extension), alive ids,
  /// events.
  static func json(_ messages: [OSCMessage]) -> String {
    var fields: [String] = []
    var touches: [(id: Int32, fields: [String])] = []
    var events: [String] = []
    var alive: [Int32] = []
    func touch(_ id: Int32) -> Int {
      if let i = touches.firstIndex(where: { $0.id == id }) { return i }
      touches.append((id, ["\"id\":\(id)"]))
      return touches.count - 1
    }
    for m in messages {
      let a = m.arguments
      switch (m.address, a.first) {
      case ("/tuio2/frm", _) where a.count == 4:
        fields.append("\"tuio\":2")
        if case .int32(let f) = a[0] { fields.append("\"frame\":\(f)") }
        if case .timeTag(let t) = a[1] {
          let seconds = Double(Int64(t.seconds) - OSCTimeTag.unixOffset) + Double(t.fraction) / 4_294_967_296
          fields.append("\"time\":\(number(seconds))")
        }
        if case .string(let s) = a[3] { fields.append("\"source\":\(quoted(s))") }
      case ("/tuio2/ptr", .int32(let id)?) where a.count >= 9:
        let i = touch(id)
        touches[i].fields += ["\"x\":\(value(a[3]))", "\"y\":\(value(a[4]))", "\"press\":\(value(a[8]))"]
      case ("/tuio2/alv", _):
        alive = a.compactMap { if case .int32(let v) = $0 { v } else { nil } }
      case ("/tuio/2Dcur", .string("source")?) where a.count == 2:
        fields.append("\"tuio\":1")
        if case .string(let s) = a[1] { fields.append("\"source\":\(quoted(s))") }
      case ("/tuio/2Dcur", .string("alive")?):
        alive = a.dropFirst().compactMap { if case .int32(let v) = $0 { v } else { nil } }
      case ("/tuio/2Dcur", .string("set")?) where a.count == 7:
        if case .int32(let id) = a[1] {
          let i = touch(id)
          touches[i].fields += [
            "\"x\":\(value(a[2]))", "\"y\":\(value(a[3]))", "\"vx\":\(value(a[4]))", "\"vy\":\(value(a[5]))",
          ]
        }
      case ("/tuio/2Dcur", .string("fseq")?) where a.count == 2:
        if case .int32(let f) = a[1] { fields.append("\"frame\":\(f)") }
      case ("/forcepanel/stage", .int32(let id)?) where a.count == 3:
        let i = touch(id)
        touches[i].fields += ["\"stage\":\(value(a[1]))", "\"force_n\":\(value(a[2]))"]
      case ("/forcepanel/event", .string(let type)?) where a.count == 2:
        events.append("{\"type\":\(quoted(type)),\"touch\":\(value(a[1]))}")
      default:
        fields.append("\"unknown\":\(quoted(m.address + " " + m.tags))")
      }
    }
    fields.append("\"touches\":[" + touches.map { "{" + $0.fields.joined(separator: ",") + "}" }.joined(separator: ",") + "]")
    fields.append("\"alive\":[" + alive.map(String.init).joined(separator: ",") + "]")
    fields.append("\"events\":[" + events.joined(separator: ",") + "]")
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// An OSC argument as a JSON value: integers and finite floats as
  /// numbers, strings escaped, a time tag as seconds since 1970, and
  /// `null` for what JSON cannot hold (NaN, infinities, blobs).
  static func value(_ a: OSCArgument) -> String {
    switch a {
    case .int32(let v): return String(v)
    case .float32(let v): return v.isFinite ? "\(v)" : "null"
    case .string(let s): return quoted(s)
    case .timeTag(let t):
      return number(Double(Int64(t.seconds) - OSCTimeTag.unixOffset) + Double(t.fraction) / 4_294_967_296)
    case .blob: return "null"
    }
  }

  /// A finite number as JSON, `null` otherwise.
  static func number(_ v: Double) -> String { v.isFinite ? "\(v)" : "null" }

  /// A JSON string: quotes, backslashes and every character that does not
  /// print as itself (controls, format characters, separators) escaped.
  static func quoted(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      default: ListenText.append(c, to: &out)
      }
    }
    return out + "\""
  }
}

/// Text from the network made safe for a terminal.
enum ListenText {
  /// A received NDJSON line (without its newline) with every character
  /// that does not print as itself escaped the JSON way (`\u001b`), so a
  /// valid line stays valid and means the same; then a newline.
  static func escapedLine(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) { return Array(bytes) + [10] }
    var out = ""
    for c in String(decoding: bytes, as: UTF8.self).unicodeScalars { append(c, to: &out) }
    return Array(out.utf8) + [10]
  }

  /// `c`, or its JSON escape when it does not print as itself.
  static func append(_ c: Unicode.Scalar, to out: inout String) {
    if c.value >= 0x20 && Quote.isPrintable(c) {
      out.unicodeScalars.append(c)
      return
    }
    for unit in String(c).utf16 {
      let hex = String(unit, radix: 16)
      out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
  }
}
