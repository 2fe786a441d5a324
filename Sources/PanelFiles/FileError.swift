/// An error about a file the firmware reads or writes: a board, calibration or
/// scenario TOML file, a recording CSV, or a file being written atomically.
///
/// `description` is one line that points at the problem, for example
///
///     boards/x.toml:12: [sampling] rate_hz: expected an integer, found a string "fast"
///     boards/x.toml:5: [panel] width_mm: missing (required)
///     rec.csv:17: row has 3 values, the header has 5
public struct FileError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The path as it was given by the caller.
  public var file: String
  /// The 1-based line the problem is on, when known.
  public var line: Int?
  /// What the problem is about, e.g. `[sampling] rate_hz`, `touch[2] x_mm`,
  /// `column raw_3`; nil when the message says it all.
  public var field: String?
  /// What is wrong, without the file, line or field.
  public var message: String

  /// Makes an error about `file`, optionally at `line` and about `field`.
  public init(file: String, line: Int? = nil, field: String? = nil, message: String) {
    self.file = file
    self.line = line
    self.field = field
    self.message = message
  }

  /// `file:line: field: message`, leaving out the parts that are not known;
  /// one line of at most `Quote.maxLineCharacters` characters, escaped.
  public var description: String { Quote.line(text) }

  private var text: String {
    var text = file
    if let line {
      text += ":\(line)"
    }
    text += ": "
    if let field {
      text += field + ": "
    }
    return text + message
  }
}
