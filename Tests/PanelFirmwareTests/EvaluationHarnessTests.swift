import Foundation
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelEvaluationHarness
@testable import PanelFirmware
@testable import PanelFormats

/// The evaluation harness (`panelctl sim evaluate`): its population spans
/// the envelope, and a run of the quick population covers every panel and
/// scenario, leaves every file behind, and finds today's quiet boards
/// within the bars.
@Suite struct EvaluationHarnessTests {
  @Test func thePopulationSpansTheEnvelopeAndItsCorners() throws {
    let panels = EvaluationPopulation.panels(count: 36, seed: 1, boardsDirectory: Repo.path("boards"))
    #expect(panels.count == 36)
    #expect(Set(panels.map(\.name)).count == 36)
    #expect(Array(panels.prefix(2).map(\.name)) == ["sim-plate4", "sim-grid"])
    #expect(panels.filter { $0.origin == .corner }.count >= 10)
    var kernels = Set<String>()
    var noise: [Double] = []
    var rates: [Int] = []
    var supports = Set<Int>()
    var plateWidths: [Double] = []
    var gridSides = Set<Int>()
    var pitches: [Double] = []
    var (anisotropic, framed, noisyCell, mismatched) = (false, false, false, false)
    for (i, panel) in panels.enumerated() {
      let board: Board
      if let path = panel.boardPath {
        board = try Board.load(path: path)
      } else {
        let text = panel.envelope!.boardText(name: panel.name, serial: "S\(i)", description: "test")
        board = try Board(table: TOML.parse(text, file: "\(panel.name).toml"))
      }
      let p = try board.simulationParameters
      // The plan of its kind, its positions scaled to its size, loads for it.
      let planText = PanelEvaluation.plan(try TextFile.read(path: panel.planPath), for: board.name)
      let scale = panel.envelope?.planScale ?? (1, 1)
      let plan = try CalibrationPlan(
        table: TOML.parse(PanelEvaluation.scaled(planText, by: scale), file: "plan.toml"), board: board)
      #expect(plan.steps.allSatisfy { $0.x_mm >= 0 && $0.x_mm <= board.width_mm && $0.y_mm >= 0 && $0.y_mm <= board.height_mm })
      if scale == (1, 1) { #expect(PanelEvaluation.scaled(planText, by: scale) == planText) }
      if let g = board.grid {
        gridSides.formUnion([g.columns, g.rows])
        pitches.append(g.pitch_mm)
        anisotropic = anisotropic || p.spreadAspect >= 1.5 || p.spreadAspect <= 1 / 1.5
        framed = framed || p.frameShare >= 0.5
      } else {
        supports.insert(board.cellCount)
        plateWidths.append(board.width_mm)
      }

      #expect((board.grid == nil) == (panel.kind == .plate))
      let mn = p.effectiveNoise_counts / p.gain_counts_per_n * 1000
      noise.append(mn)
      noisyCell = noisyCell || p.overrides.contains { ($0.noise_mn ?? 0) >= 2 * mn }
      mismatched = mismatched || p.gainSpread >= 0.25
      rates.append(board.rate_hz)
      #expect(mn >= 0.2 - 1e-9 && mn <= 10 + 1e-9, "\(panel.name): noise \(mn) mN")
      #expect(p.wander.map { $0.sigma_mn * $0.sigma_mn }.reduce(0, +).squareRoot() <= 5 + 1e-6)
      #expect(board.rate_hz >= 200 && board.rate_hz <= 1000)
      #expect(p.gainSpread <= 0.3 + 1e-9)
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
    #expect(rates.contains(320) && rates.contains(500) && rates.min()! <= 250 && rates.max()! >= 900)
    // Other sizes and cell counts, responses and cells (issue 23).
    #expect(supports.isSuperset(of: [3, 4, 6]) && supports.allSatisfy { (3...6).contains($0) })
    #expect(plateWidths.min()! <= 110 && plateWidths.max()! >= 280 && plateWidths.allSatisfy { (100...300).contains($0) })
    #expect(gridSides.contains(4) && gridSides.contains(16) && gridSides.allSatisfy { (4...16).contains($0) })
    #expect(pitches.min()! <= 8.5 && pitches.max()! >= 24 && pitches.allSatisfy { (8...25).contains($0) })
    #expect(anisotropic && framed && noisyCell && mismatched)
    // The same seed draws the same population; another seed other draws.
    let again = EvaluationPopulation.panels(count: 36, seed: 1, boardsDirectory: Repo.path("boards"))
    let other = EvaluationPopulation.panels(count: 36, seed: 2, boardsDirectory: Repo.path("boards"))
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

  /// The scenarios of a kind of panel, in table order (with or without
  /// those of issue 23).
  static func scenarios(_ kind: PanelEnvelope.Kind, newOnes: Bool = true) -> [String] {
    let old = ["taps", "presses", "ramp", "cooling", "parked"] + (kind == .grid ? ["two-finger"] : [])
    guard newOnes else { return old }
    return old + ["edges", "held", "startup"] + (kind == .grid ? ["pairs", "close-pairs", "pinch"] : [])
  }

  @Test func theQuickEvaluationCoversEveryPanelAndScenarioAndTodaysBoardsMeetTheBars() throws {
    let out = try FilesTestSupport.makeTemporaryDirectory() + "/evaluation"
    let panels = EvaluationPopulation.panels(count: 4, seed: 1, boardsDirectory: Repo.path("boards"))
    let evaluation = PopulationEvaluation(
      panels: panels, out: out, seed: 1, lengths: .quick, date: "2026-01-01T00:00:00Z")
    var steps = 0
    let results = try evaluation.run { _, _, _ in steps += 1 }
    #expect(results.map(\.board) == ["sim-plate4", "sim-grid", "sim-plate4-noisy", "sim-grid-noisy"])
    #expect(steps == 4 * 1 + 8 + 12 + 8 + 12, "one progress call per calibration and per scenario")

    let table = EvaluationTable.text(results)
    for r in results {
      let expected = Self.scenarios(r.panel.kind)
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

    // Where users go: each scenario has its figures.
    for r in results {
      let s = Dictionary(uniqueKeysWithValues: r.scenarios.map { ($0.name, $0.score) })
      #expect(s["edges"]?.positionRMS_mm != nil && s["edges"]?.forceError_pct != nil && s["edges"]?.peekOnly != nil)
      #expect(s["held"]?.heldKept != nil && s["held"]?.absorbed_s != nil && s["parked"]?.absorbed_s != nil)
      #expect(s["startup"]?.recall != nil)
      #expect((s["taps"]?.positionBound_mm != nil) == (r.panel.kind == .plate))
      if r.panel.kind == .grid {
        for name in ["pairs", "close-pairs", "pinch", "two-finger"] {
          #expect(s[name]?.pairsAlternating != nil && s[name]?.idSwaps != nil && s[name]?.pairsMerged != nil, "\(name)")
        }
      }
    }

    // Today's quiet boards: calibrated, and within every bar of the
    // scenarios of issue 10. The scenarios where users go (issue 23) are
    // measured, not yet met (docs/robustness.md lists what they miss).
    for r in results.prefix(2) {
      #expect(r.calibration.passed == true, "\(r.board): \(r.calibration.summary)")
      for miss in r.misses where Self.scenarios(r.panel.kind, newOnes: false).contains(miss.scenario) {
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
    #expect(grid.map { $0["name"] as! String } == Self.scenarios(.grid))
    #expect((grid[5]["metrics"] as! [String: Any])["pairs_stable"] as? Double == results[1].scenarios[5].score.pairsStable)
  }
}
