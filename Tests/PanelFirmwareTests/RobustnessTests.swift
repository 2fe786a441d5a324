import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelHardware
@testable import PanelSimulation

/// The baseline, spike and parked-load behaviour of the whole pipeline on
/// the simulated panels.
@Suite struct RobustnessTests {
  /// A 10 degC ramp over a minute with nobody touching.
  static let ramp = Scenario(
    name: "ramp", duration_s: 80, temperature: [Keyframe(0, 20), Keyframe(10, 20), Keyframe(70, 30), Keyframe(80, 30)],
    touches: [])

  /// The calibration without its temperature coefficients.
  static func withoutTemperature(_ c: CalibrationRecord) -> CalibrationRecord {
    var c = c
    for k in c.cells.indices {
      c.cells[k].tcZero_counts_per_c = 0
      c.cells[k].tcSpan_per_c = 0
    }
    return c
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func noFalseTouchDuringATemperatureRamp(_ name: String) throws {
    let board = try Repo.board(name)
    let panel = try FrontEndFactory.simulatedPanel(board: board, options: RunOptions(speed: 0))
    let truth = panel.trueCalibration(created: "test")
    // Without compensation the zero moves far more than a touch: the test
    // would catch a pipeline that does not absorb it.
    let drift = panel.cells.map { abs($0.tcZero_counts_per_c * 10 / $0.gain_counts_per_n) }.reduce(0, +)
    #expect(drift > 2 * board.detection.touchOn_n, "the ramp moves the zeros by \(drift) N in all")
    for calibration in [truth, Self.withoutTemperature(truth)] {
      let run = try SimRun(board: board, scenario: Self.ramp, calibration: calibration)
      #expect(run.touches.isEmpty, "\(name): \(run.touches.count) touch reports, first \(run.touches.first.map { "\($0.touch)" } ?? "")")
      #expect(run.frames == UInt64(80 * board.rate_hz))
    }
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func spikesNeverMakeATouch(_ name: String) throws {
    let board = try Repo.board(name)
    // 40 spikes a second for 20 s, on random cells.
    let run = try SimRun(board: board, scenario: .idle(duration_s: 20)) { $0.spikeRate_hz = 40 }
    // Every spike counted; at this rate two of one sign sometimes land on a
    // cell one sample apart, and the sample between them is the median's
    // outlier (and its output a spike the step limit holds): a few more
    // replaced samples than spikes (HealthCounterTests: exact among presses).
    #expect(run.injectedSpikes > 600)
    let counted = Int(run.health.spikes)
    #expect(counted >= run.injectedSpikes && counted <= run.injectedSpikes * 103 / 100,
      "spikes counted \(counted), injected \(run.injectedSpikes)")
    #expect(run.touches.isEmpty, "\(run.touches.count) touch reports, first \(run.touches.first.map { "\($0.touch)" } ?? "")")
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func aParkedLoadIsCancelledAndTapsAreStillFound(_ name: String) throws {
    let board = try Repo.board(name)
    let maxOn = board.detection.maxOn_s
    let parked = ScriptedTouch(start_s: 0.5, x_mm: 60, y_mm: 40, force_n: 3, hold_s: maxOn + 10, rise_s: 0.2, fall_s: 0.2)
    var touches = [parked]
    // Taps on top of the parked load, after it has been absorbed.
    let after = 0.5 + 0.2 + maxOn + 3
    for i in 0..<3 {
      touches.append(ScriptedTouch(start_s: after + Double(i), x_mm: 110, y_mm: 70, force_n: 0.8, hold_s: 0.1))
    }
    // And one after the load is lifted (and the cells have been re-seeded).
    touches.append(ScriptedTouch(start_s: parked.end_s + 3, x_mm: 40, y_mm: 60, force_n: 0.8, hold_s: 0.1))
    let run = try SimRun(board: board, scenario: Scenario(name: "parked", touches: touches))
    let ids = run.ids
    #expect(ids.count == 5, "ids: \(ids)")
    guard ids.count == 5 else { return }
    // The parked load: began, then cancelled after the maximum on-time.
    let first = run.phases(of: ids[0])
    #expect(first.first == .began)
    #expect(first.last == .cancelled)
    #expect(first.filter { $0 == .cancelled }.count == 1)
    let cancelledAt = run.touches.first { $0.touch.id == ids[0] && $0.touch.phase == .cancelled }!.t_us
    // Still for the maximum on-time once its landing has left the
    // liveness band (a second or two).
    let absorbed = Double(cancelledAt) / 1e6 - 0.5
    #expect(absorbed >= maxOn && absorbed <= maxOn + 2.5, "absorbed \(absorbed) s after it was set down")
    // Each tap: began, ..., ended once, about 0.8 N and where it was.
    for id in ids.dropFirst() {
      let phases = run.phases(of: id)
      #expect(phases.first == .began)
      #expect(phases.last == .ended)
      let peak = run.touches.filter { $0.touch.id == id }.map(\.touch.force.newtons).max() ?? 0
      #expect(abs(peak - 0.8) < 0.08, "tap \(id) peak \(peak) N")
    }
    #expect(run.health.absorbedLoads == 1)
  }

  @Test func twoPressesOnTheGridAreTwoTouchesWithStableIds() throws {
    let board = try Repo.board("sim-grid")
    // 45 mm apart, both moving 20 mm down the panel together.
    func finger(_ x: Double) -> ScriptedTouch {
      ScriptedTouch(
        start_s: 0.2, force: [Keyframe(0, 0), Keyframe(0.1, 1), Keyframe(1.1, 1), Keyframe(1.2, 0)],
        x: [Keyframe(0, x)], y: [Keyframe(0, 40), Keyframe(0.2, 40), Keyframe(1.0, 80)])
    }
    let run = try SimRun(board: board, scenario: Scenario(name: "two", touches: [finger(50), finger(95)]))
    #expect(run.ids.count == 2)
    for id in run.ids {
      let reports = run.touches.filter { $0.touch.id == id }
      #expect(reports.first?.touch.phase == .began)
      #expect(reports.last?.touch.phase == .ended)
      #expect(reports.filter { $0.touch.phase == .moved }.count > 10)
      // Each id stays on its own finger (the other press's tail pulls the
      // position a few millimetres toward it: the spread overlaps).
      let xs = reports.filter { $0.touch.force.newtons > 0.5 }.map(\.touch.x.millimetres)
      let target = xs.first.map { $0 < 72.5 ? 50.0 : 95.0 } ?? 0
      #expect(xs.allSatisfy { abs($0 - target) < 5 }, "id \(id) strays: \(xs.min() ?? 0)...\(xs.max() ?? 0)")
    }
    // Both are present in the same frames while pressed.
    let frames = Set(run.touches.filter { $0.touch.id == run.ids[0] }.map(\.frame))
    let both = run.touches.filter { $0.touch.id == run.ids[1] && frames.contains($0.frame) }.count
    #expect(both > 400)
  }
}
