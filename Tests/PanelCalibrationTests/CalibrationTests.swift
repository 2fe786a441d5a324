import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFormats
@testable import PanelSimulation

/// Plans, sessions, the stability detector, the fit and the record, in process.
@Suite struct CalibrationTests {
  static func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("cal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  @Test func plansExpandIntoSteps() throws {
    let plate = try Repo.board("sim-plate4")
    let plan = try CalibrationPlan.load(path: Repo.path("calibration/plans/sim-plate4.toml"), board: plate)
    // Tare; 13 positions x (3 loads + zero); the centre up and down + zero;
    // 8 verification positions x (2 loads + zero); a light one + zero; hold + zero.
    #expect(plan.steps.count == 1 + 13 * 4 + 6 + 8 * 3 + 2 + 2)
    #expect(plan.steps[0].role == .tare && plan.steps[0].record_s == 1.0)
    #expect(plan.steps[1] == CalibrationStep(number: 2, role: .fit, load_g: 100, x_mm: 20, y_mm: 15, record_s: 0.4, origin: plan.steps[1].origin))
    #expect(plan.steps[4].role == .zero)
    #expect(plan.steps.filter { $0.role == .verify }.count == 17)
    #expect(plan.steps.filter { $0.role == .hold }.map(\.record_s) == [20])
    let grid = try Repo.board("sim-grid")
    let gridPlan = try CalibrationPlan.load(path: Repo.path("calibration/plans/sim-grid.toml"), board: grid)
    let centres = gridPlan.steps.filter { $0.role == .fit && $0.load_g == 500 }.prefix(48)
    #expect(centres.map(\.x_mm) == grid.cells.map(\.x_mm))
    #expect(centres.map(\.y_mm) == grid.cells.map(\.y_mm))
  }

  /// A fixture's session with only the contract's keys: roles inferred.
  @Test func aContractOnlySessionGetsItsRolesInferred() throws {
    let board = try Repo.board("sim-plate4")
    let dir = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var plan = "board = \"sim-plate4\"\nserial = \"P-000123\"\n"
    let steps: [(Double, Double?)] = [(0, nil), (200, nil), (0, nil), (0, 35), (200, nil), (0, nil)]
    for (i, s) in steps.enumerated() {
      let file = "step-0\(i + 1).csv"
      try "t_us,raw_0,raw_1,raw_2,raw_3\n".write(toFile: dir + "/" + file, atomically: true, encoding: .utf8)
      plan += "\n[[step]]\nfile = \"\(file)\"\nload_g = \(s.0)\n"
      if s.0 > 0 { plan += "x_mm = 80.0\ny_mm = 50.0\n" }
      if let t = s.1 { plan += "temp_c = \(t)\n" }
    }
    try plan.write(toFile: dir + "/plan.toml", atomically: true, encoding: .utf8)
    let session = try CalibrationSession.load(directory: dir, board: board)
    #expect(session.steps.map(\.role) == [.tare, .fit, .zero, .tare, .fit, .zero])
    #expect(session.limits == CalibrationLimits())
    #expect(session.serial == "P-000123")
  }

  @Test func theStabilityDetectorWaitsForStillnessAndIgnoresSpikes() {
    var detector = StabilityDetector(cellCount: 2, rate_hz: 500, window_s: 0.1, settle_s: 0.3)
    var random = SimRandom(seed: 7)
    var frame = RawFrame(cellCount: 2)
    func feed(_ frames: Int, level: (Int) -> Double, spikeAt: Int? = nil) -> [Bool] {
      var still: [Bool] = []
      for i in 0..<frames {
        for k in 0..<2 { frame.counts[k] = Int32((level(i) + random.gaussian() * 25).rounded()) }
        if i == spikeAt { frame.counts[1] = 3_000_000 }
        if detector.add(&frame) { still.append(detector.isStill) }
      }
      return still
    }
    // Still from the start: still after the settling time (3 windows + 1 to compare).
    let quiet = feed(500, level: { _ in 100_000 })
    #expect(quiet.prefix(3).allSatisfy { !$0 })
    #expect(quiet.suffix(5).allSatisfy { $0 })
    // A ramp (a mass being lowered) is not still; afterwards it settles again.
    detector.restart()
    let ramp = feed(100, level: { 100_000 + Double($0) * 200 })
    #expect(ramp.allSatisfy { !$0 })
    let after = feed(400, level: { _ in 120_000 })
    #expect(after.last == true)
    // A single-frame spike does not disturb it.
    let spiked = feed(200, level: { _ in 120_000 }, spikeAt: 120)
    #expect(spiked.allSatisfy { $0 })
    // A mass arriving shows as a change of thousands of noise levels.
    let reference = detector.level
    _ = feed(100, level: { _ in 160_000 })
    #expect(detector.change(from: reference).sigmas > 1000)
  }

