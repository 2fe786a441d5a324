/// The learnt response a calibration record keeps (its `[response]` table,
/// docs/formats.md): how a press at any point of the panel loads each cell,
/// as numbers whose meaning its `format` and `version` name. The record
/// only carries them; PanelMechanics reads them (`GridResponse`,
/// `PlateResponse`).
///
/// - `grid-response` 1: a grid's kernel (a cell's load for a press at an
///   offset from its centre, on a lattice `knots_per_pitch` to a pitch, out
///   to `reach` pitches each way, point-symmetric: `kernel` holds the half
///   with j > 0, or j = 0 and i >= 0, row by row) and the capture over the
///   panel (`capture`, `capture_columns` x `capture_rows` knots spanning the
///   panel, row by row).
/// - `plate-shares` 1: each support's share of a press as a plane over the
///   press position, `shares` = [a, b, c] per support, the share at (x, y)
///   mm being a + b x + c y.
public struct ResponseRecord: Sendable, Equatable {
  public var format: String
  public var version: Int
  /// Grids: the pitch, the lattice and the kernel.
  public var pitch_mm: Double?
  public var knotsPerPitch: Int?
  public var reach: Int?
  public var kernel: [Double]?
  /// Grids: the capture's knots.
  public var captureColumns: Int?
  public var captureRows: Int?
  public var capture: [Double]?
  /// Plates: each support's share, [a, b, c].
  public var shares: [[Double]]?
  /// The fit's RMS residual with this response, % (as `[fit]` reports it).
  public var residual_pct: Double?

  public init(
    format: String, version: Int, pitch_mm: Double? = nil, knotsPerPitch: Int? = nil, reach: Int? = nil,
    kernel: [Double]? = nil, captureColumns: Int? = nil, captureRows: Int? = nil, capture: [Double]? = nil,
    shares: [[Double]]? = nil, residual_pct: Double? = nil
  ) {
    self.format = format
    self.version = version
    self.pitch_mm = pitch_mm
    self.knotsPerPitch = knotsPerPitch
    self.reach = reach
    self.kernel = kernel
    self.captureColumns = captureColumns
    self.captureRows = captureRows
    self.capture = capture
    self.shares = shares
    self.residual_pct = residual_pct
  }

  /// The formats (and their versions) a record may carry.
  public static let formats: [String: ClosedRange<Int>] = ["grid-response": 1...1, "plate-shares": 1...1]

  /// The kernel's stored knots for a lattice of `reach` pitches at
  /// `knotsPerPitch`: half of (2n + 1)^2, n = reach x knotsPerPitch, and the
  /// centre.
  public static func kernelCount(reach: Int, knotsPerPitch: Int) -> Int {
    let n = reach * knotsPerPitch
    return 2 * n * n + 2 * n + 1
  }

  /// The `[response]` table's text.
  func encoded() -> String {
    var s = "\n[response]\n"
    s += "format = \(quoted(format))\n"
    s += "version = \(version)\n"
    if let r = residual_pct { s += "residual_pct = \(number(r))\n" }
    if let p = pitch_mm { s += "pitch_mm = \(number(p))\n" }
    if let k = knotsPerPitch { s += "knots_per_pitch = \(k)\n" }
    if let r = reach { s += "reach = \(r)\n" }
    if let kernel { s += "kernel = " + ResponseRecord.list(kernel) }
    if let c = captureColumns { s += "capture_columns = \(c)\n" }
    if let r = captureRows { s += "capture_rows = \(r)\n" }
    if let capture { s += "capture = " + ResponseRecord.list(capture) }
    if let shares {
      s += "shares = [\n"
      for row in shares { s += "  [" + row.map(number).joined(separator: ", ") + "],\n" }
      s += "]\n"
    }
    return s
  }

  /// A long list of numbers, ten to a line.
  static func list(_ values: [Double]) -> String {
    var s = "["
    for (i, v) in values.enumerated() {
      if i % 10 == 0 { s += "\n  " } else { s += " " }
      s += number(v) + (i + 1 < values.count ? "," : "")
    }
    return s + "\n]\n"
  }

  /// Reads a `[response]` table, checking its format, version and sizes
  /// against a board of `cells` cells.
  init(table t: TOMLTable, cells: Int) throws(FileError) {
    try t.rejectUnknownKeys([
      "format", "version", "residual_pct", "pitch_mm", "knots_per_pitch", "reach", "kernel", "capture_columns",
      "capture_rows", "capture", "shares",
    ])
    let format = try t.string("format")
    guard let versions = ResponseRecord.formats[format] else {
      let known = ResponseRecord.formats.keys.sorted().map { Quote.text($0) }.joined(separator: ", ")
      throw t.error("format", "\(Quote.text(format)) is not a response format this firmware reads (\(known))")
    }
    let version = try t.int("version")
    if !versions.contains(version) {
      throw t.error(
        "version", "\(format) version \(version) is not supported (expected \(versions.lowerBound)...\(versions.upperBound))")
    }
    self.init(format: format, version: version)
    residual_pct = try t.optionalDouble("residual_pct", in: ValueBound(0...1e6, "%"))
    switch format {
    case "grid-response":
      let pitch = try t.double("pitch_mm", in: .length_mm)
      if !(pitch > 0) { throw t.error("pitch_mm", "must be greater than 0") }
      let perPitch = try t.int("knots_per_pitch", in: 1...16)
      let reach = try t.int("reach", in: 1...8)
      let kernel = try t.doubleArray("kernel", in: ValueBound(-1...4)) ?? []
      let expected = ResponseRecord.kernelCount(reach: reach, knotsPerPitch: perPitch)
      if kernel.count != expected {
        throw t.error("kernel", "has \(kernel.count) knots, a reach of \(reach) pitches at \(perPitch) a pitch needs \(expected)")
      }
      let columns = try t.int("capture_columns", in: 2...257)
      let rows = try t.int("capture_rows", in: 2...257)
      let capture = try t.doubleArray("capture", in: ValueBound(0...4)) ?? []
      if capture.count != columns * rows {
        throw t.error("capture", "has \(capture.count) knots, \(columns) x \(rows) expected")
      }
      pitch_mm = pitch
      knotsPerPitch = perPitch
      self.reach = reach
      self.kernel = kernel
      captureColumns = columns
      captureRows = rows
      self.capture = capture
    default:
      let rows = try t.doubleRows("shares") ?? []
      if rows.count != cells || rows.contains(where: { $0.count != 3 }) {
        throw t.error("shares", "must be \(cells) rows of [a, b, c] (one per support)")
      }
      for (i, row) in rows.enumerated() {
        for v in row where !v.isFinite || abs(v) > 1e3 {
          throw t.error("shares", element: i, "\(v) is out of range (-1000...1000)")
        }
      }
      shares = rows
    }
  }
}
