import ForceCore

/// One cell's calibration parameters, in engineering units
/// (see `CellCalibration` for the model they feed).
public struct CellParameters: Sendable, Equatable {
  public var offset_counts: Double
  public var gain_counts_per_n: Double
  public var linearity_per_n: Double
  public var tcZero_counts_per_c: Double
  public var tcSpan_per_c: Double
  /// Noise measured at calibration, counts, one standard deviation (version 2).
  public var noise_counts: Double?

  public init(
    offset_counts: Double, gain_counts_per_n: Double, linearity_per_n: Double = 0,
    tcZero_counts_per_c: Double = 0, tcSpan_per_c: Double = 0, noise_counts: Double? = nil
  ) {
    self.offset_counts = offset_counts
    self.gain_counts_per_n = gain_counts_per_n
    self.linearity_per_n = linearity_per_n
    self.tcZero_counts_per_c = tcZero_counts_per_c
    self.tcSpan_per_c = tcSpan_per_c
    self.noise_counts = noise_counts
  }
}

/// A panel's calibration record: versioned, tied to a board and a serial,
/// checked by a CRC-32. Stored as TOML (docs/formats.md); the CRC covers
/// every byte before the `[integrity]` line. Version 2 adds the result, a
/// summary of the fit, each cell's noise, an optional coupling matrix and
/// the checks; version 3 the learnt response (`[response]`, its own format
/// name and version); version 1 records (the simulator's truth) still load.
public struct CalibrationRecord: Sendable, Equatable {
  public static let format = "forcepanel-calibration"
  public static let version = 3
  public static let versions = 1...3

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
  /// "pass" or "fail" for a computed calibration; "" otherwise.
  public var result: String
  public var fit: FitSummary?
  /// Cross-talk correction for plates: corrected forces = coupling x cell
  /// forces (row-major, cells x cells); nil = none.
  public var coupling: [[Double]]?
  /// Grid: how contacts take their force (nil: the cells within two cells
  /// of a peak, unscaled).
  public var contact: ContactModel?
  /// The learnt response: how a press anywhere loads each cell (nil: none
  /// learnt; version 3).
  public var response: ResponseRecord?
  public var checks: [CalibrationCheck]

