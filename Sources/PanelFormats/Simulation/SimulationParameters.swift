/// The `[frontend]` table of a simulated board (`kind = "sim"`): how the
/// simulated panel's cells differ from ideal, and its noise. Per-cell values
/// are drawn once from `seed` within the given spreads, so a board file
/// describes one particular simulated panel.
public struct SimulationParameters: Sendable, Equatable {
  public var seed: UInt64 = 1
  /// The panel's serial number (simulated panels have one too).
  public var serial = "SIM-0001"
  /// Default script, relative to the board file ("" = an idle panel).
  public var scenario = ""
  /// Nominal sensitivity, counts per newton.
  public var gain_counts_per_n = 40_000.0
  /// Relative spread of the sensitivity (uniform +-).
  public var gainSpread = 0.08
  /// Spread of the zero (uniform +-), counts.
  public var offsetSpread_counts = 150_000.0
  /// Largest quadratic non-linearity per newton (uniform +-).
  public var nonlinearity_per_n = 0.002
  /// Largest zero drift, counts per degC (uniform +-).
  public var tcZero_counts_per_c = 400.0
  /// Largest sensitivity drift per degC (uniform +-).
  public var tcSpan_per_c = 0.0003
  /// Creep: fraction of a held load added over `creepTau_s`.
  public var creep = 0.003
  public var creepTau_s = 20.0
  /// White noise per cell, counts (one standard deviation).
  public var noise_counts = 25.0
  /// Expected single-frame spikes per second, over the whole panel.
  public var spikeRate_hz = 0.2
  /// Spike height, counts.
  public var spike_counts = 3_000_000.0
  /// Supports: relative spread of the cells' stiffness (uniform +-).
  public var stiffnessSpread = 0.1
  /// Grid: depth of the elastic layer spreading a press onto the cells, mm.
  public var spread_mm = 14.0
  /// Temperature when the script gives none, degC.
  public var temperature_c = 25.0
  /// Cells that differ from the drawn ones (`[[frontend.cell]]`): faulty
  /// panels for tests and demonstrations.
  public var overrides: [SimulatedCellOverride] = []

  // The envelope of real panels (SimulationParameters+Envelope.swift): all
  // absent by default, so today's boards draw exactly what they drew before.

  /// White noise per cell in millinewtons (at the nominal gain), instead of
  /// `noise_counts`.
  public var noise_mn: Double?
  /// Low-frequency wander: first-order processes added to every cell.
  public var wander: [WanderProcess] = []
  /// Grids: the overlay's spreading kernel; its width is `spread_mm`, or
  /// `spread_pitch` times the grid's pitch.
  public var kernel = SpreadingKernelKind.boussinesq
  /// The kernels a board file names (`kernel = "..."`; the shapes are
  /// PanelMechanics' `SpreadingKernel`).
  public static let kernelNames = SpreadingKernelKind.allCases.map(\.rawValue)
  public var spread_pitch: Double?
  /// `kernel = "table"`: [r_mm, weight] rows.
  public var kernelTable: [[Double]] = []
  /// Grids: how much wider the overlay spreads along x than along y (a
  /// stiffer direction: ribs, a rectangular cover); 1 spreads alike.
  public var spreadAspect = 1.0
  /// Grids: the share of the frame around the cells (a bezel holding the
  /// overlay's rim), 0-1: 1 carries what spreads beyond the cells as a ring
  /// of cells would, so a press near an edge loses part of its force to it
  /// and its response is cut on that side; 0 (default) puts every press's
  /// whole force on the cells.
  public var frameShare = 0.0
  /// A zero drift common to every cell in millinewtons per degC (at the
  /// nominal gain), instead of `tc_zero_counts_per_c`.
  public var tcZero_mn_per_c: Double?
  /// With it, every cell's zero drift is the common one times
  /// (1 +- spread) instead of uniform in +-`tc_zero_*`.
  public var tcZeroSpread: Double?
  /// Likewise for the sensitivity drift `tc_span_per_c`.
  public var tcSpanSpread: Double?
  /// How far each cell's temperature lags the panel's (first order), s,
  /// and the spread of that lag between cells (+- fraction).
  public var thermalLag_s = 0.0
  public var thermalLagSpread = 0.0
  /// Hysteresis: a load reached from below reads (1 + h) times, from
  /// above (1 - h) times (h x 0.5...1.5 per cell).
  public var hysteresis = 0.0
  /// Where the envelope keys were, for errors found once the board is known.
  var kernelLine: Int?
  var kernelField = "frontend kernel"

  public init() {}

  static let keys = [
    "kind", "seed", "serial", "scenario", "gain_counts_per_n", "gain_spread", "offset_spread_counts",
    "nonlinearity_per_n", "tc_zero_counts_per_c", "tc_span_per_c", "creep", "creep_tau_s",
    "noise_counts", "spike_rate_hz", "spike_counts", "stiffness_spread", "spread_mm", "temperature_c", "cell",
  ] + envelopeKeys

