import ForceCore
import PanelFormats
import PanelMechanics

/// The simulated panel's physics, one piece for every simulated front end:
/// scripted presses -> load sharing (plate statics or grid spreading) ->
/// creep -> each cell's offset, gain, non-linearity and temperature drift ->
/// noise and spikes, as the signal of each cell in counts of a 24-bit
/// converter at gain 128. Deterministic for a seed.
///
/// The direct simulated panel (`kind = "sim"`) renders whole frames from it;
/// the simulated chips of a twin board (`bus = "sim"`) sample it at their
/// own conversion times (`PanelSignals`).
public struct PanelPhysics {
  public let parameters: SimulationParameters
  /// The cells as drawn from the seed.
  public let cells: [SimulatedCell]
  public package(set) var scenario: Scenario
  package let sharing: LoadSharing
  var noise: SimRandom
  /// Each cell's white noise, counts (one standard deviation).
  let noiseCounts: [Double]
  var wander: WanderState
  var thermal: CellTemperatures
  var loads: [Double]
  var creepLoads: [Double]
  /// Hysteresis: each cell's last load and its direction memory, -1...1.
  var hysteresisLoads: [Double]
  var hysteresisState: [Double]
  let hysteretic: Bool
  /// Each cell's signal at the last `advance`, counts (not clamped).
  public private(set) var signal: [Double]
  public private(set) var temperature = Temperature_C(celsius: 25)
  /// Spikes injected so far (one cell's sample in one frame each).
  public private(set) var injectedSpikes = 0

  public init(board: Board, parameters: SimulationParameters, scenario: Scenario) {
    self.parameters = parameters
    self.scenario = scenario
    var draw = SimRandom(seed: parameters.seed)
    // The envelope's per-cell draws come from their own stream, so a board
    // without envelope keys draws exactly what it drew before they existed.
    var envelope = SimRandom(seed: parameters.seed ^ 0xE4_7E10_BE5E)
    var cells: [SimulatedCell] = []
    for _ in 0..<board.cellCount {
      var cell = SimulatedCell(
        offset_counts: (draw.symmetric() * parameters.offsetSpread_counts).rounded(),
        gain_counts_per_n: parameters.gain_counts_per_n * (1 + draw.symmetric() * parameters.gainSpread),
        nonlinearity_per_n: draw.symmetric() * parameters.nonlinearity_per_n,
        tcZero_counts_per_c: parameters.tcZero(draw.symmetric()),
        tcSpan_per_c: parameters.tcSpan(draw.symmetric()),
        creep: parameters.creep * (0.5 + draw.uniform()))
      cell.hysteresis = parameters.hysteresis * (0.5 + envelope.uniform())
      cell.thermalLag_s = parameters.thermalLag_s * (1 + parameters.thermalLagSpread * envelope.symmetric())
      cells.append(cell)
    }
    parameters.applyOverrides(to: &cells)
    self.cells = cells
    if let grid = board.grid {
      sharing = LoadSharing(
        grid: board.cells, pitch: grid.pitch_mm, kernel: parameters.spreadingKernel(pitch: grid.pitch_mm),
        aspect: parameters.spreadAspect, frame: parameters.frameShare)
    } else {
      let stiffness = board.cells.map { _ in 1 + draw.symmetric() * parameters.stiffnessSpread }
      sharing = LoadSharing(supports: board.cells, stiffness: stiffness)
    }
    noise = SimRandom(seed: parameters.seed ^ 0x5EED_0F_0015E)
    noiseCounts = parameters.noise_counts(cellCount: board.cellCount)
    wander = WanderState(
      processes: parameters.wander, cellCount: board.cellCount, counts_per_n: parameters.gain_counts_per_n,
      seed: parameters.seed)
    thermal = CellTemperatures(cells: cells, board: board)
    loads = [Double](repeating: 0, count: board.cellCount)
    creepLoads = loads
    signal = loads
    hysteresisLoads = loads
    hysteresisState = loads
    hysteretic = cells.contains { $0.hysteresis > 0 }
  }

  public var cellCount: Int { cells.count }

  /// Cell `i`'s white noise, counts (one standard deviation).
  package func noise_counts(cell i: Int) -> Double { noiseCounts[i] }

