/// The shape of a raw recording CSV, the project's contract for recorded frames:
///
///     t_us,raw_0,raw_1,...,raw_{N-1}[,temp_c]
///     0,120,-4,...,17,24.125
///
/// `t_us` is an integer timestamp in microseconds that never goes backwards;
/// `raw_k` are signed 24-bit ADC counts (-8388608...8388607) of cell k;
/// the optional `temp_c` is a decimal temperature in °C (written with exactly
/// three decimals; an empty field means "no reading"). No quoting, no spaces
/// in the header; blank lines are ignored.
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
  static func parse(columns names: [String], file: String) throws(FileError) -> RecordingHeader {
    guard names.first == "t_us" else {
      throw FileError(
        file: file, line: 1, field: "column 1",
        message: "expected t_us, found \(String(reflecting: names.first ?? ""))")
    }
    var cellCount = 0
    var hasTemperature = false
    for (index, name) in names.enumerated().dropFirst() {
      let field = "column \(index + 1)"
      if name == "raw_\(cellCount)" {
        cellCount += 1
      } else if name == "temp_c" && cellCount > 0 && index == names.count - 1 {
        hasTemperature = true
      } else if name == "temp_c" && cellCount > 0 {
        throw FileError(file: file, line: 1, field: field, message: "temp_c must be the last column")
      } else {
        let expected = cellCount == 0 ? "raw_0" : "raw_\(cellCount) or temp_c"
        throw FileError(
          file: file, line: 1, field: field,
          message: "expected \(expected), found \(String(reflecting: name))")
      }
    }
    guard cellCount > 0 else {
      throw FileError(
        file: file, line: 1, message: "the header has no raw_ columns (expected t_us,raw_0,...)")
    }
    return RecordingHeader(cellCount: cellCount, hasTemperature: hasTemperature)
  }
}
