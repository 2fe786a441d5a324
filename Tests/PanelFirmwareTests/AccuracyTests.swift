import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelSimulation

/// Position and force of still presses on the simulated panels, through
/// the whole pipeline (simulated cells, noise, creep, calibration, core,
/// tracker).
@Suite struct AccuracyTests {
  /// Reported positions during the steady part of a still 1 N press.
  static func steadyErrors(board: Board, x: Double, y: Double) throws -> (position: Double, force: Double, ids: Int) {
    let e = try SimRun.stillPress(board: board, x: x, y: y)
    #expect(e.steadyReports > 50)
    return (e.position, e.force, e.ids)
  }

  @Test(arguments: [(80.0, 50.0), (20.0, 15.0), (140.0, 85.0), (120.0, 30.0), (45.0, 70.0)])
  func plateStillPressWithinOneMillimetre(_ p: (Double, Double)) throws {
    let e = try Self.steadyErrors(board: Repo.board("sim-plate4"), x: p.0, y: p.1)
    #expect(e.position <= 1.0, "at (\(p.0), \(p.1)): \(e.position) mm")
    #expect(e.force <= 0.02, "force error \(e.force) N")
    #expect(e.ids == 1)
  }

  @Test(arguments: [(80.0, 60.0), (45.0, 55.0), (101.3, 37.9), (30.0, 90.0), (127.0, 74.0), (62.0, 28.0)])
  func gridStillPressWithinTwoMillimetres(_ p: (Double, Double)) throws {
    let e = try Self.steadyErrors(board: Repo.board("sim-grid"), x: p.0, y: p.1)
    #expect(e.position <= 2.0, "at (\(p.0), \(p.1)): \(e.position) mm")
    #expect(e.force <= 0.03, "force error \(e.force) N")
    #expect(e.ids == 1)
  }
}
