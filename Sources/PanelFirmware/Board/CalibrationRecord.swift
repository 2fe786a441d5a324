import ForceCore

/// One cell's calibration parameters, in engineering units
/// (see `CellCalibration` for the model they feed).
public struct CellParameters: Sendable, Equatable {
  public var offset_counts: Double
  public var gain_counts_per_n: Double
  public var linearity_per_n: Double
  public var tcZero_counts_per_c: Double
  public var tcSpan_per_c: Double

  public init(
    offset_counts: Double, gain_counts_per_n: Double, linearity_per_n: Double = 0,
    tcZero_counts_per_c: Double = 0, tcSpan_per_c: Double = 0
  ) {
    self.offset_counts = offset_counts
    self.gain_counts_per_n = gain_counts_per_n
    self.linearity_per_n = linearity_per_n
    self.tcZero_counts_per_c = tcZero_counts_per_c
    self.tcSpan_per_c = tcSpan_per_c
  }
}

/// A panel's calibration record: versioned, tied to a board and a serial,
/// checked by a CRC-32. Stored as TOML (docs/formats.md); the CRC covers
/// every byte before the `[integrity]` line.
public struct CalibrationRecord: Sendable, Equatable {
  public static let format = "forcepanel-calibration"
  public static let version = 1

  public var board: String
  public var serial: String
  /// ISO 8601 UTC time of the calibration.
  public var created: String
  /// Where the parameters came from: "simulator" (the simulated panel's own
  /// parameters) or "session" (computed from a calibration session).
  public var source: String
  /// The calibration plan's name ("" when none).
  public var plan: String
  public var referenceTemperature_c: Double
  public var cells: [CellParameters]

  public init(
    board: String, serial: String, created: String, source: String, plan: String = "",
    referenceTemperature_c: Double = 25, cells: [CellParameters]
  ) {
    self.board = board
    self.serial = serial
    self.created = created
    self.source = source
    self.plan = plan
    self.referenceTemperature_c = referenceTemperature_c
    self.cells = cells
  }

  /// The core's per-cell calibration table.
  public var coreCalibration: CellArray<CellCalibration> {
    var table = CellArray<CellCalibration>(repeating: .unity)
    for (k, c) in cells.enumerated() where k < Capacity.cells {
      table[k] = CellCalibration(
        offset: c.offset_counts, gain: c.gain_counts_per_n, linearity: c.linearity_per_n,
        tcZero: c.tcZero_counts_per_c, tcSpan: c.tcSpan_per_c,
        referenceTemperature: referenceTemperature_c)
    }
    return table
  }

  /// The record's text, CRC line included.
  public func encoded() -> String {
    var body = "# Force panel calibration record. Edit nothing: the CRC covers every byte\n"
    body += "# above the [integrity] line.\n"
    body += "format = \"\(CalibrationRecord.format)\"\n"
    body += "version = \(CalibrationRecord.version)\n"
    body += "board = \(quoted(board))\n"
    body += "serial = \(quoted(serial))\n"
    body += "created = \(quoted(created))\n"
    body += "source = \(quoted(source))\n"
    body += "plan = \(quoted(plan))\n"
    body += "reference_temp_c = \(number(referenceTemperature_c))\n"
    for c in cells {
      body += "\n[[cell]]\n"
      body += "offset_counts = \(number(c.offset_counts))\n"
      body += "gain_counts_per_n = \(number(c.gain_counts_per_n))\n"
      body += "linearity_per_n = \(number(c.linearity_per_n))\n"
      body += "tc_zero_counts_per_c = \(number(c.tcZero_counts_per_c))\n"
      body += "tc_span_per_c = \(number(c.tcSpan_per_c))\n"
    }
    body += "\n"
    let crc = CRC32.checksum(body.utf8)
    return body + "[integrity]\ncrc32 = \"\(hex32(crc))\"\n"
  }

  /// Writes the record atomically.
  public func write(to path: String) throws(FileError) {
    try AtomicFile.write(encoded(), to: path)
  }

