/// Where a value was defined and, for an array, where each element was.
struct TOMLLines: Sendable {
  var line: Int
  var elements: [TOMLLines] = []
}

/// A TOML table with the lines its keys were defined on, and accessors that
/// turn a wrong or missing value into a `FileError` naming file, line and key.
///
/// Naming: the root table is `""`; `[sampling]` is `"sampling"`; `[a.b]` is
/// `"a.b"`; elements of an array of tables are counted from 1, the way people
/// count, so the third `[[touch]]` is `"touch[3]"`. Array elements in error
/// fields are counted from 1 too (`touch[2] path[1]` is the first point of
/// the second touch).
///
/// Error fields: `key` for a root key, `[sampling] rate_hz` for a key of a
/// named table, `touch[2] x_mm` for a key of an array-of-tables element.
public struct TOMLTable: Sendable {
  struct Entry: Sendable {
    var value: TOMLValue
    var lines: TOMLLines
  }

  /// The path of the file this table came from, as given.
  public let file: String
  /// The table's name: see the type's documentation.
  public let name: String
  /// The line of the table's header (1 for the root table). For an inline
  /// table, the line its `{` is on.
  public let line: Int
  /// The table's keys, in file order.
  public var keys: [String]
  var entries: [String: Entry]

  init(file: String, name: String, line: Int, keys: [String], entries: [String: Entry]) {
    self.file = file
    self.name = name
    self.line = line
    self.keys = keys
    self.entries = entries
  }

  /// Whether the table has `key`.
  public func has(_ key: String) -> Bool {
    entries[key] != nil
  }

  /// The 1-based line `key` was defined on, or nil when absent. For a
  /// sub-table or an array of tables, the line of its (first) header.
  public func line(of key: String) -> Int? {
    entries[key]?.lines.line
  }

  /// The raw value of `key`, or nil when absent.
  public func value(_ key: String) -> TOMLValue? {
    entries[key]?.value
  }

  /// How errors name `key` of this table: `key`, `[table] key` or `touch[2] key`.
  public func field(_ key: String) -> String {
    TOMLKeys.field(table: name, shownKey: TOMLKeys.display(key))
  }

  // MARK: Required values

  /// The string `key`; throws when missing or not a string.
  public func string(_ key: String) throws(FileError) -> String {
    guard let value = try optionalString(key) else { throw missing(key) }
    return value
  }

  /// The number `key` as a Double (integers are accepted); throws when
  /// missing or not a number. Type errors say "expected a float".
  public func double(_ key: String) throws(FileError) -> Double {
    guard let value = try optionalDouble(key) else { throw missing(key) }
    return value
  }

  /// The integer `key` (a float without a fraction, like `320.0`, is
  /// accepted); throws when missing, not a number, or a float with a fraction.
  public func int(_ key: String) throws(FileError) -> Int {
    guard let value = try optionalInt(key) else { throw missing(key) }
    return value
  }

  /// The boolean `key`; throws when missing or not a boolean.
  public func bool(_ key: String) throws(FileError) -> Bool {
    guard let value = try optionalBool(key) else { throw missing(key) }
    return value
  }

  /// The sub-table `key` (`[this.key]` or `key = { ... }`); throws when
  /// missing or not a table.
  public func table(_ key: String) throws(FileError) -> TOMLTable {
    guard let value = try optionalTable(key) else { throw missing(key) }
    return value
  }

  // MARK: Optional values

  /// The string `key`, nil when absent; throws when present but not a string.
  public func optionalString(_ key: String) throws(FileError) -> String? {
    guard let entry = entries[key] else { return nil }
    guard case .string(let text) = entry.value else {
      throw mismatch(key, entry, expected: "a string")
    }
    return text
  }

  /// The number `key` as a Double, nil when absent; throws when present but
  /// not a number.
  public func optionalDouble(_ key: String) throws(FileError) -> Double? {
    guard let entry = entries[key] else { return nil }
    guard let number = TOMLTable.number(entry.value) else {
      throw mismatch(key, entry, expected: "a float")
    }
    return number
  }

