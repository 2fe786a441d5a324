/// A hand-written recursive-descent parser over the UTF-8 bytes of a TOML document.
struct TOMLParser {
  let bytes: [UInt8]
  private let file: String
  var pos = 0
  var line = 1
  private let root: TOMLNode
  private var current: TOMLNode
  /// The key whose value is being parsed, named in syntax errors.
  private var fieldContext: String?
  /// Keys and array elements so far, against `TOMLLimits.maxEntries`.
  private var entries = 0

  init(bytes: [UInt8], file: String) {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      self.bytes = Array(bytes.dropFirst(3))
    } else {
      self.bytes = bytes
    }
    self.file = file
    root = TOMLNode(kind: .table(.root), name: "", line: 1, level: 0)
    current = root
  }

  /// Parses the whole document and returns the root table.
  mutating func parseDocument() throws(FileError) -> TOMLTable {
    while true {
      skipSpaces()
      guard let byte = peek() else { break }
      switch byte {
      case TOMLByte.hash:
        try skipComment()
      case TOMLByte.newline, TOMLByte.carriageReturn:
        try consumeNewline()
      case TOMLByte.openBracket:
        try parseHeader()
        try expectLineEnd(after: "the table header")
      default:
        try parseKeyValue(into: current)
        try expectLineEnd(after: "the value")
        fieldContext = nil
      }
    }
    return TOMLFreezer(file: file).table(root)
  }

  // MARK: Low-level scanning

  func peek(_ offset: Int = 0) -> UInt8? {
    let index = pos + offset
    return index < bytes.count ? bytes[index] : nil
  }

  func error(_ message: String, at errorLine: Int? = nil) -> FileError {
    FileError(file: file, line: errorLine ?? line, field: fieldContext, message: message)
  }

  private mutating func skipSpaces() {
    while let byte = peek(), byte == TOMLByte.space || byte == TOMLByte.tab {
      pos += 1
    }
  }

  /// Skips a comment to the end of its line. TOML allows no control
  /// character in a comment but the tab.
  private mutating func skipComment() throws(FileError) {
    while let byte = peek(), byte != TOMLByte.newline, byte != TOMLByte.carriageReturn {
      if TOMLParser.isForbiddenControl(byte) { throw controlCharacterError(byte, in: "a comment") }
      pos += 1
    }
  }

  /// Consumes `\n` or `\r\n`.
  mutating func consumeNewline() throws(FileError) {
    if peek() == TOMLByte.carriageReturn {
      guard peek(1) == TOMLByte.newline else {
        throw error("carriage return not followed by a newline")
      }
      pos += 1
    }
    pos += 1
    line += 1
  }

  /// Skips spaces, comments and newlines (inside arrays and inline tables).
  private mutating func skipBlank() throws(FileError) {
    while true {
      skipSpaces()
      switch peek() {
      case TOMLByte.hash: try skipComment()
      case TOMLByte.newline, TOMLByte.carriageReturn: try consumeNewline()
      default: return
      }
    }
  }

  /// After a header or a key/value pair: only spaces and a comment may follow.
  private mutating func expectLineEnd(after what: String) throws(FileError) {
    skipSpaces()
    if peek() == TOMLByte.hash {
      try skipComment()
    }
    guard let byte = peek() else { return }
    guard byte == TOMLByte.newline || byte == TOMLByte.carriageReturn else {
      throw error("expected end of line after \(what), found \(found())")
    }
    try consumeNewline()
  }

  /// Describes what is at the current position, for "expected X, found Y".
  private func found() -> String {
    guard let byte = peek() else { return "end of file" }
    if byte == TOMLByte.newline || byte == TOMLByte.carriageReturn {
      return "end of line"
    }
    if TOMLParser.isStructural(byte) {
      return "'" + String(UnicodeScalar(byte)) + "'"
    }
    var end = pos
    while end < bytes.count, end - pos < 30 {
      let next = bytes[end]
      if next == TOMLByte.space || next == TOMLByte.tab || next == TOMLByte.newline
        || next == TOMLByte.carriageReturn || TOMLParser.isStructural(next)
      {
        break
      }
      end += 1
    }
    return Quote.bytes(bytes[pos..<end])
  }

  private static func isStructural(_ byte: UInt8) -> Bool {
    switch byte {
    case TOMLByte.openBracket, TOMLByte.closeBracket, TOMLByte.openBrace, TOMLByte.closeBrace,
      TOMLByte.comma, TOMLByte.equals, TOMLByte.hash, TOMLByte.dot, TOMLByte.quote,
      TOMLByte.apostrophe:
      true
    default:
      false
    }
  }

  // MARK: Keys

  /// Parses `key`, `"quoted key"` or `a.b.c`; `what` names it in errors ("a key").
  private mutating func parseKeyPath(what: String) throws(FileError) -> [String] {
    var parts: [String] = []
    while true {
      guard parts.count < TOMLLimits.maxDepth else {
        throw error("a key or table name of more than \(TOMLLimits.maxDepth) parts (the limit)")
      }
      skipSpaces()
      let expected = parts.isEmpty ? what : "a key after '.'"
      guard let byte = peek() else {
        throw error("expected \(expected), found end of file")
      }
      if byte == TOMLByte.quote {
        parts.append(try parseBasicString(allowMultiline: false))
      } else if byte == TOMLByte.apostrophe {
        parts.append(try parseLiteralString(allowMultiline: false))
      } else if TOMLKeys.isBareKeyByte(byte) {
        let start = pos
        while let next = peek(), TOMLKeys.isBareKeyByte(next) {
          pos += 1
        }
        parts.append(String(decoding: bytes[start..<pos], as: UTF8.self))
      } else {
        throw error("expected \(expected), found \(found())")
      }
      guard parts[parts.count - 1].utf8.count <= TOMLLimits.maxKeyBytes else {
        throw error("a key longer than \(TOMLLimits.maxKeyBytes) bytes (the limit)")
      }
      skipSpaces()
      guard peek() == TOMLByte.dot else { return parts }
      pos += 1
    }
  }

  /// Parses `key = value` and stores it in `table` (creating tables for dotted keys).
  private mutating func parseKeyValue(into table: TOMLNode) throws(FileError) {
    let keyLine = line
    let path = try parseKeyPath(what: "a key")
    let shownPath = TOMLKeys.display(path: path)
    fieldContext = TOMLKeys.field(table: table.name, shownKey: shownPath)
    try checkLevel(table.level + path.count, at: keyLine)
    try countEntry()
    var target = table
    for (index, key) in path.dropLast().enumerated() {
      if let child = target.children[key] {
        guard case .table(.dotted) = child.kind else {
          let prefix = TOMLKeys.display(path: path[...index])
          throw error("\(prefix) is already \(child.summary)", at: keyLine)
        }
        target = child
      } else {
        let child = TOMLNode(
          kind: .table(.dotted), name: TOMLKeys.childName(target.name, key), line: keyLine,
          level: target.level + 1)
        target.add(key, child)
        target = child
      }
    }
    guard let key = path.last else {
      throw error("expected a key", at: keyLine)
    }
    if let existing = target.children[key] {
      throw error("duplicate key (first defined on line \(existing.line))", at: keyLine)
    }
    skipSpaces()
    guard peek() == TOMLByte.equals else {
      throw error("expected '=' after key, found \(found())")
    }
    pos += 1
    skipSpaces()
    let name = TOMLKeys.childName(target.name, key)
    let value = try parseValue(name: name, level: target.level + 1)
    target.add(key, TOMLNode(kind: .value(value), name: name, line: keyLine, level: target.level + 1))
  }

  // MARK: Headers

  /// Parses `[a.b]` or `[[a.b]]` and makes the table current.
  private mutating func parseHeader() throws(FileError) {
    let headerLine = line
    pos += 1
    let isArray = peek() == TOMLByte.openBracket
    if isArray {
      pos += 1
    }
    let path = try parseKeyPath(what: isArray ? "an array-of-tables name" : "a table name")
    let shown = TOMLKeys.display(path: path)
    try checkLevel(path.count, at: headerLine)
    skipSpaces()
    if isArray {
      guard peek() == TOMLByte.closeBracket, peek(1) == TOMLByte.closeBracket else {
        throw error("expected ']]' after [[\(shown), found \(found())")
      }
      pos += 2
    } else {
      guard peek() == TOMLByte.closeBracket else {
        throw error("expected ']' after [\(shown), found \(found())")
      }
      pos += 1
    }
    current = try defineTable(path, isArray: isArray, line: headerLine)
  }

  private mutating func defineTable(_ path: [String], isArray: Bool, line headerLine: Int) throws(FileError)
    -> TOMLNode
  {
    let shown = TOMLKeys.display(path: path)
    let header = isArray ? "[[\(shown)]]" : "[\(shown)]"
    let verb = isArray ? "cannot define array of tables \(header)" : "cannot define table \(header)"
    var node = root
    for (index, key) in path.dropLast().enumerated() {
      if let child = node.children[key] {
        switch child.kind {
        case .table:
          node = child
        case .arrayOfTables:
          guard let last = child.elements.last else {
            throw error("\(verb): \(TOMLKeys.display(path: path[...index])) is empty", at: headerLine)
          }
          node = last
        case .value:
          let prefix = TOMLKeys.display(path: path[...index])
          throw error("\(verb): \(prefix) is already \(child.summary)", at: headerLine)
        }
      } else {
        let child = TOMLNode(
          kind: .table(.implicit), name: TOMLKeys.childName(node.name, key), line: headerLine,
          level: node.level + 1)
        node.add(key, child)
        node = child
      }
    }
    guard let key = path.last else {
      throw error("expected a table name", at: headerLine)
    }
    guard let existing = node.children[key] else {
      let name = TOMLKeys.childName(node.name, key)
      if isArray {
        let array = TOMLNode(kind: .arrayOfTables, name: name, line: headerLine, level: node.level + 1)
        node.add(key, array)
        return try appendElement(to: array, line: headerLine)
      }
      let table = TOMLNode(kind: .table(.header), name: name, line: headerLine, level: node.level + 1)
      node.add(key, table)
      return table
    }
    switch (existing.kind, isArray) {
    case (.arrayOfTables, true):
      return try appendElement(to: existing, line: headerLine)
    case (.table(.implicit), false):
      existing.kind = .table(.header)
      existing.line = headerLine
      return existing
    case (.table(.header), false), (.table(.root), false):
      throw error("table \(header) is defined twice (first on line \(existing.line))", at: headerLine)
    default:
      throw error("\(verb): \(shown) is already \(existing.summary)", at: headerLine)
    }
  }

  private mutating func appendElement(to array: TOMLNode, line: Int) throws(FileError) -> TOMLNode {
    guard array.elements.count < TOMLLimits.maxArrayElements else {
      throw error(
        "more than \(TOMLLimits.maxArrayElements) [[\(array.name)]] tables (the limit for an array of tables)",
        at: line)
    }
    try checkLevel(array.level + 1, at: line)
    try countEntry()
    let element = TOMLNode(
      kind: .table(.header), name: "\(array.name)[\(array.elements.count + 1)]", line: line,
      level: array.level + 1)
    array.elements.append(element)
    return element
  }

  // MARK: Limits

  /// Refuses nesting deeper than `TOMLLimits.maxDepth`: header parts,
  /// dotted keys, arrays and inline tables all count.
  private func checkLevel(_ level: Int, at errorLine: Int? = nil) throws(FileError) {
    guard level <= TOMLLimits.maxDepth else {
      throw error(
        "nested more than \(TOMLLimits.maxDepth) levels deep (tables, dotted keys, arrays and inline tables together)",
        at: errorLine)
    }
  }

  /// Counts one key or array element against `TOMLLimits.maxEntries`.
  private mutating func countEntry() throws(FileError) {
    entries += 1
    guard entries <= TOMLLimits.maxEntries else {
      throw error("more than \(TOMLLimits.maxEntries) keys and array elements in one file (the limit)")
    }
  }

  // MARK: Values

  /// Parses a value `level` deep; `name` is what an inline table here
  /// would be called.
  private mutating func parseValue(name: String, level: Int) throws(FileError) -> TOMLParsed {
    let startLine = line
    guard let byte = peek() else {
      throw error("expected a value, found end of file")
    }
    try checkLevel(level)
    switch byte {
    case TOMLByte.quote:
      return .scalar(.string(try parseBasicString(allowMultiline: true)), line: startLine)
    case TOMLByte.apostrophe:
      return .scalar(.string(try parseLiteralString(allowMultiline: true)), line: startLine)
    case TOMLByte.openBracket:
      return try parseArray(name: name, level: level)
    case TOMLByte.openBrace:
      return try parseInlineTable(name: name, level: level)
    default:
      return .scalar(try parseBareValue(), line: startLine)
    }
  }

  /// A boolean or a number.
  private mutating func parseBareValue() throws(FileError) -> TOMLValue {
    let start = pos
    while let byte = peek(), TOMLParser.isValueTokenByte(byte) {
      pos += 1
    }
    let token = bytes[start..<pos]
    guard let first = token.first else {
      throw error("expected a value, found \(found())")
    }
    let text = String(decoding: token, as: UTF8.self)
    switch text {
    case "true": return .bool(true)
    case "false": return .bool(false)
    case "inf", "+inf", "-inf", "nan", "+nan", "-nan":
      throw error("inf and nan are not supported")
    default: break
    }
    if TOMLParser.looksLikeDateOrTime(token) {
      throw error("dates and times are not supported (found \(Quote.text(text)))")
    }
    let isNumberStart =
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
      || first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || first == TOMLByte.dot
    guard isNumberStart else {
      throw error("expected a value, found \(Quote.text(text)) (strings need quotes)")
    }
    switch TOMLNumber.parse(token) {
    case .success(let value): return value
    case .failure(let failure): throw error(failure.message)
    }
  }

  private static func isValueTokenByte(_ byte: UInt8) -> Bool {
    TOMLKeys.isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == TOMLByte.dot
      || byte == UInt8(ascii: ":")
  }

  /// `1979-05-27`, `07:32:00` and the like.
  private static func looksLikeDateOrTime(_ token: ArraySlice<UInt8>) -> Bool {
    if token.contains(UInt8(ascii: ":")) {
      return true
    }
    let digits = token.prefix(4)
    return digits.count == 4
      && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
      && token.dropFirst(4).first == UInt8(ascii: "-")
  }

  private mutating func parseArray(name: String, level: Int) throws(FileError) -> TOMLParsed {
    let openLine = line
    pos += 1
    var elements: [TOMLParsed] = []
    while true {
      try skipBlank()
      guard let byte = peek() else {
        throw error("unterminated array (no closing ']')", at: openLine)
      }
      if byte == TOMLByte.closeBracket {
        pos += 1
        break
      }
      guard elements.count < TOMLLimits.maxArrayElements else {
        throw error("an array of more than \(TOMLLimits.maxArrayElements) elements (the limit)")
      }
      try countEntry()
      elements.append(try parseValue(name: "\(name)[\(elements.count + 1)]", level: level + 1))
      try skipBlank()
      guard let next = peek() else {
        throw error("unterminated array (no closing ']')", at: openLine)
      }
      if next == TOMLByte.comma {
        pos += 1
      } else if next == TOMLByte.closeBracket {
        pos += 1
        break
      } else {
        throw error("expected ',' or ']' in array, found \(found())")
      }
    }
    return .array(elements, line: openLine)
  }

  private mutating func parseInlineTable(name: String, level: Int) throws(FileError) -> TOMLParsed {
    let openLine = line
    pos += 1
    let table = TOMLNode(kind: .table(.inline), name: name, line: openLine, level: level)
    let outerField = fieldContext
    while true {
      try skipBlank()
      guard let byte = peek() else {
        throw error("unterminated inline table (no closing '}')", at: openLine)
      }
      if byte == TOMLByte.closeBrace {
        pos += 1
        break
      }
      try parseKeyValue(into: table)
      fieldContext = outerField
      try skipBlank()
      guard let next = peek() else {
        throw error("unterminated inline table (no closing '}')", at: openLine)
      }
      if next == TOMLByte.comma {
        pos += 1
      } else if next == TOMLByte.closeBrace {
        pos += 1
        break
      } else {
        throw error("expected ',' or '}' in inline table, found \(found())")
      }
    }
    return .table(table)
  }
}
