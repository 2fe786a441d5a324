/// Byte values the TOML parser looks at.
enum TOMLByte {
  static let tab = UInt8(ascii: "\t")
  static let newline = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")
  static let space = UInt8(ascii: " ")
  static let hash = UInt8(ascii: "#")
  static let equals = UInt8(ascii: "=")
  static let comma = UInt8(ascii: ",")
  static let dot = UInt8(ascii: ".")
  static let quote = UInt8(ascii: "\"")
  static let apostrophe = UInt8(ascii: "'")
  static let backslash = UInt8(ascii: "\\")
  static let openBracket = UInt8(ascii: "[")
  static let closeBracket = UInt8(ascii: "]")
  static let openBrace = UInt8(ascii: "{")
  static let closeBrace = UInt8(ascii: "}")
}

/// A node of the mutable tree the parser builds; frozen into `TOMLTable`s at the end.
final class TOMLNode {
  /// How a table came to exist, which decides whether it may be defined or extended later.
  enum Origin {
    case root
    /// `[name]` or `[[name]]` header.
    case header
    /// A parent created by a header like `[a.b]` before `[a]` (if ever) appears.
    case implicit
    /// Created by a dotted key such as `a.b = 1`.
    case dotted
    /// `{ ... }`.
    case inline
  }

  enum Kind {
    case table(Origin)
    case arrayOfTables
    case value(TOMLParsed)
  }

  var kind: Kind
  let name: String
  var line: Int
  /// How deep the node is: the root 0, `[a]` 1, `[a.b]` and `a.b = 1` 2;
  /// an element of an array of tables is one deeper than the array.
  let level: Int
  private(set) var keys: [String] = []
  private(set) var children: [String: TOMLNode] = [:]
  var elements: [TOMLNode] = []

  init(kind: Kind, name: String, line: Int, level: Int) {
    self.kind = kind
    self.name = name
    self.line = line
    self.level = level
  }

  func add(_ key: String, _ child: TOMLNode) {
    keys.append(key)
    children[key] = child
  }

  /// What this node is, for conflict messages: "a value (line 3)".
  var summary: String {
    switch kind {
    case .value(.table): "an inline table (line \(line))"
    case .value(.array): "an array (line \(line))"
    case .value: "a value (line \(line))"
    case .arrayOfTables: "an array of tables (line \(line))"
    case .table(.dotted): "a table defined by dotted keys (line \(line))"
    case .table: "a table (line \(line))"
    }
  }
}

/// A parsed value with the line it started on.
indirect enum TOMLParsed {
  case scalar(TOMLValue, line: Int)
  case array([TOMLParsed], line: Int)
  case table(TOMLNode)
}

/// Turns the parser's node tree into immutable `TOMLTable`s.
struct TOMLFreezer {
  let file: String

  func table(_ node: TOMLNode) -> TOMLTable {
    var entries: [String: TOMLTable.Entry] = [:]
    for key in node.keys {
      if let child = node.children[key] {
        entries[key] = entry(child)
      }
    }
    return TOMLTable(file: file, name: node.name, line: node.line, keys: node.keys, entries: entries)
  }

  private func entry(_ node: TOMLNode) -> TOMLTable.Entry {
    switch node.kind {
    case .table:
      return TOMLTable.Entry(value: .table(table(node)), lines: TOMLLines(line: node.line))
    case .arrayOfTables:
      return TOMLTable.Entry(
        value: .array(node.elements.map { .table(table($0)) }),
        lines: TOMLLines(line: node.line, elements: node.elements.map { TOMLLines(line: $0.line) }))
    case .value(let parsed):
      let (value, lines) = freeze(parsed)
      return TOMLTable.Entry(value: value, lines: TOMLLines(line: node.line, elements: lines.elements))
    }
  }

  private func freeze(_ parsed: TOMLParsed) -> (TOMLValue, TOMLLines) {
    switch parsed {
    case .scalar(let value, let line):
      return (value, TOMLLines(line: line))
    case .array(let elements, let line):
      let frozen = elements.map(freeze)
      return (.array(frozen.map(\.0)), TOMLLines(line: line, elements: frozen.map(\.1)))
    case .table(let node):
      return (.table(table(node)), TOMLLines(line: node.line))
    }
  }
}