  /// The integer `key`, nil when absent; throws when present but not an
  /// integer (a float without a fraction is accepted).
  public func optionalInt(_ key: String) throws(FileError) -> Int? {
    guard let entry = entries[key] else { return nil }
    guard let number = TOMLTable.integer(entry.value) else {
      throw mismatch(key, entry, expected: "an integer")
    }
    return number
  }

  /// The boolean `key`, nil when absent; throws when present but not a boolean.
  public func optionalBool(_ key: String) throws(FileError) -> Bool? {
    guard let entry = entries[key] else { return nil }
    guard case .bool(let flag) = entry.value else {
      throw mismatch(key, entry, expected: "a boolean")
    }
    return flag
  }

  /// The sub-table `key`, nil when absent; throws when present but not a table.
  public func optionalTable(_ key: String) throws(FileError) -> TOMLTable? {
    guard let entry = entries[key] else { return nil }
    guard case .table(let table) = entry.value else {
      throw mismatch(key, entry, expected: "a table")
    }
    return table
  }

  // MARK: Arrays

  /// The array of tables `key` (`[[key]]` headers or `key = [{...}, ...]`);
  /// empty when absent. Throws when present but not an array of tables.
  public func tables(_ key: String) throws(FileError) -> [TOMLTable] {
    guard let entry = entries[key] else { return [] }
    guard case .array(let elements) = entry.value else {
      throw mismatch(key, entry, expected: "an array of tables")
    }
    var result: [TOMLTable] = []
    result.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      guard case .table(let table) = element else {
        throw elementMismatch(key, entry, [index], element, expected: "a table")
      }
      result.append(table)
    }
    return result
  }

  /// The array of numbers `key` (integers are accepted), nil when absent.
  public func doubleArray(_ key: String) throws(FileError) -> [Double]? {
    guard let entry = entries[key] else { return nil }
    guard case .array(let elements) = entry.value else {
      throw mismatch(key, entry, expected: "an array")
    }
    var result: [Double] = []
    result.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      guard let number = TOMLTable.number(element) else {
        throw elementMismatch(key, entry, [index], element, expected: "a float")
      }
      result.append(number)
    }
    return result
  }

  /// The array of integers `key`, nil when absent.
  public func intArray(_ key: String) throws(FileError) -> [Int]? {
    guard let entry = entries[key] else { return nil }
    guard case .array(let elements) = entry.value else {
      throw mismatch(key, entry, expected: "an array")
    }
    var result: [Int] = []
    result.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      guard let number = TOMLTable.integer(element) else {
        throw elementMismatch(key, entry, [index], element, expected: "an integer")
      }
      result.append(number)
    }
    return result
  }

  /// An array of arrays of numbers, nil when absent, e.g.
  /// `path = [[0, 10, 20], [1.5, 30, 40]]`. Rows may differ in length: check
  /// that yourself (see `error(_:element:_:)`).
  public func doubleRows(_ key: String) throws(FileError) -> [[Double]]? {
    guard let entry = entries[key] else { return nil }
    guard case .array(let rows) = entry.value else {
      throw mismatch(key, entry, expected: "an array")
    }
    var result: [[Double]] = []
    result.reserveCapacity(rows.count)
    for (rowIndex, row) in rows.enumerated() {
      guard case .array(let elements) = row else {
        throw elementMismatch(key, entry, [rowIndex], row, expected: "an array")
      }
      var numbers: [Double] = []
      numbers.reserveCapacity(elements.count)
      for (index, element) in elements.enumerated() {
        guard let number = TOMLTable.number(element) else {
          throw elementMismatch(key, entry, [rowIndex, index], element, expected: "a float")
        }
        numbers.append(number)
      }
      result.append(numbers)
    }
    return result
  }

  /// The array of strings `key`, nil when absent.
  public func stringArray(_ key: String) throws(FileError) -> [String]? {
    guard let entry = entries[key] else { return nil }
    guard case .array(let elements) = entry.value else {
      throw mismatch(key, entry, expected: "an array")
    }
    var result: [String] = []
    result.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      guard case .string(let text) = element else {
        throw elementMismatch(key, entry, [index], element, expected: "a string")
      }
      result.append(text)
    }
    return result
  }

  // MARK: Bounded numbers

  /// The number `key`, which must lie within `bound`; throws when missing.
  public func double(_ key: String, in bound: ValueBound) throws(FileError) -> Double {
    guard let value = try optionalDouble(key, in: bound) else { throw missing(key) }
    return value
  }

  /// The number `key` within `bound`, nil when absent. The error names the
  /// key and the bound: `[detection] hold_s: must be 0...3600 s, is 1e+300`.
  public func optionalDouble(_ key: String, in bound: ValueBound) throws(FileError) -> Double? {
    guard let value = try optionalDouble(key) else { return nil }
    try check(key, value, in: bound)
    return value
  }

  /// The integer `key` within `range`; throws when missing.
  public func int(_ key: String, in range: ClosedRange<Int>) throws(FileError) -> Int {
    guard let value = try optionalInt(key, in: range) else { throw missing(key) }
    return value
  }

  /// The integer `key` within `range`, nil when absent:
  /// `[grid] cols: must be 1...256, is 4611686018427387904`.
  public func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(FileError) -> Int? {
    guard let value = try optionalInt(key) else { return nil }
    if !range.contains(value) {
      throw error(key, "must be \(range.lowerBound)...\(range.upperBound), is \(value)")
    }
    return value
  }

  /// The array of numbers `key`, each within `bound`, nil when absent.
  public func doubleArray(_ key: String, in bound: ValueBound) throws(FileError) -> [Double]? {
    guard let values = try doubleArray(key) else { return nil }
    for (index, value) in values.enumerated() where !bound.contains(value) {
      throw error(key, element: index, bound.violation(value))
    }
    return values
  }

  /// Throws naming `key` and `bound` when `value` (read from `key`, or
  /// computed from it) is outside `bound`.
  public func check(_ key: String, _ value: Double, in bound: ValueBound) throws(FileError) {
    if !bound.contains(value) { throw error(key, bound.violation(value)) }
  }

  // MARK: Validation

  /// Throws naming the first key (in file order) not in `allowed`, to catch
  /// typos: `[sampling] rate: unknown key (expected one of: rate_hz, ...)`.
  public func rejectUnknownKeys(_ allowed: [String]) throws(FileError) {
    for key in keys where !allowed.contains(key) {
      let expected = allowed.map(TOMLKeys.display).joined(separator: ", ")
      throw error(key, "unknown key (expected one of: \(expected))")
    }
  }

  /// Checks the keys against `allowed` the way `policy` says: `.refuse`
  /// throws as `rejectUnknownKeys` does; `.warn` adds one warning per
  /// unknown key to `warnings` (`[limits] operator: not a key panelctl
  /// reads: ignored`), for formats other programs write, which may add fields.
  public func checkKeys(_ allowed: [String], _ policy: UnknownKeys, warnings: inout [FileError]) throws(FileError) {
    switch policy {
    case .refuse:
      try rejectUnknownKeys(allowed)
    case .warn:
      for key in keys where !allowed.contains(key) {
        warnings.append(error(key, "not a key panelctl reads: ignored"))
      }
    }
  }

  /// An error about `key` for the caller's own checks (ranges, consistency),
  /// at the key's line, or at the table's header when the key is absent.
  public func error(_ key: String, _ message: String) -> FileError {
    FileError(file: file, line: line(of: key) ?? headerLine, field: field(key), message: message)
  }

  /// An error about element `index` of the array `key`. `index` is 0-based
  /// (as in Swift); the field shows it 1-based: `[panel] weights[1]` is
  /// `index` 0. The line is the element's when known.
  public func error(_ key: String, element index: Int, _ message: String) -> FileError {
    let elementLine = entries[key].flatMap { entry in
      entry.lines.elements.indices.contains(index) ? entry.lines.elements[index].line : nil
    }
    return FileError(
      file: file,
      line: elementLine ?? line(of: key) ?? headerLine,
      field: field(key) + "[\(index + 1)]",
      message: message)
  }

  // MARK: Helpers

  /// The header line, or nil for the root table (whose "header" is line 1).
  var headerLine: Int? {
    name.isEmpty ? nil : line
  }

  private func missing(_ key: String) -> FileError {
    FileError(file: file, line: headerLine, field: field(key), message: "missing (required)")
  }

  private func mismatch(_ key: String, _ entry: Entry, expected: String) -> FileError {
    FileError(
      file: file, line: entry.lines.line, field: field(key),
      message: "expected \(expected), found \(entry.value.summary)")
  }

  /// A type error about a nested element; `path` holds 0-based indices.
  private func elementMismatch(
    _ key: String, _ entry: Entry, _ path: [Int], _ element: TOMLValue, expected: String
  ) -> FileError {
    var lines = entry.lines
    var where_ = entry.lines.line
    var shown = field(key)
    for index in path {
      shown += "[\(index + 1)]"
      if lines.elements.indices.contains(index) {
        lines = lines.elements[index]
        where_ = lines.line
      }
    }
    return FileError(
      file: file, line: where_, field: shown,
      message: "expected \(expected), found \(element.summary)")
  }

  static func number(_ value: TOMLValue) -> Double? {
    switch value {
    case .integer(let number): Double(number)
    case .float(let number): number
    default: nil
    }
  }

  static func integer(_ value: TOMLValue) -> Int? {
    switch value {
    case .integer(let number): Int(exactly: number)
    case .float(let number): Int(exactly: number)
    default: nil
    }
  }
}

