import ForceCore
import PanelFormats
import PanelHardware

/// A simulated panel that delivers raw frames directly (`kind = "sim"`): the
/// panel's physics (`PanelPhysics`) rendered once per frame period and
/// clamped to signed 24-bit counts. Deterministic for a seed.
public struct SimulatedPanel: FrontEnd {
  public let board: Board
  /// Scenario -> loads -> per-cell signal (shared with the simulated chips).
  public package(set) var physics: PanelPhysics
  public var parameters: SimulationParameters { physics.parameters }
  /// The cells as drawn from the seed.
  public var cells: [SimulatedCell] { physics.cells }
  public var scenario: Scenario { physics.scenario }
  public private(set) var health = FrontEndHealth()
  public var cellCount: Int { physics.cellCount }
  package var frameIndex: Int64 = 0
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
    physics = PanelPhysics(board: board, parameters: parameters, scenario: scenario)
    let duration = duration_s ?? scenario.duration_s
    lastFrame = Int64(saturating: (duration * Double(board.rate_hz)).rounded())
    clock = speed > 0 ? ClockDataReady(rate_hz: board.rate_hz, speed: speed) : nil
  }

  /// The calibration that matches this panel exactly (what a perfect
  /// factory calibration would find).
  public func trueCalibration(created: String) -> CalibrationRecord {
    physics.trueCalibration(board: board, created: created)
  }

  public mutating func start() throws(FrontEndError) {}

  /// The script's (or the run's) last frame has been delivered.
  public var isAtEnd: Bool { frameIndex >= lastFrame }

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
    physics.render(time_s: Double(t_us) / 1e6, dt: 1 / Double(board.rate_hz), into: &frame)
    frame.time = Time_us(rawValue: t_us)
    frame.sequence = UInt32(truncatingIfNeeded: frameIndex)
    frameIndex += 1
    health.frames += 1
    return true
  }
}

extension SimulatedPanel: InspectableFrontEnd {
  public mutating func inspect() -> FrontEndInfo {
    var info = FrontEndInfo()
    let p = parameters
    info.add("front end", "sim: the simulated panel delivers frames directly (no bus, no chips)")
    info.add(
      "simulation",
      "seed \(p.seed), serial \(p.serial), \(cellCount) cells, \(p.gain_counts_per_n) counts/N, noise \(p.effectiveNoise_counts) counts"
        + p.envelopeSummary)
    info.add("health", health.description)
    return info
  }
}
