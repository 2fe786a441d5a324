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

  /// Distinct touch ids, in order of appearance.
  package var ids: [UInt32] {
    var seen: [UInt32] = []
    for t in touches where !seen.contains(t.touch.id) { seen.append(t.touch.id) }
    return seen
  }

  package func phases(of id: UInt32) -> [TouchPhase] { touches.filter { $0.touch.id == id }.map(\.touch.phase) }
}
