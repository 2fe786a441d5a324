import ForceCore

import PanelFirmware

/// Paths in the repository, for tests that use its board files.
package enum Repo {
  package static let root: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/PanelTestSupport/Support.swift
    return parts.joined(separator: "/")
  }()

  package static func path(_ relative: String) -> String { root + "/" + relative }

  package static func board(_ name: String) throws -> Board {
    try Board.load(path: path("boards/\(name).toml"))
  }
}

/// A simulated board run through the whole scan loop, collecting reports.
package struct SimRun {
  package var touches: [(frame: UInt64, t_us: Int64, touch: TrackedTouch, stage: Stage, item: Int16)] = []
  package var events: [(frame: UInt64, event: TouchEvent)] = []
  package var health = CoreHealth()
  package var frames: UInt64 = 0
  /// Spikes the simulated panel injected.
  package var injectedSpikes = 0

  /// Runs `scenario` on `board` (its own simulation parameters, adjusted by
  /// `tweak`) with `calibration` (default: the panel's true one) and the
  /// host's `regions` (default: none, the whole panel peeks).
  package init(
    board: Board, scenario: Scenario, calibration: CalibrationRecord? = nil, regions: RegionMap? = nil,
    tweak: (inout SimulationParameters) -> Void = { _ in }
  ) throws {
    var parameters = try board.simulationParameters
    tweak(&parameters)
    let panel = SimulatedPanel(board: board, parameters: parameters, scenario: scenario, speed: 0)
    let cal = calibration ?? panel.trueCalibration(created: "test")
    let loop = ScanLoop(source: panel, board: board, calibration: cal, regions: regions)
    while try loop.step() {
      let r = loop.report
      for i in 0..<r.touchCount {
        touches.append((r.frame, r.time.rawValue, r[touch: i].touch, r[touch: i].stage, r[touch: i].item))
      }
      for i in 0..<r.eventCount { events.append((r.frame, r[event: i])) }
    }
    health = loop.pipeline.health
    frames = loop.frames
    injectedSpikes = loop.source.physics.injectedSpikes
  }

  /// A still 1 N press at (`x`, `y`) on `board` (with `calibration`, default
  /// the panel's true one): the largest position error (mm) and force error
  /// (N) of its steady part (0.35 ... 0.75 s, away from the ramps), and how
  /// many touch ids it made.
  package static func stillPress(
    board: Board, x: Double, y: Double, calibration: CalibrationRecord? = nil
  ) throws -> (position: Double, force: Double, steadyReports: Int, ids: Int) {
    let press = ScriptedTouch(start_s: 0.2, x_mm: x, y_mm: y, force_n: 1, hold_s: 0.6, rise_s: 0.05, fall_s: 0.05)
    let run = try SimRun(board: board, scenario: Scenario(name: "still", touches: [press]), calibration: calibration)
    let steady = run.touches.filter { $0.t_us >= 350_000 && $0.t_us <= 750_000 }
    var worst = 0.0
    var worstForce = 0.0
    for s in steady {
      let dx = s.touch.x.millimetres - x
      let dy = s.touch.y.millimetres - y
      worst = max(worst, (dx * dx + dy * dy).squareRoot())
      worstForce = max(worstForce, abs(s.touch.force.newtons - 1))
    }
    return (worst, worstForce, steady.count, run.ids.count)
  }

  /// Distinct touch ids, in order of appearance.
  package var ids: [UInt32] {
    var seen: [UInt32] = []
    for t in touches where !seen.contains(t.touch.id) { seen.append(t.touch.id) }
    return seen
  }

  package func phases(of id: UInt32) -> [TouchPhase] { touches.filter { $0.touch.id == id }.map(\.touch.phase) }
}
