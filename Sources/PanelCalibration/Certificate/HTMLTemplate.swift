/// A page from a template file: `{{name}}` slots, each a case of `Slot`,
/// filled with HTML text. A slot alone on its line is a block: the line is
/// replaced by the slot's text (nothing, or lines each ending in a
/// newline); a slot within a line takes its text in place.
struct HTMLTemplate<Slot: RawRepresentable & CaseIterable & Sendable>: Sendable where Slot.RawValue == String {
  enum Part: Sendable {
    case text(Substring)
    case slot(Slot)
  }

  let parts: [Part]

  /// Reads `text`; a slot that names no case of `Slot`, or an unclosed
  /// one, stops the program (the template is compiled in: a test renders it).
  init(_ text: String) {
    var parts: [Part] = []
    var rest = Substring(text)
    var afterBlock = true  // the text's start is a line's
    while let open = rest.firstRange(of: "{{") {
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
        preconditionFailure("template: an unclosed {{ at \(rest[open.lowerBound...].prefix(40))")
      }
      let name = String(rest[open.upperBound..<close.lowerBound])
      guard let slot = Slot(rawValue: name) else { preconditionFailure("template: no slot {{\(name)}}") }
      var after = close.upperBound
      // A block: alone on its line, the line's newline goes with it.
      let lineStart =
        open.lowerBound == rest.startIndex ? afterBlock : rest[rest.index(before: open.lowerBound)] == "\n"
      afterBlock = lineStart && after < rest.endIndex && rest[after] == "\n"
      if afterBlock { after = rest.index(after: after) }
      parts.append(.text(rest[..<open.lowerBound]))
      parts.append(.slot(slot))
      rest = rest[after...]
    }
    parts.append(.text(rest))
    self.parts = parts
  }

  /// The page, each slot's text from `fill`.
  func render(_ fill: (Slot) -> String) -> String {
    var out = ""
    for part in parts {
      switch part {
      case .text(let t): out += t
      case .slot(let s): out += fill(s)
      }
    }
    return out
  }

  /// The slots the template uses, in order.
  var slots: [Slot] {
    parts.compactMap { if case .slot(let s) = $0 { s } else { nil } }
  }
}
