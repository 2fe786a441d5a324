import PanelFirmware

#if canImport(Glibc)
  import Glibc
#endif

/// A simulated factory line for the report and the scale figures: panels
/// calibrated at several stations over days, with a seeded random panel
/// population, cell lots, a station whose fixture drifts and a lot with
/// noisier cells. docs/factory.md.
///
/// It reuses work: one simulated panel is calibrated live once (frames
/// through the simulator, the product's whole computation), and each
/// calibration of the line is that session's step levels turned into
/// another panel's — every cell's zero, sensitivity and noise drawn anew,
/// the station's fixture and the lot applied, each level drawn with its
/// noise — fitted by the product's own fit (`CalibrationFit`) and checked
/// against the plan's limits (noise, sensitivity, non-linearity, fit
/// residual, step load, verification force). What needs the frames
/// (verification through the pipeline, creep, hysteresis) is the base
/// session's.
public struct SeededLine: Sendable {
  public struct Settings: Sendable {
    public var calibrations = 10_000
    public var stations = 8
    public var seed: UInt64 = 1
    public var days = 20
    public var lots = 12
    /// The station (1-based) whose reference masses grow heavier over the
    /// second half of the run, to `drift_pct` at the end (nil: none).
    public var driftStation: Int? = 3
    public var drift_pct = 4.0
    /// The lot (1-based) whose cells are noisier, by `noiseFactor` (nil: none).
    public var noisyLot: Int? = 8
    public var noiseFactor = 1.6
    /// The first day, UTC.
    public var start = "2026-01-05"
    public init() {}
  }

  public let board: Board
  public let session: CalibrationSession
  public let data: [StepData]
  public let settings: Settings
  /// The noise limit per cell, N, and the plan's limits.
  let noiseLimit: Double

  public init(board: Board, session: CalibrationSession, data: [StepData], settings: Settings) {
    self.board = board
    self.session = session
    self.data = data
    self.settings = settings
    noiseLimit = session.limits.noiseLimit(board: board)
  }

  /// The line's calibrations in time order, one at a time.
  public func makeIterator() -> Calibrations { Calibrations(line: self) }

  public struct Calibrations: IteratorProtocol {
    let line: SeededLine
    var random: LineRandom
    var index = 0
    let start: Int64
    let span: Int64
    let step: Int64
    var retests: [(due: Int, serial: Int, panel: Panel)] = []

    init(line: SeededLine) {
      self.line = line
      let s = line.settings
      random = LineRandom(seed: s.seed)
      start = FactoryTime.milliseconds(s.start) ?? 0
      span = Int64(s.days) * 86_400_000
      step = max(1, span / Int64(s.calibrations))
    }

    public mutating func next() -> CalibrationRow? {
      let s = line.settings
      guard index < s.calibrations else { return nil }
      let i = index
      index += 1
      let time = start + Int64(i) * step + Int64(random.uniform(0, Double(step) * 0.5))
      let station = i % s.stations + 1
      let lot = min(s.lots, i * s.lots / s.calibrations + 1)
      var panel: Panel
      var serial: Int
      var attempt = 1
      if let r = retests.first, r.due <= i {
        retests.removeFirst()
        panel = r.panel
        panel.misplaced = nil  // the operator places the masses right this time
        serial = r.serial
        attempt = 2
      } else {
        panel = Panel.draw(cells: line.board.cellCount, lot: lot, settings: s, random: &random, steps: line.data.count)
        serial = i + 1
      }
      let drift = line.driftFactor(station: station, time: time - start, span: span)
      let row = line.calibration(
        panel: panel, serial: serial, station: station, time: time, drift: drift, random: &random, attempt: attempt)
      if row.result == "fail" && attempt == 1 && panel.defect == nil {
        retests.append((i + s.stations * 3, serial, panel))
      }
      return row
    }
  }

  /// A simulated panel: how its cells differ from the base panel's.
  struct Panel {
    var lot: Int
    var gains: [Double]
    var offsets: [Double]
    var noise: [Double]
    /// A cell that lost most of its sensitivity (fails), or nil.
    var defect: Int?
    /// A fit step whose mass stood off its mark (an operator's slip), or nil.
    var misplaced: Int?

