/// One cell of a simulated panel set by hand instead of drawn from the seed
/// (`[[frontend.cell]]` in a simulated board file): a faulty panel for tests
/// and demonstrations, e.g. a dead cell or a strongly non-linear one.
///
///     [[frontend.cell]]
///     index = 2                    # the cell, as in raw_2 (0-based)
///     dead = true                  # no response to load (noise only)
///     nonlinearity_per_n = 0.035   # replaces the drawn non-linearity
///     crosstalk_from = 0           # also reads 3 % of cell 0's load
///     crosstalk = 0.03
///     noise_mn = 4.0               # this cell's white noise, mN (one noisier cell)
public struct SimulatedCellOverride: Sendable, Equatable {
  /// The cell, 0-based, in board cell order.
  public var index: Int
  public var dead = false
  public var gain_counts_per_n: Double?
  public var nonlinearity_per_n: Double?
  public var offset_counts: Double?
  public var crosstalkFrom: Int?
  public var crosstalk: Double?
  /// The cell's white noise in millinewtons (at the nominal gain), instead
  /// of the panel's.
  public var noise_mn: Double?
  /// Where `index` and `crosstalk_from` were, for errors found once the
  /// board is known: line and field as every other error names them
  /// (`frontend.cell[2] index`).
  var line: Int?
  var field = "frontend.cell index"
  var crosstalkLine: Int?
  var crosstalkField = "frontend.cell crosstalk_from"

  public init(index: Int, dead: Bool = false, gain_counts_per_n: Double? = nil,
              nonlinearity_per_n: Double? = nil, offset_counts: Double? = nil) {
    self.index = index
    self.dead = dead
    self.gain_counts_per_n = gain_counts_per_n
    self.nonlinearity_per_n = nonlinearity_per_n
    self.offset_counts = offset_counts
  }

  static let keys = [
    "index", "dead", "gain_counts_per_n", "nonlinearity_per_n", "offset_counts", "crosstalk_from", "crosstalk",
    "noise_mn",
  ]

  init(table t: TOMLTable) throws(FileError) {
    try t.rejectUnknownKeys(SimulatedCellOverride.keys)
    index = try t.int("index")
    if index < 0 { throw t.error("index", "must be 0 or more") }
    dead = try t.optionalBool("dead") ?? false
    gain_counts_per_n = try t.optionalDouble("gain_counts_per_n", in: .simulatedGain)
    nonlinearity_per_n = try t.optionalDouble("nonlinearity_per_n", in: .coefficient)
    offset_counts = try t.optionalDouble("offset_counts", in: .counts)
    crosstalkFrom = try t.optionalInt("crosstalk_from")
    crosstalk = try t.optionalDouble("crosstalk", in: .coefficient)
    noise_mn = try t.optionalDouble("noise_mn", in: .simulatedForce_mn)
    if (crosstalkFrom == nil) != (crosstalk == nil) {
      throw t.error(crosstalk == nil ? "crosstalk_from" : "crosstalk", "give crosstalk_from and crosstalk together")
    }
    if let j = crosstalkFrom, j < 0 || j == index { throw t.error("crosstalk_from", "must be another cell's index") }
    line = t.line(of: "index")
    field = t.field("index")
    crosstalkLine = t.line(of: "crosstalk_from")
    crosstalkField = t.field("crosstalk_from")
  }

  /// `cell` with this override applied.
  func applied(to cell: SimulatedCell) -> SimulatedCell {
    var c = cell
    if let g = gain_counts_per_n { c.gain_counts_per_n = g }
    if let n = nonlinearity_per_n { c.nonlinearity_per_n = n }
    if let o = offset_counts { c.offset_counts = o }
    if let j = crosstalkFrom, let x = crosstalk {
      c.crosstalkFrom = j
      c.crosstalk = x
    }
    if dead { c.gain_counts_per_n = 0 }
    return c
  }
}

extension SimulationParameters {
  /// Checks the overrides against the board's cells.
  public func check(board: Board) throws(FileError) {
    let cells = "the board has \(board.cellCount) cells (0...\(board.cellCount - 1))"
    for o in overrides {
      if o.index >= board.cellCount {
        throw FileError(
          file: board.file, line: o.line, field: o.field, message: "cell \(o.index) does not exist: \(cells)")
      }
      if let j = o.crosstalkFrom, j >= board.cellCount {
        throw FileError(
          file: board.file, line: o.crosstalkLine, field: o.crosstalkField,
          message: "cell \(j) does not exist: \(cells)")
      }
    }
    try checkEnvelope(board: board)
  }

  /// Each cell's white noise, counts at the nominal gain: the panel's, or
  /// its override's.
  package func noise_counts(cellCount: Int) -> [Double] {
    var noise = [Double](repeating: effectiveNoise_counts, count: cellCount)
    for o in overrides where o.index < cellCount {
      if let mn = o.noise_mn { noise[o.index] = mn / 1000 * gain_counts_per_n }
    }
    return noise
  }

  /// `cells` with the overrides applied.
  package func applyOverrides(to cells: inout [SimulatedCell]) {
    for o in overrides where o.index < cells.count {
      cells[o.index] = o.applied(to: cells[o.index])
    }
  }
}
