import ForceCore
import Foundation
import PanelFirmware
import Testing

// Helpers that tests of more than one module use.

/// A small valid board file, and loading one from text.
package enum BoardText {
  package static let valid = """
    [board]
    name = "t"

    [panel]
    width_mm = 100.0
    height_mm = 50.0

    [grid]
    cols = 4
    rows = 2
    pitch_mm = 20.0

    [frontend]
    kind = "sim"

    [sampling]
    rate_hz = 200
    """

  package static func load(_ text: String) throws(FileError) -> Board {
    try Board(table: TOML.parse(text, file: "b.toml"))
  }

  package static func variant(_ name: String, _ edits: [(String, String)]) throws -> Board {
    var text = try String(contentsOfFile: Repo.path("boards/\(name).toml"), encoding: .utf8)
    for (a, b) in edits {
      #expect(text.contains(a))
      text = text.replacingOccurrences(of: a, with: b)
    }
    text = text.replacingOccurrences(of: "\"../scenarios/", with: "\"\(Repo.root)/scenarios/")
    return try Board(table: TOML.parse(text, file: Repo.path("boards/\(name)-variant.toml")))
  }
}

/// What a failing call threw, as its message.
package enum ErrorText {
  package static func message(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return "\(error)"
    }
  }
}

/// A DRV2605L behind the haptic responder on a simulated bus, and reports
/// carrying one event.
package enum HapticsBench {
  package static func bench(_ settings: HapticsSettings = HapticsSettings())
    -> (HapticFeedback<SimulatedI2CBus>, SimulatedDRV2605L, SimulatedI2CBus)
  {
    let (feedback, chip) = HapticsFactory.simulated(settings)
    feedback.bus.isTracing = true
    return (feedback, chip, feedback.bus)
  }

  package static func report(_ kind: EventKind, frame: UInt64 = 0, t_us: Int64 = 0) -> FrameReport {
    var r = FrameReport()
    r.frame = frame
    r.time = Time_us(rawValue: t_us)
    r.append(TouchEvent(kind: kind, touch: 1))
    return r
  }
}
