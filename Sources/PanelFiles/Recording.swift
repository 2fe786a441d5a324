/// The shape of a raw recording CSV, the project's contract for recorded frames:
///
///     t_us,raw_0,raw_1,...,raw_{N-1}[,temp_c]
///     0,120,-4,...,17,24.125
///
/// `t_us` is an integer timestamp in microseconds that never goes backwards;
/// `raw_k` are signed 24-bit ADC counts (-8388608...8388607) of cell k;
/// the optional `temp_c` is a decimal temperature in °C (written with exactly
/// three decimals; an empty field means "no reading"). No quoting; spaces
/// around names and values are ignored, and so are blank lines and a UTF-8
/// byte order mark. Columns after these (another program's additions) are
/// skipped with a warning (`RecordingReader.extraColumns`).
public struct RecordingHeader: Sendable, Equatable {
  /// The number of `raw_k` columns (cells), at least 1.
  public var cellCount: Int
  /// Whether the last column is `temp_c`.
  public var hasTemperature: Bool

  /// Describes a recording with `cellCount` cells, with or without temperature.
  public init(cellCount: Int, hasTemperature: Bool) {
    self.cellCount = cellCount
    self.hasTemperature = hasTemperature
  }

  /// The range of a 24-bit signed ADC count.
  public static let countRange: ClosedRange<Int32> = -8_388_608...8_388_607

  /// The column names in order: `t_us`, `raw_0`, ..., `temp_c`.
  public var columnNames: [String] {
    var names = ["t_us"]
    for cell in 0..<max(cellCount, 0) {
      names.append("raw_\(cell)")
    }
    if hasTemperature {
      names.append("temp_c")
    }
    return names
  }

  /// The header row, without the newline.
  public var headerRow: String {
    columnNames.joined(separator: ",")
  }

  /// Validates the names of a header row; `file` is for errors (line 1).
  /// Returns the header and the names of the columns after the contract's
  /// (a field added by another program: ignored, with a warning). A `t_us`,
  /// `raw_k` or `temp_c` column out of place is an error.
  static func parse(columns names: [String], file: String) throws(FileError)
    -> (header: RecordingHeader, extra: [String])
  {
    guard names.first == "t_us" else {
      throw FileError(
        file: file, line: 1, field: "column 1",
        message: "expected t_us, found \(Quote.text(names.first ?? ""))")
    }
    var cellCount = 0
    var hasTemperature = false
    var extra: [String] = []
    for (index, name) in names.enumerated().dropFirst() {
      let field = "column \(index + 1)"
      let known = name == "t_us" || name == "temp_c" || isRawName(name)
      if !hasTemperature && extra.isEmpty && name == "raw_\(cellCount)" {
        cellCount += 1
      } else if cellCount > 0 && !hasTemperature && extra.isEmpty && name == "temp_c" {
        hasTemperature = true
      } else if cellCount > 0 && !known {
        extra.append(name)
      } else if cellCount > 0 && isRawName(name) && (hasTemperature || !extra.isEmpty) {
        let after = hasTemperature ? "temp_c" : Quote.text(extra[0])
        throw FileError(
          file: file, line: 1, field: field,
          message: "\(name) comes after \(after): the raw_ columns come first, right after t_us")
      } else if cellCount > 0 && !isRawName(name) {
        throw FileError(file: file, line: 1, field: field, message: "\(name) appears twice")
      } else {
        let expected = cellCount == 0 ? "raw_0" : "raw_\(cellCount) or temp_c"
        throw FileError(
          file: file, line: 1, field: field,
          message: "expected \(expected), found \(Quote.text(name))")
      }
    }
    guard cellCount > 0 else {
      throw FileError(
        file: file, line: 1, message: "the header has no raw_ columns (expected t_us,raw_0,...)")
    }
    return (RecordingHeader(cellCount: cellCount, hasTemperature: hasTemperature), extra)
  }

  /// `raw_` followed by digits.
  static func isRawName(_ name: String) -> Bool {
    name.hasPrefix("raw_") && name.count > 4 && name.dropFirst(4).allSatisfy { $0.isASCII && $0.isNumber }
  }
}
