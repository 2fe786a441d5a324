#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a raw recording CSV (see `RecordingHeader`) one row at a time.
///
/// The file is read in chunks through a reusable buffer, so a file of any size
/// is read in constant memory, and `next(into:)` allocates nothing per row.
///
/// Copyable with reference semantics: the open file, the read position and
/// the last timestamp live in a shared object, so copies of a reader (for
/// example inside a copied `RecordingFrontEnd`) read from the same position.
/// The file is closed when the last copy goes away.
///
///     var reader = try RecordingReader(path: "rec.csv")
///     let counts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reader.header.cellCount)
///     defer { counts.deallocate() }
///     while let (tUs, temperature) = try reader.next(into: counts) { ... }
public struct RecordingReader {
  /// The columns the file has.
  public let header: RecordingHeader
  /// The path as given.
  public let path: String
  private let source: RecordingLineSource
  /// Column names for error messages, built once (the extra columns too).
  private let columnNames: [String]
  /// Columns after the contract's (another program's additions), by name:
  /// skipped. `warnings` says so.
  public let extraColumns: [String]

  /// The largest |t_us| accepted: just under 2^62 us (about 146,000
  /// years), so that the difference of any two times fits an `Int64`.
  public static let maxTime_us: Int64 = (1 << 62) - 1

  /// One line per thing in the file that was skipped rather than refused:
  /// `rec.csv:1: column 7 "note": not a recording column, ignored`.
  public var warnings: [FileError] {
    extraColumns.enumerated().map { i, name in
      FileError(
        file: path, line: 1, field: "column \(columnNames.count - extraColumns.count + i + 1)",
        message: "\(Quote.text(name)) is not a recording column: ignored")
    }
  }

  /// Opens `path` and reads and validates its header: `t_us`, then `raw_0`...`raw_{N-1}`
  /// in order, then optionally `temp_c`, then any columns of other programs
  /// (skipped: see `warnings`). A UTF-8 byte order mark before the header is
  /// skipped. Anything else is an error naming the column.
  public init(path: String) throws(FileError) {
    let source = try RecordingLineSource(path: path)
    guard var row = try source.nextLine() else {
      throw FileError(file: path, message: "empty file (expected a header row t_us,raw_0,...)")
    }
    if row.starts(with: [0xEF, 0xBB, 0xBF]) {
      row = UnsafeBufferPointer(rebasing: row[3...])
    }
    if row.contains(UInt8(ascii: "\r")) { throw RecordingReader.loneCarriageReturn(path, 1) }
    let names = row.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map {
      String(decoding: RecordingText.trimmed($0), as: UTF8.self)
    }
    (header, extraColumns) = try RecordingHeader.parse(columns: names, file: path)
    self.path = path
    self.source = source
    columnNames = header.columnNames + extraColumns
  }