  /// Reads the table's keys; absent keys keep their defaults.
  public init(table t: TOMLTable) throws(FileError) {
    try self.init(table: t, allowing: SimulationParameters.keys)
  }

  /// Reads the physics keys of a table that also holds other keys
  /// (`[frontend.sim]` of a simulated driver board: `extraKeys`).
  public init(table t: TOMLTable, extraKeys: [String]) throws(FileError) {
    try self.init(table: t, allowing: SimulationParameters.keys.filter { $0 != "kind" } + extraKeys)
  }

  init(table t: TOMLTable, allowing allowed: [String]) throws(FileError) {
    try t.rejectUnknownKeys(allowed)
    if let s = try t.optionalInt("seed") {
      if s < 0 { throw t.error("seed", "must be 0 or more") }
      seed = UInt64(s)
    }
    serial = try t.optionalString("serial") ?? serial
    scenario = try t.optionalString("scenario") ?? scenario
    func read(_ key: String, _ value: inout Double, _ bound: ValueBound) throws(FileError) {
      value = try t.optionalDouble(key, in: bound) ?? value
    }
    let counts = ValueBound(0...ValueBound.counts.upper, "counts")
    let fraction = ValueBound(0...1)
    try read("gain_counts_per_n", &gain_counts_per_n, .simulatedGain)
    try read("gain_spread", &gainSpread, fraction)
    try read("offset_spread_counts", &offsetSpread_counts, counts)
    try read("nonlinearity_per_n", &nonlinearity_per_n, fraction)
    try read("tc_zero_counts_per_c", &tcZero_counts_per_c, counts)
    try read("tc_span_per_c", &tcSpan_per_c, fraction)
    try read("creep", &creep, fraction)
    try read("creep_tau_s", &creepTau_s, .timeConstant_s)
    try read("noise_counts", &noise_counts, counts)
    try read("spike_rate_hz", &spikeRate_hz, .rate_hz)
    try read("spike_counts", &spike_counts, counts)
    try read("stiffness_spread", &stiffnessSpread, fraction)
    try read("spread_mm", &spread_mm, .length_mm)
    try read("temperature_c", &temperature_c, .temperature_c)
    for cell in try t.tables("cell") { overrides.append(try SimulatedCellOverride(table: cell)) }
    if gainSpread >= 0.5 { throw t.error("gain_spread", "must be below 0.5") }
    if stiffnessSpread >= 0.5 { throw t.error("stiffness_spread", "must be below 0.5") }
    try readEnvelope(t)
  }
}

/// One simulated cell's true behaviour:
///
///     counts = offset + tcZero*dT + gain*(1 + tcSpan*dT) * L * (1 + nonlinearity*L)
///
/// with `L` the load on the cell in newtons (creep included). The matching
/// calibration is offset, gain, linearity = -nonlinearity (the inverse to
/// first order), tcZero and tcSpan.
public struct SimulatedCell: Sendable, Equatable {
  public var offset_counts: Double
  public var gain_counts_per_n: Double
  public var nonlinearity_per_n: Double
  public var tcZero_counts_per_c: Double
  public var tcSpan_per_c: Double
  public var creep: Double
  /// Cross-talk: this cell also reads `crosstalk` times the load on cell
  /// `crosstalkFrom` (-1: none).
  public var crosstalkFrom = -1
  public var crosstalk = 0.0
  /// Hysteresis (see `PanelPhysics.hysteresis`), 0 for none.
  public var hysteresis = 0.0
  /// How far the cell's temperature lags the panel's, s (0: none).
  public var thermalLag_s = 0.0

  package init(
    offset_counts: Double, gain_counts_per_n: Double, nonlinearity_per_n: Double, tcZero_counts_per_c: Double,
    tcSpan_per_c: Double, creep: Double
  ) {
    self.offset_counts = offset_counts
    self.gain_counts_per_n = gain_counts_per_n
    self.nonlinearity_per_n = nonlinearity_per_n
    self.tcZero_counts_per_c = tcZero_counts_per_c
    self.tcSpan_per_c = tcSpan_per_c
    self.creep = creep
  }

  /// Counts for load `load` (newtons) at `dT` degC from the reference.
  @inline(__always)
  public func counts(load: Double, dT: Double) -> Double {
    offset_counts + tcZero_counts_per_c * dT
      + gain_counts_per_n * (1 + tcSpan_per_c * dT) * load * (1 + nonlinearity_per_n * load)
  }

  /// The calibration that undoes this cell.
  public var calibration: CellParameters {
    CellParameters(
      offset_counts: offset_counts, gain_counts_per_n: gain_counts_per_n,
      linearity_per_n: -nonlinearity_per_n, tcZero_counts_per_c: tcZero_counts_per_c,
      tcSpan_per_c: tcSpan_per_c)
  }
}