/// What a reader does with a key it does not know.
public enum UnknownKeys: Sendable {
  /// An error: files people edit by hand (boards, plans, regions, scenarios),
  /// where an unknown key is most likely a typo.
  case refuse
  /// A warning, and the key is ignored: files other programs write (a
  /// session's plan.toml), which may add fields (docs/formats.md).
  case warn
}

/// How keys are shown in names and error fields.
enum TOMLKeys {
  /// `key` itself when it is a bare key, otherwise quoted: `"two words"`.
  static func display(_ key: String) -> String {
    if !key.isEmpty && key.utf8.allSatisfy(isBareKeyByte) {
      return key.utf8.count <= Quote.maxCharacters ? key : String(key.prefix(Quote.maxCharacters)) + "..."
    }
    return Quote.text(key)
  }

  /// How errors name a key (already shown with `display`) of table `table`.
  static func field(table: String, shownKey: String) -> String {
    if table.isEmpty {
      return shownKey
    }
    if table.hasSuffix("]") {
      return table + " " + shownKey
    }
    return "[" + table + "] " + shownKey
  }

  /// A dotted key or table name as written: `a.b."c d"`.
  static func display(path: some Sequence<String>) -> String {
    path.map(display).joined(separator: ".")
  }

  /// The name of sub-table `key` of table `parent`.
  static func childName(_ parent: String, _ key: String) -> String {
    parent.isEmpty ? display(key) : parent + "." + display(key)
  }

  static func isBareKeyByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
      true
    default:
      false
    }
  }
}

/// Where a table's keys were, kept with the typed value read from it: a
/// problem found later (a device that does not open) names the file, the
/// line and the key as a problem found while reading does.
public struct TableOrigin: Sendable, Equatable {
  /// The file the table came from ("" when the value was built in code).
  public var file: String
  var name: String
  var headerLine: Int?
  var lines: [String: Int] = [:]

  /// An origin without lines: `name` is the table's (`frontend`).
  public init(file: String = "", table name: String) {
    self.file = file
    self.name = name
    headerLine = nil
  }

  /// As `TOMLTable.error`: at the key's line, or at the table's header.
  public func error(_ key: String, _ message: String) -> FileError {
    FileError(
      file: file, line: lines[key] ?? headerLine, field: TOMLKeys.field(table: name, shownKey: TOMLKeys.display(key)),
      message: message)
  }
}

extension TOMLTable {
  /// Where this table's keys are, for errors found after reading it.
  public var origin: TableOrigin {
    var o = TableOrigin(file: file, table: name)
    o.headerLine = headerLine
    o.lines = entries.mapValues(\.lines.line)
    return o
  }
}