  /// Loads a record and checks its CRC and, when given, its board.
  public static func load(path: String, board expected: Board? = nil) throws(FileError) -> CalibrationRecord {
    let text: String
    do {
      text = try TextFile.read(path: path)
    }
    let record = try CalibrationRecord(text: text, file: path)
    if let expected {
      if record.board != expected.name {
        throw FileError(
          file: path, field: "board",
          message: "calibration is for board \"\(record.board)\", not \"\(expected.name)\"")
      }
      if record.cells.count != expected.cellCount {
        throw FileError(
          file: path, field: "cell",
          message: "has \(record.cells.count) cells, board \"\(expected.name)\" has \(expected.cellCount)")
      }
    }
    return record
  }

  /// Parses and checks a record's text.
  public init(text: String, file: String) throws(FileError) {
    let root = try TOML.parse(text, file: file)
    try root.rejectUnknownKeys([
      "format", "version", "board", "serial", "created", "source", "plan", "reference_temp_c",
      "cell", "integrity",
    ])
    let format = try root.string("format")
    if format != CalibrationRecord.format {
      throw root.error("format", "\"\(format)\" is not a calibration record")
    }
    let version = try root.int("version")
    if version != CalibrationRecord.version {
      throw root.error("version", "version \(version) is not supported (expected \(CalibrationRecord.version))")
    }
    let integrity = try root.table("integrity")
    let stated = try integrity.string("crc32")
    let bytes = Array(text.utf8)
    guard let marker = CalibrationRecord.lastLine(startingWith: "[integrity]", in: bytes) else {
      throw root.error("integrity", "the [integrity] table must come last")
    }
    let computed = CRC32.checksum(bytes[..<marker])
    if stated.lowercased() != hex32(computed) {
      throw integrity.error(
        "crc32", "CRC mismatch: the file says \(stated), its content gives \(hex32(computed)) (edited or corrupted)")
    }
    var cells: [CellParameters] = []
    for t in try root.tables("cell") {
      try t.rejectUnknownKeys([
        "offset_counts", "gain_counts_per_n", "linearity_per_n", "tc_zero_counts_per_c", "tc_span_per_c",
      ])
      let gain = try t.double("gain_counts_per_n")
      if gain == 0 || !gain.isFinite { throw t.error("gain_counts_per_n", "must be a non-zero number") }
      cells.append(
        CellParameters(
          offset_counts: try t.double("offset_counts"), gain_counts_per_n: gain,
          linearity_per_n: try t.optionalDouble("linearity_per_n") ?? 0,
          tcZero_counts_per_c: try t.optionalDouble("tc_zero_counts_per_c") ?? 0,
          tcSpan_per_c: try t.optionalDouble("tc_span_per_c") ?? 0))
    }
    if cells.isEmpty { throw FileError(file: file, field: "cell", message: "no [[cell]] entries") }
    self.init(
      board: try root.string("board"), serial: try root.string("serial"),
      created: try root.optionalString("created") ?? "", source: try root.optionalString("source") ?? "",
      plan: try root.optionalString("plan") ?? "",
      referenceTemperature_c: try root.optionalDouble("reference_temp_c") ?? 25, cells: cells)
  }
}

extension CalibrationRecord {
  /// Offset of the last line that starts with `prefix`.
  static func lastLine(startingWith prefix: String, in bytes: [UInt8]) -> Int? {
    let p = Array(prefix.utf8)
    var found: Int?
    var start = 0
    while start + p.count <= bytes.count {
      if bytes[start..<(start + p.count)].elementsEqual(p) { found = start }
      guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { break }
      start = newline + 1
    }
    return found
  }
}

/// `value` as lower-case hexadecimal with the 0x prefix, 8 digits.
func hex32(_ value: UInt32) -> String {
  let digits = Array("0123456789abcdef")
  var s = "0x"
  for shift in stride(from: 28, through: 0, by: -4) { s.append(digits[Int((value >> UInt32(shift)) & 15)]) }
  return s
}

/// A TOML basic string.
func quoted(_ s: String) -> String {
  var out = "\""
  for ch in s.unicodeScalars {
    switch ch {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\t": out += "\\t"
    default: out.unicodeScalars.append(ch)
    }
  }
  return out + "\""
}

/// A TOML float that reads back to exactly the same `Double`.
func number(_ value: Double) -> String {
  let s = "\(value)"
  return s.contains(".") || s.contains("e") || s.contains("n") || s.contains("i") ? s : s + ".0"
}
