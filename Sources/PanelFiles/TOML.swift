/// A value read from a TOML file.
///
/// Dates and times are not supported (the parser rejects them), and neither
/// are `inf` and `nan`. The line a value was defined on is kept by the table
/// that holds it: see `TOMLTable.line(of:)`.
public indirect enum TOMLValue: Sendable {
  /// A basic (`"..."`), literal (`'...'`) or multi-line string.
  case string(String)
  /// A decimal, hexadecimal (`0x`), octal (`0o`) or binary (`0b`) integer.
  case integer(Int64)
  /// A finite float.
  case float(Double)
  /// `true` or `false`.
  case bool(Bool)
  /// An array, including an array of tables (`[[name]]`).
  case array([TOMLValue])
  /// A table: a `[header]` table, an inline table or an element of an array of tables.
  case table(TOMLTable)

  /// The type as error messages name it: "a string", "an integer", "a float",
  /// "a boolean", "an array" or "a table".
  public var typeName: String {
    switch self {
    case .string: "a string"
    case .integer: "an integer"
    case .float: "a float"
    case .bool: "a boolean"
    case .array: "an array"
    case .table: "a table"
    }
  }

  /// The type followed by the value for scalars, as in `a string "fast"`,
  /// `an integer 320`, `a float 0.8`, `a boolean true`, `an array`, `a table`.
  public var summary: String {
    switch self {
    case .string(let text):
      return "a string " + Quote.text(text, limit: 40)
    case .integer(let value): return "an integer \(value)"
    case .float(let value): return "a float \(value)"
    case .bool(let value): return "a boolean \(value)"
    case .array: return "an array"
    case .table: return "a table"
    }
  }
}

/// What one TOML document may hold, so that no file can exhaust the stack,
/// the memory or the time of the process that reads it. Each limit broken is
/// an error naming the file and line.
public enum TOMLLimits {
  /// Nesting, counted on the way to every value: the parts of a table
  /// header (an element of an array of tables one more), the parts of a
  /// dotted key, and each array and inline table around the value. In
  /// `[a.b]` with `c.d = [[1]]` the `1` is 6 deep.
  public static let maxDepth = 32
  /// The longest key (one part of a dotted key), in bytes.
  public static let maxKeyBytes = 1024
  /// Elements of one array, or tables of one array of tables (`[[touch]]`,
  /// `[[step]]`, `[[item]]`, `[[cell]]`).
  public static let maxArrayElements = 10_000
  /// Keys and array elements in one document.
  public static let maxEntries = 200_000
}

/// Reads the subset of TOML that board, calibration and scenario files use.
///
/// Supported: comments, bare / quoted / dotted keys, `[table]`, `[a.b]`,
/// `[[array.of.tables]]`, basic / literal / multi-line strings, integers
/// (decimal with `_` separators, `0x`, `0o`, `0b`), floats, booleans, arrays
/// (spanning lines, trailing comma, nested) and inline tables. The dialect is
/// TOML 1.1: inline tables may span lines and have a trailing comma, and
/// strings know the escapes `\e` and `\xHH`. Duplicate keys, redefined
/// tables and control characters in comments are errors, and so is anything
/// beyond `TOMLLimits`. Not supported: dates and times, `inf`, `nan`.
public enum TOML {
  /// Parses `text` and returns the root table. `file` is only used in errors.
  public static func parse(_ text: String, file: String) throws(FileError) -> TOMLTable {
    var parser = TOMLParser(bytes: Array(text.utf8), file: file)
    return try parser.parseDocument()
  }

  /// Reads and parses the file at `path` (a regular file of at most
  /// `limit`, see `InputFile`). A missing file is the error
  /// `path: no such file`; a file that is not UTF-8 names the first bad line.
  public static func load(path: String, limit: InputFile.SizeLimit = .toml) throws(FileError) -> TOMLTable {
    try parse(TextFile.read(path: path, limit: limit), file: path)
  }
}