    static func draw(cells n: Int, lot: Int, settings: Settings, random: inout LineRandom, steps: Int) -> Panel {
      let noisy = settings.noisyLot == lot ? settings.noiseFactor : 1
      var p = Panel(
        lot: lot, gains: (0..<n).map { _ in 1 + random.uniform(-0.06, 0.06) },
        offsets: (0..<n).map { _ in random.uniform(-120_000, 120_000) },
        noise: (0..<n).map { _ in noisy * (1 + random.uniform(-0.1, 0.1)) })
      if random.uniform(0, 1) < 0.006 {
        let k = Int(random.uniform(0, Double(n)))
        p.defect = k
        p.gains[k] *= 0.6
      }
      if random.uniform(0, 1) < 0.02 { p.misplaced = Int(random.uniform(0, Double(steps))) }
      return p
    }
  }

  func driftFactor(station: Int, time: Int64, span: Int64) -> Double {
    guard station == settings.driftStation, time > span / 2 else { return 1 }
    return 1 + settings.drift_pct / 100 * Double(time - span / 2) / Double(span / 2)
  }

  /// One calibration of `panel`: the base levels made the panel's, fitted.
  func calibration(
    panel: Panel, serial: Int, station: Int, time: Int64, drift: Double, random: inout LineRandom, attempt: Int
  ) -> CalibrationRow {
    let n = board.cellCount
    let tareIndex = data.firstIndex { $0.step.role == .tare } ?? 0
    let base = data[tareIndex].mean
    // Each step's levels as this panel reads them: its zero, its sensitivity
    // (and the fixture's mass error: the load is `drift` times the plan's),
    // its noise in the step's mean.
    var means: [[Double]] = []
    var sigmas: [[Double]] = []
    for (j, d) in data.enumerated() {
      var load = drift
      if j == panel.misplaced, d.step.role == .fit { load *= 0.85 }
      let frames = Double(max(d.frames, 1))
      means.append(
        (0..<n).map { k in
          let sigma = d.sigma[k] * panel.noise[k]
          return panel.offsets[k] + (d.mean[k] - base[k]) * panel.gains[k] * load + random.normal() * sigma / frames.squareRoot()
        })
      sigmas.append((0..<n).map { d.sigma[$0] * panel.noise[$0] * (1 + random.normal() * 0.03) })
    }
    let offsets = means[tareIndex]
    let reference = data[tareIndex].temp_c ?? 25
    func placement(_ j: Int) -> CalibrationFit.Placement {
      let s = data[j].step
      return CalibrationFit.Placement(
        deltas: (0..<n).map { means[j][$0] - offsets[$0] }, force_n: s.force_n, x_mm: s.x_mm, y_mm: s.y_mm,
        dT: (data[j].temp_c ?? reference) - reference)
    }
    let fitSteps = data.indices.filter { data[$0].step.role == .fit }
    let placements = fitSteps.map(placement)
    // As the product does: the worst placement is left out while one
    // disagrees with its mass beyond the step limit (a fifth at most).
    var used = Array(placements.indices)
    var fit: CalibrationFit?
    while true {
      fit = CalibrationFit.fit(used.map { placements[$0] }, board: board, temperature: false, excluded: [])
      guard let f = fit else { break }
      let errors = used.map { abs(f.forces(placements[$0]).reduce(0, +) / placements[$0].force_n - 1) * 100 }
      guard let worst = errors.indices.max(by: { errors[$0] < errors[$1] }), errors[worst] > session.limits.stepError_pct,
        placements.count - used.count < max(1, placements.count / 5), used.count > 3
      else { break }
      used.remove(at: worst)
    }

    var checks: [CalibrationRow.Check] = []
    func check(_ name: String, _ subject: String, _ value: Double, _ limit: Double, _ unit: String) {
      checks.append(
        CalibrationRow.Check(name: name, subject: subject, value: value, limit: limit, unit: unit, passed: value <= limit))
    }
    var row = CalibrationRow(id: RowID.make(using: &random))
    let limits = session.limits
    if let fit {
      let gains = (0..<n).map { fit.u[$0] != 0 ? 1 / fit.u[$0] : 0 }
      let median = gains.map(abs).sorted()[n / 2]
      var stepErrors: [(String, Double)] = []
      for (row, j) in fitSteps.enumerated() {
        let total = fit.forces(placements[row]).reduce(0, +)
        stepErrors.append((data[j].step.name, (total / placements[row].force_n - 1) * 100))
      }
      let usedErrors = used.map { stepErrors[$0].1 }
      let residual = (usedErrors.map { $0 * $0 }.reduce(0, +) / Double(max(usedErrors.count, 1))).squareRoot()
      for k in 0..<n { check("noise", "cell \(k)", sigmas[tareIndex][k] * abs(fit.u[k]), noiseLimit, "N") }
      for k in 0..<n { check("sensitivity", "cell \(k)", abs(abs(gains[k]) / median - 1) * 100, limits.sensitivitySpread_pct, "%") }
      var nonlinearity: [Double] = []
      for k in 0..<n {
        let biggest = used.map { placements[$0].deltas[k] }.max { abs($0) < abs($1) } ?? 0
        let full = fit.force(k, biggest, 0)
        nonlinearity.append(full == 0 ? 0 : abs(fit.v[k]) * biggest * biggest / 4 / abs(full) * 100)
        check("non-linearity", "cell \(k)", nonlinearity[k], limits.nonlinearity_pct, "%")
      }
      check("fit residual", "panel", residual, limits.fitResidual_pct, "%")
      for (name, e) in stepErrors { check("step load", name, abs(e), limits.stepError_pct, "%") }
      var worst = 0.0
      for j in data.indices where data[j].step.role == .verify && data[j].step.force_n >= limits.forceFloor_n {
        let p = placement(j)
        let e = abs(fit.forces(p).reduce(0, +) / p.force_n - 1) * 100
        worst = max(worst, e)
        check("verification force", data[j].step.name, e, limits.forceError_pct, "%")
      }
      row.residual_pct = residual
      row.accuracyForce_pct = worst
      row.cells = (0..<n).map { k in
        CalibrationRow.Cell(
          index: k, offset_counts: offsets[k], sensitivity_counts_per_n: gains[k], nonlinearity_pct: nonlinearity[k],
          tcZero_counts_per_c: 0, tcSpan_per_c: 0, noise_counts: sigmas[tareIndex][k],
          noise_n: sigmas[tareIndex][k] * abs(fit.u[k]), hysteresis_pct: nil, zeroReturn_pct: nil)
      }
    } else {
      check("fit", "panel", 1, 0, "")
    }
    let passed = checks.allSatisfy(\.passed)
    let name = "P-" + String(repeating: "0", count: max(0, 6 - String(serial).count)) + String(serial)
    row.serial = name
    row.board = board.name
    row.plan = session.planName
    row.planSHA256 = CalibrationRow.planHash(session)
    row.station = "S\(station)"
    row.fixture = "F\(station)"
    row.operatorID = "op\((serial + station) % 5 + 1)"
    row.lot = "L" + (panel.lot < 10 ? "0" : "") + "\(panel.lot)"
    row.firmware = "panelctl line simulation"
    row.startedAt = FactoryTime.text(time)
    row.endedAt = FactoryTime.text(time + 95_000)
    row.tempLow_c = data.compactMap(\.temp_c).min() ?? 25
    row.tempHigh_c = data.compactMap(\.temp_c).max() ?? 25
    row.result = passed ? "pass" : "fail"
    row.failure = checks.first { !$0.passed }?.name
    row.accuracyMethod = "verification (fit)"
    row.accuracyPosition_mm = 0
    row.checks = checks
    row.certificatePath = "line/\(name)-\(attempt).certificate.html"
    row.certificateJSON = "{\"format\":\"forcepanel-calibration-summary\",\"serial\":\"\(name)\",\"result\":\"\(row.result)\"}"
    let record = "# simulated line: \(name), attempt \(attempt)\ngains = \(row.cells.map(\.sensitivity_counts_per_n))\n"
    row.model = CalibrationRow.Model(format: "forcepanel-line-simulation/1", bytes: Array(record.utf8))
    if passed {
      row.recordPath = "line/\(name).toml"
      row.recordSHA256 = row.model.sha256
    }
    return row
  }
}

/// The line's random numbers: SplitMix64, seeded (the same line every run).
struct LineRandom: RandomNumberGenerator {
  var state: UInt64
  /// The seed scrambled into the state (seeds one apart must not give
  /// the same stream one step apart).
  init(seed: UInt64) {
    state = seed
    state = next()
  }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func uniform(_ low: Double, _ high: Double) -> Double {
    low + (high - low) * Double(next() >> 11) / Double(1 << 53)
  }
  /// Standard normal (Box-Muller).
  mutating func normal() -> Double {
    let u = max(uniform(0, 1), 1e-300)
    let v = uniform(0, 1)
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }
}