  /// Reads the next row: fills `counts[0..<cellCount]` and returns the
  /// timestamp and temperature (nil without a `temp_c` column or when the
  /// field is empty), or nil at the end of the file.
  ///
  /// Errors name the file, line and column: a row with the wrong number of
  /// values, a field that is not a number, a count outside the 24-bit range,
  /// `t_us` beyond +-2^62 or going backwards, `temp_c` outside
  /// `ValueBound.temperature_c`. Extra columns are not read. `counts` must
  /// hold at least `cellCount` values.
  public mutating func next(into counts: UnsafeMutableBufferPointer<Int32>) throws(FileError)
    -> (tUs: Int64, temperatureC: Double?)?
  {
    let cellCount = header.cellCount
    guard counts.count >= cellCount else {
      throw FileError(
        file: path, message: "next(into:) needs room for \(cellCount) counts, got \(counts.count)")
    }
    var row: UnsafeBufferPointer<UInt8>
    repeat {
      guard let line = try source.nextLine() else { return nil }
      row = line
    } while RecordingText.isBlank(row)
    let lineNumber = source.lineNumber
    if source.lastLineUnterminated && path.hasSuffix(".partial") {
      // The recording was interrupted while writing this row: stop at the
      // whole rows before it (`cutOffRow` says so).
      source.cutOffLine = lineNumber
      return nil
    }
    if row.contains(UInt8(ascii: "\r")) { throw RecordingReader.loneCarriageReturn(path, lineNumber) }

    let expected = columnNames.count
    var commas = 0
    for byte in row where byte == UInt8(ascii: ",") {
      commas += 1
    }
    guard commas + 1 == expected else {
      throw FileError(
        file: path, line: lineNumber,
        message: "row has \(commas + 1) values, the header has \(expected)")
    }

    var cursor = RecordingFieldCursor(row: row)
    let tUs: Int64
    let timeField = cursor.next()
    switch RecordingText.integer(row, timeField) {
    case .value(let value) where value.magnitude <= RecordingReader.maxTime_us.magnitude: tUs = value
    case .invalid: throw notANumber(lineNumber, column: 0, row, timeField, "an integer")
    case .value, .overflow: throw outOfRange(lineNumber, column: 0, row, timeField, RecordingReader.timeLimits)
    }
    for cell in 0..<cellCount {
      let field = cursor.next()
      switch RecordingText.integer(row, field) {
      case .value(let value):
        guard let count = Int32(exactly: value), RecordingHeader.countRange.contains(count) else {
          throw outOfRange(lineNumber, column: cell + 1, row, field, RecordingReader.countLimits)
        }
        counts[cell] = count
      case .invalid: throw notANumber(lineNumber, column: cell + 1, row, field, "an integer")
      case .overflow: throw outOfRange(lineNumber, column: cell + 1, row, field, RecordingReader.countLimits)
      }
    }
    var temperature: Double?
    if header.hasTemperature {
      let field = cursor.next()
      if !RecordingText.isBlank(UnsafeBufferPointer(rebasing: row[field])) {
        guard let value = RecordingText.decimal(row, field) else {
          throw notANumber(lineNumber, column: cellCount + 1, row, field, "a decimal number")
        }
        guard ValueBound.temperature_c.contains(value) else {
          throw outOfRange(lineNumber, column: cellCount + 1, row, field, "\(ValueBound.temperature_c)")
        }
        temperature = value
      }
    }
    if let lastTUs = source.lastTUs, tUs < lastTUs {
      throw FileError(
        file: path, line: lineNumber, message: "t_us goes backwards (\(tUs) after \(lastTUs))")
    }
    source.lastTUs = tUs
    source.rows += 1
    return (tUs, temperature)
  }

  /// The line of a `.partial` recording's last row when it was cut off
  /// (no line end: the recording was interrupted while writing it) and so
  /// not read; nil otherwise. Only a file whose name ends in `.partial`
  /// is read this way: in any other file a last row without a line end is
  /// a row like the others.
  public var cutOffRow: Int? { source.cutOffLine }

  /// One line about the row `cutOffRow` left out, or nil.
  public var cutOffNote: String? {
    cutOffRow.map { line in
      "\(path):\(line): the last row is cut off (the recording was interrupted); read the \(source.rows) whole rows before it"
    }
  }

  static func loneCarriageReturn(_ path: String, _ line: Int) -> FileError {
    FileError(
      file: path, line: line, message: "a carriage return inside the line (lines must end in LF or CR LF)")
  }

  /// How much of the file has been read, 0...1 (for progress; shared by
  /// every copy of the reader).
  public var fractionRead: Double { source.fractionRead }

  private static let timeLimits = "\(-maxTime_us)...\(maxTime_us) (|t_us| < 2^62)"

  private static let countLimits =
    "the 24-bit range \(RecordingHeader.countRange.lowerBound)...\(RecordingHeader.countRange.upperBound)"

  private func notANumber(
    _ line: Int, column: Int, _ row: UnsafeBufferPointer<UInt8>, _ field: Range<Int>, _ what: String
  ) -> FileError {
    let text = Quote.bytes(RecordingText.trimmed(row[field]))
    return FileError(
      file: path, line: line, field: "column \(columnNames[column])",
      message: "\(text) is not \(what)")
  }