  /// Moves the physics to `time_s`, `dt` seconds after the previous call
  /// (creep integrates over it; spikes are drawn at `spikeRate_hz * dt`),
  /// and leaves every cell's signal in `signal` and the panel temperature
  /// in `temperature`.
  public mutating func advance(time_s t: Double, dt: Double) {
    let n = cells.count
    for i in 0..<n { loads[i] = 0 }
    for touch in scenario.touches {
      if let s = touch.state(at: t), s.force > 0 {
        sharing.add(force: s.force, x: s.x, y: s.y, to: &loads)
      }
    }
    let celsius = scenario.temperature(at: t) ?? parameters.temperature_c
    temperature = Temperature_C(celsius: celsius)
    let dT = temperature.celsius - 25
    let creepStep = min(1, dt / parameters.creepTau_s)
    var spikeCell = -1
    var spikeSign = 1.0
    if parameters.spikeRate_hz > 0 && noise.uniform() < parameters.spikeRate_hz * dt {
      spikeCell = Int(noise.next() % UInt64(max(n, 1)))
      spikeSign = noise.uniform() < 0.5 ? -1 : 1
      injectedSpikes += 1
    }
    let uneven = thermal.lagging || scenario.hasGradient
    if uneven { thermal.advance(panel: temperature.celsius, gradient: scenario.gradient(at: t), dt: dt) }
    if !wander.isEmpty { wander.advance(dt: dt) }
    for i in 0..<n {
      creepLoads[i] += (loads[i] - creepLoads[i]) * creepStep
      var load = loads[i] + cells[i].creep * creepLoads[i]
      if cells[i].crosstalkFrom >= 0 { load += cells[i].crosstalk * loads[cells[i].crosstalkFrom] }
      if hysteretic { load = hysteresis(cell: i, load: load) }
      let cellDT = uneven ? thermal.celsius[i] - 25 : dT
      var counts = cells[i].counts(load: load, dT: cellDT) + noise.gaussian() * noiseCounts[i]
      if !wander.isEmpty { counts += wander.counts(cell: i) }
      if i == spikeCell { counts += spikeSign * parameters.spike_counts }
      signal[i] = counts
    }
    // An open bridge reads positive full scale.
    for fault in scenario.faults where fault.active(at: t) && fault.cell < n {
      signal[fault.cell] = Double(RawCounts.max)
    }
  }

  /// Cell `i`'s load through its hysteresis: a play operator remembers
  /// which way the load last moved (over `hysteresisTravel_n`), and the
  /// load reads (1 + h) times on the way up, (1 - h) times on the way down.
  @inline(__always)
  mutating func hysteresis(cell i: Int, load: Double) -> Double {
    let moved = (load - hysteresisLoads[i]) / PanelPhysics.hysteresisTravel_n
    hysteresisLoads[i] = load
    hysteresisState[i] = max(-1, min(1, hysteresisState[i] + moved))
    return load * (1 + cells[i].hysteresis * hysteresisState[i])
  }

  /// The load change that turns a cell's hysteresis from one way to the other.
  public static let hysteresisTravel_n = 0.2

  /// One whole frame at `time_s`, each cell's signal rounded and clamped to
  /// the 24-bit range, as the direct simulated panel delivers it.
  public mutating func render(time_s t: Double, dt: Double, into frame: inout RawFrame) {
    advance(time_s: t, dt: dt)
    let n = cells.count
    frame.cellCount = n
    for i in 0..<n {
      let clamped = max(Double(RawCounts.min), min(Double(RawCounts.max), signal[i].rounded()))
      frame.counts[i] = Int32(clamped)
    }
    frame.temperature = temperature
    frame.hasTemperature = true
    frame.valid = true
  }

  /// The calibration that matches these cells exactly (on a grid, with
  /// the contact model of the overlay's true spreading).
  public func trueCalibration(board: Board, created: String) -> CalibrationRecord {
    var contact: ContactModel?
    if case .grid(_, let pitch, let kernel) = sharing.model {
      let noise_n = parameters.effectiveNoise_counts / max(parameters.gain_counts_per_n, 1)
      contact = ContactModel.fit(pitch: pitch, reach: 6, noise_n: noise_n) { dx, dy in
        LoadSharing.weight(CellPosition(x_mm: dx, y_mm: dy), pitch: pitch, kernel: kernel, x: 0, y: 0)
      }
    }
    return CalibrationRecord(
      board: board.name, serial: parameters.serial, created: created, source: "simulator",
      referenceTemperature_c: 25, cells: cells.map(\.calibration), contact: contact)
  }
}

/// The physics shared by the simulated chips of one board: each chip asks
/// for its cell's signal at its conversion time (simulated nanoseconds);
/// the physics advances once per distinct time, whichever chip asks first.
public final class PanelSignals {
  public package(set) var physics: PanelPhysics
  package var last_ns: Int64?
  /// Clock time at which the scenario starts (after the front end's
  /// bring-up); before it the scenario's time 0 holds.
  public var origin_ns: Int64 = 0

  public init(physics: PanelPhysics) {
    self.physics = physics
  }

  /// Cell `cell`'s signal at `ns`, counts at gain 128.
  public func counts(cell: Int, at ns: Int64) -> Double {
    update(ns)
    return physics.signal[cell]
  }

  /// Moves the noise on by one draw: from here on the cells' noise is
  /// another realisation, as after a fault that took conversions at other
  /// times (`FaultSoak.placebo`).
  package func skipNoise() { _ = physics.noise.next() }

  /// Whether the scenario has cell `cell`'s bridge open at `ns` (a
  /// `[[fault]]`): a simulated ADC on it reads its rail.
  public func isOpen(cell: Int, at ns: Int64) -> Bool {
    let t = Double(max(ns - origin_ns, 0)) / 1e9
    return physics.scenario.faults.contains { $0.cell == cell && $0.active(at: t) }
  }

  /// The panel temperature at `ns`.
  public func temperature(at ns: Int64) -> Temperature_C {
    update(ns)
    return physics.temperature
  }

  func update(_ ns: Int64) {
    guard ns != last_ns else { return }
    // Chips convert on their own clocks and are brought up to date lazily,
    // so times may arrive slightly out of order: creep never runs backwards.
    let dt = last_ns.map { max(0, Double(ns - $0) / 1e9) } ?? 0
    physics.advance(time_s: max(0, Double(ns - origin_ns) / 1e9), dt: dt)
    if last_ns.map({ ns > $0 }) ?? true { last_ns = ns }
  }
}