  struct Silent: LiveCalibrationObserver {
    var steps = 0
    mutating func begin(_ step: CalibrationStep, index: Int, count: Int) throws(CalibrationRunError) { steps += 1 }
    mutating func update(_ step: CalibrationStep, phase: LivePhase) {}
    mutating func recorded(_ step: CalibrationStep) {}
    var shouldStop: Bool { false }
  }

  /// Runs `plan` on the simulated `board` in process and computes it.
  static func calibrate(board: Board, plan path: String) throws -> (CalibrationResult, SimulatedPanel) {
    let plan = try CalibrationPlan.load(path: path, board: board)
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let panel = SimulatedPanel(
      board: board, parameters: try board.simulationParameters, scenario: .idle(),
      duration_s: .infinity, speed: 0)
    let session = CalibrationSession(recording: plan, directory: dir + "/s", serial: panel.parameters.serial, date: "2026-03-14T09:26:53Z")
    var run = LiveCalibration(source: panel, board: board, plan: plan, session: session) { $0.apply($1, rise_s: $2) }
    var observer = Silent()
    try run.run(&observer)
    #expect(observer.steps == plan.steps.count)
    let recorded = try CalibrationSession.load(directory: dir + "/s", board: board)
    return (try CalibrationComputation.run(session: recorded, board: board), panel)
  }

  /// Two temperatures: the zero's and the span's coefficients come out near
  /// the simulated cells' own, and placements at both temperatures pass.
  @Test func twoTemperaturesGiveTheTemperatureCoefficients() throws {
    let board = try Repo.board("sim-plate4")
    let (result, panel) = try Self.calibrate(board: board, plan: Repo.path("calibration/plans/sim-plate4-thermal.toml"))
    #expect(result.passed, "\(result.firstFailure ?? "")")
    #expect(result.temperatures.low == 25 && result.temperatures.high == 35)
    for (k, cell) in panel.cells.enumerated() {
      let p = result.record.cells[k]
      // Zero: within 15 counts/degC of up to 400; span: within 2.5e-4/degC
      // (creep of the simulated cells during the procedure is the limit).
      #expect(abs(p.tcZero_counts_per_c - cell.tcZero_counts_per_c) < 15, "cell \(k): \(p.tcZero_counts_per_c) vs \(cell.tcZero_counts_per_c)")
      #expect(abs(p.tcSpan_per_c - cell.tcSpan_per_c) < 2.5e-4, "cell \(k): \(p.tcSpan_per_c) vs \(cell.tcSpan_per_c)")
    }
    let hot = result.verification.filter { $0.step.number > result.session.steps.firstIndex { $0.temp_c == 35 }! }
    #expect(hot.count == 6)
    #expect(hot.allSatisfy { abs($0.forceError_pct) < 1 })
  }

  @Test func recordsOfVersionTwoRoundTripAndVersionOneStillLoads() throws {
    let board = try Repo.board("sim-plate4")
    let v1 = try CalibrationRecord.load(path: Repo.path("calibration/sim-plate4.toml"), board: board)
    var v2 = v1
    v2.result = "pass"
    v2.fit = FitSummary(model: "rigid-plate", spread_mm: nil, placements: 44, residual_pct: 0.16)
    v2.cells[2].noise_counts = 25.5
    v2.coupling = [[1, 0.01, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, -0.02, 0, 1]]
    v2.checks = [CalibrationCheck(name: "noise", subject: "cell 2", value: 0.0006, limit: 0.005, unit: "N", passed: true)]
    let text = v2.encoded()
    #expect(text.contains("version = 2"))
    #expect(try CalibrationRecord(text: text, file: "x.toml") == v2)
    #expect(v2.coreCoupling.size == 4 && abs(v2.coreCoupling.value(3, 1) + 0.02) < 1e-7)
  }

  @Test func leastSquaresSolvesAndRefusesDependentColumns() {
    // y = 2 + 3x - 0.5x^2 exactly.
    let xs = [0.0, 1, 2, 3, 4, 5]
    let rows = xs.map { [1, $0, $0 * $0] }
    let x = LeastSquares.solve(rows, xs.map { 2 + 3 * $0 - 0.5 * $0 * $0 })
    #expect(x.map { abs($0[0] - 2) < 1e-9 && abs($0[1] - 3) < 1e-9 && abs($0[2] + 0.5) < 1e-9 } == true)
    #expect(LeastSquares.solve(xs.map { [$0, 2 * $0] }, xs) == nil)
  }
}