  private func outOfRange(
    _ line: Int, column: Int, _ row: UnsafeBufferPointer<UInt8>, _ field: Range<Int>, _ limits: String
  ) -> FileError {
    let digits = RecordingText.trimmed(row[field])
    let text = digits.count <= Quote.maxCharacters ? String(decoding: digits, as: UTF8.self) : Quote.bytes(digits)
    return FileError(
      file: path, line: line, field: "column \(columnNames[column])",
      message: "\(text) is outside \(limits)")
  }
}

/// Walks the comma-separated fields of one row.
struct RecordingFieldCursor {
  let row: UnsafeBufferPointer<UInt8>
  private var start = 0

  init(row: UnsafeBufferPointer<UInt8>) {
    self.row = row
  }

  /// The next field's range (callers have checked the field count first).
  mutating func next() -> Range<Int> {
    var end = start
    while end < row.count, row[end] != UInt8(ascii: ",") {
      end += 1
    }
    let field = min(start, row.count)..<end
    start = end + 1
    return field
  }
}

/// Reads a file line by line through one reusable buffer.
final class RecordingLineSource {
  let path: String
  private let fd: Int32
  private var buffer: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  private var start = 0
  private var end = 0
  private var atEnd = false
  /// The 1-based line number of the line last returned.
  private(set) var lineNumber = 0
  /// The timestamp of the last row read, shared by all copies of a reader.
  var lastTUs: Int64?
  /// Whether the line last returned ended the file without a line end.
  private(set) var lastLineUnterminated = false
  /// See `RecordingReader.cutOffRow`.
  var cutOffLine: Int?
  /// Rows read, shared by all copies of a reader.
  var rows = 0
  /// The file's size when opened, and the bytes read from it so far.
  let size: Int
  private var bytesRead = 0
  static let initialCapacity = 256 * 1024
  /// The longest line read: a row of 4096 cells takes under 50 KiB.
  static let maxLineLength = 1 << 20

  init(path: String) throws(FileError) {
    fd = try InputFile.open(path)
    size = (try? FileDescriptor(rawValue: fd).status().size) ?? 0
    self.path = path
    capacity = RecordingLineSource.initialCapacity
    buffer = .allocate(capacity: capacity)
  }

  deinit {
    buffer.deallocate()
    FileDescriptor(rawValue: fd).close()
  }

  /// The next line without its `\n` or `\r\n`, valid until the next call; nil at the end.
  func nextLine() throws(FileError) -> UnsafeBufferPointer<UInt8>? {
    var scanned = start
    while true {
      if scanned < end,
        let found = memchr(buffer + scanned, Int32(UInt8(ascii: "\n")), end - scanned)
      {
        let newline = UnsafeRawPointer(buffer).distance(to: UnsafeRawPointer(found))
        return takeLine(upTo: newline, skipping: 1)
      }
      scanned = end
      if atEnd {
        return start < end ? takeLine(upTo: end, skipping: 0) : nil
      }
      if start > 0 {
        memmove(buffer, buffer + start, end - start)
        scanned -= start
        end -= start
        start = 0
      }
      if end == capacity {
        guard capacity < RecordingLineSource.maxLineLength else {
          throw FileError(file: path, line: lineNumber + 1, message: "line is longer than 1 MiB (the limit)")
        }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
        larger.initialize(from: buffer, count: end)
        buffer.deallocate()
        buffer = larger
        capacity *= 2
      }
      let count = try FilesPOSIX.readSome(fd, buffer + end, capacity - end, path: path)
      if count == 0 {
        atEnd = true
      } else {
        end += count
        bytesRead += count
      }
    }
  }

  /// The fraction of the file consumed (0...1): lines handed out, not
  /// bytes buffered.
  var fractionRead: Double {
    guard size > 0 else { return 1 }
    return min(1, Double(bytesRead - (end - start)) / Double(size))
  }

  private func takeLine(upTo lineEnd: Int, skipping terminator: Int) -> UnsafeBufferPointer<UInt8> {
    var length = lineEnd - start
    if length > 0, buffer[start + length - 1] == UInt8(ascii: "\r") {
      length -= 1
    }
    let line = UnsafeBufferPointer(start: buffer + start, count: length)
    lastLineUnterminated = terminator == 0
    start = lineEnd + terminator
    lineNumber += 1
    return line
  }
}
