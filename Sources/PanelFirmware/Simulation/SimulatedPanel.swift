import ForceCore

#if canImport(Glibc)
  import Glibc
#endif

/// A simulated panel that delivers raw frames directly (`kind = "sim"`):
/// scripted presses -> load sharing (plate statics or grid spreading) ->
/// creep -> each cell's offset, gain, non-linearity and temperature drift ->
/// noise and spikes -> signed 24-bit counts. Deterministic for a seed.
public struct SimulatedPanel: FrontEnd {
  public let board: Board
  public let parameters: SimulationParameters
  /// The cells as drawn from the seed.
  public let cells: [SimulatedCell]
  public internal(set) var scenario: Scenario
  public private(set) var health = FrontEndHealth()
  public var cellCount: Int { cells.count }
  let sharing: LoadSharing
  var noise: SimRandom
  var loads: [Double]
  var creepLoads: [Double]
  var frameIndex: Int64 = 0
  let lastFrame: Int64
  var clock: ClockDataReady?

  /// - Parameters:
  ///   - duration_s: overrides the scenario's length (`.infinity` = forever).
  ///   - speed: 1 paces frames in real time, 0 delivers them at once.
  public init(
    board: Board, parameters: SimulationParameters, scenario: Scenario,
    duration_s: Double? = nil, speed: Double = 0
  ) {
    self.board = board
    self.parameters = parameters
    self.scenario = scenario
    var draw = SimRandom(seed: parameters.seed)
    var cells: [SimulatedCell] = []
    for _ in 0..<board.cellCount {
      cells.append(
        SimulatedCell(
          offset_counts: (draw.symmetric() * parameters.offsetSpread_counts).rounded(),
          gain_counts_per_n: parameters.gain_counts_per_n * (1 + draw.symmetric() * parameters.gainSpread),
          nonlinearity_per_n: draw.symmetric() * parameters.nonlinearity_per_n,
          tcZero_counts_per_c: draw.symmetric() * parameters.tcZero_counts_per_c,
          tcSpan_per_c: draw.symmetric() * parameters.tcSpan_per_c,
          creep: parameters.creep * (0.5 + draw.uniform())))
    }
    parameters.applyOverrides(to: &cells)
    self.cells = cells
    if let grid = board.grid {
      sharing = LoadSharing(grid: board.cells, pitch: grid.pitch_mm, depth: parameters.spread_mm)
    } else {
      let stiffness = board.cells.map { _ in 1 + draw.symmetric() * parameters.stiffnessSpread }
      sharing = LoadSharing(supports: board.cells, stiffness: stiffness)
    }
    noise = SimRandom(seed: parameters.seed ^ 0x5EED_0F_0015E)
    loads = [Double](repeating: 0, count: board.cellCount)
    creepLoads = loads
    let duration = duration_s ?? scenario.duration_s
    lastFrame = duration.isFinite ? Int64((duration * Double(board.rate_hz)).rounded()) : Int64.max
    clock = speed > 0 ? ClockDataReady(rate_hz: board.rate_hz, speed: speed) : nil
  }

  /// The calibration that matches this panel exactly (what a perfect
  /// factory calibration would find).
  public func trueCalibration(created: String) -> CalibrationRecord {
    CalibrationRecord(
      board: board.name, serial: parameters.serial, created: created, source: "simulator",
      referenceTemperature_c: 25, cells: cells.map(\.calibration))
  }

  public mutating func start() throws(FrontEndError) {}

  public mutating func next(into frame: inout RawFrame) throws(FrontEndError) -> Bool {
    guard frameIndex < lastFrame else { return false }
    if clock != nil {
      do {
        while try !clock!.wait(timeout_us: 1_000_000) {}
      } catch {
        throw .source("simulated panel clock: \(error)")
      }
    }
    let rate = Int64(board.rate_hz)
    let t_us = frameIndex * 1_000_000 / rate
    render(time_s: Double(t_us) / 1e6, into: &frame)
    frame.time = Time_us(rawValue: t_us)
    frame.sequence = UInt32(truncatingIfNeeded: frameIndex)
    frameIndex += 1
    health.frames += 1
    return true
  }

  /// Computes the counts of every cell at `time_s`.
  mutating func render(time_s t: Double, into frame: inout RawFrame) {
    let n = cells.count
    for i in 0..<n { loads[i] = 0 }
    for touch in scenario.touches {
      if let s = touch.state(at: t), s.force > 0 {
        sharing.add(force: s.force, x: s.x, y: s.y, to: &loads)
      }
    }
    let celsius = scenario.temperature(at: t) ?? parameters.temperature_c
    let temperature = Temperature_C(celsius: celsius)
    let dT = temperature.celsius - 25
    let dt = 1 / Double(board.rate_hz)
    let creepStep = min(1, dt / parameters.creepTau_s)
    var spikeCell = -1
    var spikeSign = 1.0
    if parameters.spikeRate_hz > 0 && noise.uniform() < parameters.spikeRate_hz * dt {
      spikeCell = Int(noise.next() % UInt64(max(n, 1)))
      spikeSign = noise.uniform() < 0.5 ? -1 : 1
    }
    frame.cellCount = n
    for i in 0..<n {
      creepLoads[i] += (loads[i] - creepLoads[i]) * creepStep
      let load = loads[i] + cells[i].creep * creepLoads[i]
      var counts = cells[i].counts(load: load, dT: dT) + noise.gaussian() * parameters.noise_counts
      if i == spikeCell { counts += spikeSign * parameters.spike_counts }
      let clamped = max(Double(RawCounts.min), min(Double(RawCounts.max), counts.rounded()))
      frame.counts[i] = Int32(clamped)
    }
    frame.temperature = temperature
    frame.hasTemperature = true
    frame.valid = true
  }
}