  public init(
    board: String, serial: String, created: String, source: String, plan: String = "",
    referenceTemperature_c: Double = 25, cells: [CellParameters], result: String = "",
    fit: FitSummary? = nil, coupling: [[Double]]? = nil, contact: ContactModel? = nil,
    response: ResponseRecord? = nil, checks: [CalibrationCheck] = []
  ) {
    self.contact = contact
    self.response = response
    self.board = board
    self.serial = serial
    self.created = created
    self.source = source
    self.plan = plan
    self.referenceTemperature_c = referenceTemperature_c
    self.cells = cells
    self.result = result
    self.fit = fit
    self.coupling = coupling
    self.checks = checks
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

  /// The core's cross-talk correction (empty when the record has none).
  public var coreCoupling: CouplingMatrix {
    guard let coupling, coupling.count == cells.count, cells.count <= CouplingMatrix.capacity else {
      return CouplingMatrix()
    }
    var m = CouplingMatrix(size: cells.count)
    for i in 0..<cells.count { for j in 0..<cells.count { m.set(i, j, coupling[i][j]) } }
    return m
  }

  /// The lowest version that holds this record: 1 when it has none of
  /// version 2's additions (the simulator's truth stays as committed), 2
  /// without a response.
  public var encodedVersion: Int {
    if response != nil { return 3 }
    let plain = result.isEmpty && fit == nil && coupling == nil && contact == nil && checks.isEmpty
      && cells.allSatisfy { $0.noise_counts == nil }
    return plain ? 1 : 2
  }

  /// The record's text, CRC line included.
  public func encoded() -> String {
    var body = "# Force panel calibration record. Edit nothing: the CRC covers every byte\n"
    body += "# above the [integrity] line.\n"
    body += "format = \"\(CalibrationRecord.format)\"\n"
    body += "version = \(encodedVersion)\n"
    body += "board = \(quoted(board))\n"
    body += "serial = \(quoted(serial))\n"
    body += "created = \(quoted(created))\n"
    body += "source = \(quoted(source))\n"
    body += "plan = \(quoted(plan))\n"
    body += "reference_temp_c = \(number(referenceTemperature_c))\n"
    if !result.isEmpty { body += "result = \(quoted(result))\n" }
    if let fit {
      body += "\n[fit]\n"
      body += "model = \(quoted(fit.model))\n"
      if let s = fit.spread_mm { body += "spread_mm = \(number(s))\n" }
      body += "placements = \(fit.placements)\n"
      body += "residual_pct = \(number(fit.residual_pct))\n"
      if let k = fit.kernel { body += "kernel = \(quoted(k))\n" }
      if let p = fit.profile { body += "profile = [" + p.map(number).joined(separator: ", ") + "]\n" }
      if let s = fit.profileStep_mm { body += "profile_step_mm = \(number(s))\n" }
    }
    if let contact {
      body += "\n[contact]\n"
      body += "radius = \(contact.radius)\n"
      body += "capture_scale = \(number(contact.captureScale))\n"
      if contact.captureSlope != 0 { body += "capture_slope = \(number(contact.captureSlope))\n" }
      if contact.mergeSaddle > 0 { body += "merge_saddle = \(number(contact.mergeSaddle))\n" }
    }
    if let response { body += response.encoded() }
    if let coupling {
      body += "\n[coupling]\n"
      body += "rows = [\n"
      for row in coupling { body += "  [" + row.map(number).joined(separator: ", ") + "],\n" }
      body += "]\n"
    }
    for c in cells {
      body += "\n[[cell]]\n"
      body += "offset_counts = \(number(c.offset_counts))\n"
      body += "gain_counts_per_n = \(number(c.gain_counts_per_n))\n"
      body += "linearity_per_n = \(number(c.linearity_per_n))\n"
      body += "tc_zero_counts_per_c = \(number(c.tcZero_counts_per_c))\n"
      body += "tc_span_per_c = \(number(c.tcSpan_per_c))\n"
      if let noise = c.noise_counts { body += "noise_counts = \(number(noise))\n" }
    }
    for c in checks {
      body += "\n[[check]]\n"
      body += "name = \(quoted(c.name))\n"
      body += "subject = \(quoted(c.subject))\n"
      body += "value = \(number(c.value))\n"
      body += "limit = \(number(c.limit))\n"
      body += "unit = \(quoted(c.unit))\n"
      body += "passed = \(c.passed)\n"
      if !c.note.isEmpty { body += "note = \(quoted(c.note))\n" }
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
    let record = try CalibrationRecord(text: TextFile.read(path: path), file: path)
    if let expected {
      if record.board != expected.name {
        throw FileError(
          file: path, field: "board",
          message: "calibration is for board \(Quote.text(record.board)), not \(Quote.text(expected.name))")
      }
      if record.cells.count != expected.cellCount {
        throw FileError(
          file: path, field: "cell",
          message: "has \(record.cells.count) cells, board \(Quote.text(expected.name)) has \(expected.cellCount)")
      }
    }
    return record
  }

  /// Parses and checks a record's text.
  public init(text: String, file: String) throws(FileError) {
    let root = try TOML.parse(text, file: file)
    try root.rejectUnknownKeys([
      "format", "version", "board", "serial", "created", "source", "plan", "reference_temp_c",
      "cell", "integrity", "result", "fit", "coupling", "contact", "check", "response",
    ])
    let format = try root.string("format")
    if format != CalibrationRecord.format {
      throw root.error("format", "\(Quote.text(format)) is not a calibration record")
    }
    let version = try root.int("version")
    if !CalibrationRecord.versions.contains(version) {
      throw root.error(
        "version",
        "version \(version) is not supported (expected \(CalibrationRecord.versions.lowerBound)...\(CalibrationRecord.versions.upperBound))")
    }
    let integrity = try root.table("integrity")
    try integrity.rejectUnknownKeys(["crc32"])
    let stated = try integrity.string("crc32")
    let bytes = Array(text.utf8)
    guard let marker = CalibrationRecord.lastLine(startingWith: "[integrity]", in: bytes) else {
      throw root.error("integrity", "the [integrity] table must come last")
    }
    try CalibrationRecord.checkTrailer(bytes, after: marker, file: file)
    let computed = CRC32.checksum(bytes[..<marker])
    if stated.lowercased() != hex32(computed) {
      throw integrity.error(
        "crc32", "CRC mismatch: the file says \(stated), its content gives \(hex32(computed)) (edited or corrupted)")
    }
    var cells: [CellParameters] = []
    for t in try root.tables("cell") {
      try t.rejectUnknownKeys([
        "offset_counts", "gain_counts_per_n", "linearity_per_n", "tc_zero_counts_per_c", "tc_span_per_c",
        "noise_counts",
      ])
      let gain = try t.double("gain_counts_per_n", in: .gain_counts_per_n)
      if gain == 0 { throw t.error("gain_counts_per_n", "must be a non-zero number") }
      cells.append(
        CellParameters(
          offset_counts: try t.double("offset_counts", in: .counts), gain_counts_per_n: gain,
          linearity_per_n: try t.optionalDouble("linearity_per_n", in: .coefficient) ?? 0,
          tcZero_counts_per_c: try t.optionalDouble("tc_zero_counts_per_c", in: .counts) ?? 0,
          tcSpan_per_c: try t.optionalDouble("tc_span_per_c", in: .coefficient) ?? 0,
          noise_counts: try t.optionalDouble("noise_counts", in: ValueBound(0...ValueBound.counts.upper, "counts"))))
    }
    if cells.isEmpty { throw FileError(file: file, field: "cell", message: "no [[cell]] entries") }
    let result = try root.optionalString("result") ?? ""
    if result == "fail" {
      throw root.error("result", "the record says the calibration failed (result = \"fail\"): it cannot be used")
    }
    if result != "" && result != "pass" {
      throw root.error("result", "\(Quote.text(result)) is not one of pass, fail")
    }
    var fit: FitSummary?
    if let t = try root.optionalTable("fit") {
      try t.rejectUnknownKeys([
        "model", "spread_mm", "placements", "residual_pct", "kernel", "profile", "profile_step_mm",
      ])
      let profile = try t.doubleArray("profile", in: ValueBound(0...1))
      fit = FitSummary(
        model: try t.string("model"), spread_mm: try t.optionalDouble("spread_mm", in: .length_mm),
        placements: try t.int("placements", in: 0...1_000_000),
        residual_pct: try t.double("residual_pct", in: ValueBound(0...1e6, "%")),
        kernel: try t.optionalString("kernel"), profile: profile,
        profileStep_mm: try t.optionalDouble("profile_step_mm", in: .length_mm))
    }
    var contact: ContactModel?
    if let t = try root.optionalTable("contact") {
      try t.rejectUnknownKeys(["radius", "capture_scale", "capture_slope", "merge_saddle"])
      contact = ContactModel(
        radius: try t.int("radius", in: 1...8),
        captureScale: try t.double("capture_scale", in: ValueBound(0.5...4)),
        captureSlope: try t.optionalDouble("capture_slope", in: ValueBound(-4...4)) ?? 0,
        mergeSaddle: try t.optionalDouble("merge_saddle", in: ValueBound(0...1)) ?? 0)
    }
    var response: ResponseRecord?
    if let t = try root.optionalTable("response") {
      if version < 3 { throw t.error("format", "a [response] table needs version 3 (the record says \(version))") }
      response = try ResponseRecord(table: t, cells: cells.count)
    }
    var coupling: [[Double]]?
    if let t = try root.optionalTable("coupling") {
      try t.rejectUnknownKeys(["rows"])
      let rows = try t.doubleRows("rows") ?? []
      if cells.count > CouplingMatrix.capacity {
        throw t.error(
          "rows", "a coupling matrix is for boards of up to \(CouplingMatrix.capacity) cells, the record has \(cells.count)")
      }
      if rows.count != cells.count || rows.contains(where: { $0.count != cells.count }) {
        throw t.error("rows", "must be \(cells.count) rows of \(cells.count) numbers (one per cell)")
      }
      for (i, row) in rows.enumerated() {
        for value in row where !ValueBound.coupling.contains(value) {
          throw t.error("rows", element: i, ValueBound.coupling.violation(value))
        }
      }
      coupling = rows
    }
    var checks: [CalibrationCheck] = []
    for t in try root.tables("check") {
      try t.rejectUnknownKeys(["name", "subject", "value", "limit", "unit", "passed", "note"])
      checks.append(
        CalibrationCheck(
          name: try t.string("name"), subject: try t.string("subject"), value: try t.double("value"),
          limit: try t.double("limit"), unit: try t.string("unit"), passed: try t.bool("passed"),
          note: try t.optionalString("note") ?? ""))
    }
    self.init(
      board: try root.string("board"), serial: try root.string("serial"),
      created: try root.optionalString("created") ?? "", source: try root.optionalString("source") ?? "",
      plan: try root.optionalString("plan") ?? "",
      referenceTemperature_c: try root.optionalDouble("reference_temp_c", in: .temperature_c) ?? 25, cells: cells,
      result: result, fit: fit, coupling: coupling, contact: contact, response: response, checks: checks)
  }
}

extension CalibrationRecord {
  /// The CRC covers the bytes before the `[integrity]` line, so nothing
  /// after it may change the record: only the `crc32` line, blank lines
  /// and comments. Anything else is an error naming its line.
  static func checkTrailer(_ bytes: [UInt8], after marker: Int, file: String) throws(FileError) {
    var lineNumber = bytes[..<marker].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    var sawCRC = false
    var first = true
    for line in bytes[marker...].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      defer { lineNumber += 1 }
      if first {
        first = false
        continue
      }
      let text = String(decoding: line, as: UTF8.self).drop { $0 == " " || $0 == "\t" }
      if text.isEmpty || text.hasPrefix("#") || text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
        continue
      }
      if !sawCRC && text.hasPrefix("crc32") {
        sawCRC = true
        continue
      }
      throw FileError(
        file: file, line: lineNumber, field: "[integrity]",
        message: "only crc32 may follow the [integrity] line: the CRC does not cover what comes after it")
    }
  }

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
package func hex32(_ value: UInt32) -> String {
  let digits = Array("0123456789abcdef")
  var s = "0x"
  for shift in stride(from: 28, through: 0, by: -4) { s.append(digits[Int((value >> UInt32(shift)) & 15)]) }
  return s
}

/// A TOML basic string.
package func quoted(_ s: String) -> String {
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
package func number(_ value: Double) -> String {
  let s = "\(value)"
  return s.contains(".") || s.contains("e") || s.contains("n") || s.contains("i") ? s : s + ".0"
}
