import Foundation
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFirmware
@testable import PanelFormats

/// The evaluation harness (`panelctl sim evaluate`): its population spans
/// the envelope, and a run of the quick population covers every panel and
/// scenario, leaves every file behind, and finds today's quiet boards
/// within the bars.
@Suite struct EvaluationHarnessTests {
  @Test func thePopulationSpansTheEnvelopeAndItsCorners() throws {
    let panels = EvaluationPopulation.panels(count: 24, seed: 1, boardsDirectory: Repo.path("boards"))
    #expect(panels.count == 24)
    #expect(Set(panels.map(\.name)).count == 24)
    #expect(Array(panels.prefix(2).map(\.name)) == ["sim-plate4", "sim-grid"])
    #expect(panels.filter { $0.origin == .corner }.count >= 10)
    var kernels = Set<String>()
    var noise: [Double] = []
    var rates: [Int] = []
    for (i, panel) in panels.enumerated() {
      let board: Board
      if let path = panel.boardPath {
        board = try Board.load(path: path)
      } else {
        let text = panel.envelope!.boardText(name: panel.name, serial: "S\(i)", description: "test")
        board = try Board(table: TOML.parse(text, file: "\(panel.name).toml"))
      }
      let p = try FrontEndFactory.simulationParameters(board)
      _ = try CalibrationPlan(table: TOML.parse(PanelEvaluation.plan(try TextFile.read(path: panel.planPath), for: board.name), file: "plan.toml"), board: board)
      #expect((board.grid == nil) == (panel.kind == .plate))
      let mn = p.effectiveNoise_counts / p.gain_counts_per_n * 1000
      noise.append(mn)
      rates.append(board.rate_hz)
      #expect(mn >= 0.2 - 1e-9 && mn <= 10 + 1e-9, "\(panel.name): noise \(mn) mN")
      #expect(p.wander.map { $0.sigma_mn * $0.sigma_mn }.reduce(0, +).squareRoot() <= 5 + 1e-6)
      #expect(board.rate_hz >= 320 && board.rate_hz <= 500)
      #expect(p.nonlinearity_per_n * 5 / 4 <= 0.02 + 1e-9, "\(panel.name): non-linearity over 2 %")
      #expect(p.tcZeroSpread.map { $0 <= 0.5 } ?? true)
      if let g = board.grid {
        let kernel = p.spreadingKernel(pitch: g.pitch_mm)
        kernels.insert(kernel.name)
        if let w = kernel.width_mm { #expect(w / g.pitch_mm >= 0.35 - 1e-9 && w / g.pitch_mm <= 0.8 + 1e-9) }
      }
    }
    #expect(kernels == ["boussinesq", "gaussian", "exponential", "table"])
    #expect(noise.min()! <= 0.2 + 1e-9 && noise.max()! >= 10 - 1e-9)
    #expect(rates.contains(320) && rates.contains(500))
    // The same seed draws the same population; another seed other draws.
    let again = EvaluationPopulation.panels(count: 24, seed: 1, boardsDirectory: Repo.path("boards"))
    let other = EvaluationPopulation.panels(count: 24, seed: 2, boardsDirectory: Repo.path("boards"))
    #expect(again == panels)
    #expect(other.last?.envelope != panels.last?.envelope)
  }

  /// Bars today's quiet boards may miss: a 320 frames/s plate reports a
  /// light touch about 2.5 frames after its force crosses `touch_on_n`
  /// (the median-of-three spike filter, then two frames of debounce, one
  /// for a contact well above the thresholds), 7.1-8.1 ms against the bar's
  /// 8 (docs/robustness.md); it must stay within three frames.
  static let knownMisses: [(panel: String, metric: EvaluationMetric, atMost: Double)] = [
    ("sim-plate4", .latency, 3 * 1000 / 320.0)
  ]

  @Test func theQuickEvaluationCoversEveryPanelAndScenarioAndTodaysBoardsMeetTheBars() throws {
    let out = try FilesTestSupport.makeTemporaryDirectory() + "/evaluation"
    let panels = EvaluationPopulation.panels(count: 4, seed: 1, boardsDirectory: Repo.path("boards"))
    let evaluation = PopulationEvaluation(
      panels: panels, out: out, seed: 1, lengths: .quick, date: "2026-01-01T00:00:00Z")
    var steps = 0
    let results = try evaluation.run { _, _, _ in steps += 1 }
    #expect(results.map(\.board) == ["sim-plate4", "sim-grid", "sim-plate4-noisy", "sim-grid-noisy"])
    #expect(steps == 4 * 1 + 5 + 6 + 5 + 6, "one progress call per calibration and per scenario")

    let table = EvaluationTable.text(results)
    for r in results {
      let expected = ["taps", "presses", "ramp", "cooling", "parked"] + (r.panel.kind == .grid ? ["two-finger"] : [])
      #expect(r.scenarios.map(\.name) == expected)
      #expect(table.contains("\(r.board)  ") && table.split(separator: "\n").filter { $0.hasPrefix(r.board + " ") }.count == expected.count + 1)
      #expect(r.calibration.stopped == nil, "\(r.board): \(r.calibration.summary)")
      #expect(TextFile.exists(r.calibrationRecord ?? "-"))
      #expect(TextFile.exists(evaluation.directory(results.firstIndex { $0.board == r.board }!) + "session/plan.toml"))
      for s in r.scenarios {
        #expect(s.frames > 0)
        for file in [s.scenarioFile, s.recording, s.reports] { #expect(TextFile.exists(file), "\(file)") }
        // The noise-free figures every scenario has.
        #expect(s.score.recall != nil && s.score.precision != nil && s.score.latency_ms != nil)
      }
    }

    // Today's quiet boards: calibrated, and within every bar.
    for r in results.prefix(2) {
      #expect(r.calibration.passed == true, "\(r.board): \(r.calibration.summary)")
      for miss in r.misses {
        if let known = Self.knownMisses.first(where: { $0.panel == miss.panel && $0.metric == miss.metric }) {
          #expect(miss.value <= known.atMost, "\(miss)")
        } else {
          Issue.record("\(miss)")
        }
      }
    }

    // The JSON says the same.
    let json = EvaluationJSON.text(results, seed: 1, quick: true)
    let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
    let listed = root["panels"] as! [[String: Any]]
    #expect(listed.count == 4)
    #expect((root["misses"] as! [Any]).count == results.flatMap(\.misses).count)
    let grid = listed[1]["scenarios"] as! [[String: Any]]
    #expect(grid.map { $0["name"] as! String } == ["taps", "presses", "ramp", "cooling", "parked", "two-finger"])
    #expect((grid[5]["metrics"] as! [String: Any])["pairs_stable"] as? Double == results[1].scenarios[5].score.pairsStable)
  }
}
