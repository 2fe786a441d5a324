import ForceCore
import Foundation

import PanelFirmware

/// One frame of a scripted touch: force in newtons, position in mm.
package struct Sample {
  package var force_n: Double
  package var x_mm: Double
  package var y_mm: Double
  package init(_ force_n: Double, _ x_mm: Double = 80, _ y_mm: Double = 50) {
    self.force_n = force_n
    self.x_mm = x_mm
    self.y_mm = y_mm
  }
}

/// Drives `Interaction` directly with tracked touches, frame by frame, and
/// records every stage and event: the stage machine without the sensing
/// pipeline, so force profiles are exact.
package struct InteractionDrive {
  package var interaction: Interaction
  package var report = FrameReport()
  package var frame: UInt64 = 0
  package let rate_hz: Int
  package var events: [(frame: UInt64, event: TouchEvent)] = []
  package var stages: [(frame: UInt64, id: UInt32, stage: Stage, progress: UInt16, item: Int16)] = []

  package init(board: Board = InteractionDrive.board(), regions: RegionMap? = nil, calibrated: Bool = true) {
    interaction = Interaction(board: board, regions: regions, calibrated: calibrated)
    rate_hz = board.rate_hz
  }

  /// A 160 x 100 mm board at `rate_hz` with the contract's defaults.
  package static func board(rate_hz: Int = 320, _ change: (inout InteractionSettings) -> Void = { _ in }) -> Board {
    var b = Board(
      name: "drive", width_mm: 160, height_mm: 100,
      cells: [CellPosition(x_mm: 0, y_mm: 0), CellPosition(x_mm: 160, y_mm: 0)],
      frontEnd: .simulatedPanel(SimulationParameters()), rate_hz: rate_hz)
    change(&b.interaction)
    return b
  }

  package var time_us: Int64 { Int64(frame) * 1_000_000 / Int64(rate_hz) }

  /// One frame with the given touches (id, phase, sample).
  package mutating func step(_ touches: [(UInt32, TouchPhase, Sample)]) {
    report.removeAll()
    report.time = Time_us(rawValue: time_us)
    report.frame = frame
    for (id, phase, s) in touches {
      report.append(
        TouchReport(
          touch: TrackedTouch(
            id: id, phase: phase, x: Length_um(millimetres: s.x_mm), y: Length_um(millimetres: s.y_mm),
            force: Force_mN(newtons: s.force_n))))
    }
    interaction.update(&report)
    for i in 0..<report.touchCount {
      let t = report[touch: i]
      stages.append((frame, t.touch.id, t.stage, t.progress_milli, t.item))
    }
    for i in 0..<report.eventCount { events.append((frame, report[event: i])) }
    frame += 1
  }

  /// Idle frames.
  package mutating func idle(_ n: Int) {
    for _ in 0..<n { step([]) }
  }

  /// One touch through `samples`: began on the first, ended on the last.
  package mutating func press(_ samples: [Sample], id: UInt32 = 1) {
    for (i, s) in samples.enumerated() {
      let phase: TouchPhase = i == 0 ? .began : (i == samples.count - 1 ? .ended : .moved)
      step([(id, phase, s)])
    }
  }

  /// Event kinds of touch events (not panel events), in order.
  package func kinds(_ id: UInt32? = nil) -> [EventKind] {
    events.filter { !$0.event.kind.isPanelEvent && (id == nil || $0.event.touch == id) }.map(\.event.kind)
  }

  /// The stages a touch went through, consecutive repeats removed.
  package func stageSequence(_ id: UInt32 = 1) -> [Stage] {
    var out: [Stage] = []
    for s in stages where s.id == id && out.last != s.stage { out.append(s.stage) }
    return out
  }

  /// First frame in which `kind` was raised.
  package func frame(of kind: EventKind) -> UInt64? { events.first { $0.event.kind == kind }?.frame }
}

/// Profiles.
package enum Profile {
  /// Linear ramp from `a` to `b` newtons over `seconds` at `rate_hz`.
  package static func ramp(_ a: Double, _ b: Double, seconds: Double, rate_hz: Int = 320, x: Double = 80, y: Double = 50)
    -> [Sample]
  {
    let n = max(2, Int(seconds * Double(rate_hz)))
    return (0..<n).map { Sample(a + (b - a) * Double($0) / Double(n - 1), x, y) }
  }

  package static func hold(_ f: Double, seconds: Double, rate_hz: Int = 320, x: Double = 80, y: Double = 50) -> [Sample] {
    Array(repeating: Sample(f, x, y), count: max(1, Int(seconds * Double(rate_hz))))
  }

  /// The lift: a last light frame.
  package static let lift = [Sample(0.03)]
}

/// A deterministic generator for noise in profiles.
package struct TestRandom {
  package var state: UInt64
  package init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  package mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    var z = state
    z = (z ^ (z >> 33)) &* 0xff51_afd7_ed55_8ccd
    return z ^ (z >> 33)
  }
  /// Uniform in [0, 1).
  package mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
  /// Standard normal (Box-Muller).
  package mutating func gaussian() -> Double {
    let u = max(uniform(), 1e-12)
    let v = uniform()
    return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
  }
}
