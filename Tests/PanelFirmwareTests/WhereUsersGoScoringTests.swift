import ForceCore
import PanelTestSupport
import Testing

@testable import PanelEvaluationHarness
@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelMechanics
@testable import PanelSimulation
@testable import PanelTouch

/// The figures of the scenarios where users go (issue 23), on report
/// streams built by hand where each is known, and the pieces they rest on:
/// a finger's tremor, the plate's Cramér–Rao bound, the overlays that are
/// not radial or lose force to a frame, and the scenarios themselves.
@Suite struct WhereUsersGoScoringTests {
  typealias Track = EvaluationScoringTests

  static func still(_ t: Double, _ x: Double, _ y: Double, _ pair: Int) -> TruthPress {
    TruthPress(
      ScriptedTouch(
        start_s: t, force: [Keyframe(0, 0), Keyframe(0.08, 1), Keyframe(1.0, 1), Keyframe(1.08, 0)], x: [Keyframe(0, x)],
        y: [Keyframe(0, y)]), .finger, pair: pair)
  }

  /// Three pairs of still fingers 40 mm apart on sim-grid: one kept as two
  /// touches, one flickering between one and two, one whose touches trade
  /// fingers halfway; and a pair 26 mm apart reported as one merged touch.
  @Test func pairsAreStableMergedOrAlternatingAndSwapsAreCounted() throws {
    let board = try Repo.board("sim-grid")
    let presses = [
      Self.still(1, 40, 60, 0), Self.still(1, 80, 60, 0),
      Self.still(3, 40, 60, 1), Self.still(3, 80, 60, 1),
      Self.still(5, 40, 60, 2), Self.still(5, 80, 60, 2),
      Self.still(7, 47, 60, 3), Self.still(7, 73, 60, 3),
    ]
    var log = ReportLog()
    func at(_ x: Double) -> (Double) -> Double { { _ in x } }
    let y: (Double) -> Double = { _ in 60 }
    let f: (Double) -> Double = { _ in 1 }
    // Pair 0: two touches throughout.
    log.samples += Track.track(1, 1.02, 2.06, x: at(40), y: y, force: f)
    log.samples += Track.track(2, 1.02, 2.06, x: at(80), y: y, force: f)
    // Pair 1: the second finger's touch drops out for 100 ms and comes back.
    log.samples += Track.track(3, 3.02, 4.06, x: at(40), y: y, force: f)
    log.samples += Track.track(4, 3.02, 3.5, x: at(80), y: y, force: f)
    log.samples += Track.track(5, 3.6, 4.06, x: at(80), y: y, force: f)
    // Pair 2: each touch jumps to the other finger at 5.5 s.
    log.samples += Track.track(6, 5.02, 6.06, x: { $0 < 5.5 ? 40 : 80 }, y: y, force: f)
    log.samples += Track.track(7, 5.02, 6.06, x: { $0 < 5.5 ? 80 : 40 }, y: y, force: f)
    // Pair 3: one touch between the fingers throughout.
    log.samples += Track.track(8, 7.02, 8.06, x: at(60), y: y, force: { _ in 2 })
    log.samples.sort { ($0.t_us, $0.id) < ($1.t_us, $1.id) }

    let s = ScenarioScore(log: log, presses: presses, board: board)
    #expect(s.pairs == 4)
    #expect(s.pairsStable == 0.25, "only pair 0 is stable: \(String(describing: s.pairsStable))")
    #expect(s.pairsAlternating == 0.25, "pair 1 flickers: \(String(describing: s.pairsAlternating))")
    #expect(s.pairsMerged == 0.25, "pair 3 merged; pair 2 kept two touches that swapped: \(String(describing: s.pairsMerged))")
    #expect(s.idSwaps == 2, "both touches of pair 2 swap once: \(String(describing: s.idSwaps))")
  }

  /// A pinch that merges once as it closes is merged, not alternating; one
  /// that comes apart again is alternating.
  @Test func aPinchMayMergeOnceButNotComeApartAgain() throws {
    let board = try Repo.board("sim-grid")
    func finger(_ t: Double, from a: Double, to b: Double, _ pair: Int) -> TruthPress {
      TruthPress(
        ScriptedTouch(
          start_s: t, force: [Keyframe(0, 0), Keyframe(0.08, 1), Keyframe(1.0, 1), Keyframe(1.08, 0)],
          x: [Keyframe(0, a), Keyframe(0.15, a), Keyframe(0.95, b)], y: [Keyframe(0, 60)]), .finger, pair: pair)
    }
    let presses = [
      finger(1, from: 50, to: 70, 0), finger(1, from: 110, to: 90, 0),
      finger(3, from: 50, to: 70, 1), finger(3, from: 110, to: 90, 1),
    ]
    var log = ReportLog()
    let y: (Double) -> Double = { _ in 60 }
    let f: (Double) -> Double = { _ in 1 }
    func path(_ p: TruthPress) -> (Double) -> Double { { p.position(at: $0).x } }
    log.samples += Track.track(1, 1.02, 1.7, x: path(presses[0]), y: y, force: f)
    log.samples += Track.track(2, 1.02, 2.06, x: path(presses[1]), y: y, force: f)
    log.samples += Track.track(3, 3.02, 3.5, x: path(presses[2]), y: y, force: f)
    log.samples += Track.track(4, 3.02, 4.06, x: path(presses[3]), y: y, force: f)
    log.samples += Track.track(5, 3.7, 4.06, x: path(presses[2]), y: y, force: f)
    log.samples.sort { ($0.t_us, $0.id) < ($1.t_us, $1.id) }
    let s = ScenarioScore(log: log, presses: presses, board: board)
    #expect(s.pairsMerged == 0.5)
    #expect(s.pairsAlternating == 0.5)
  }

  /// A held finger kept to its lift with its peek scores kept; one
  /// cancelled after 20 s does not; an object's absorption is timed.
  @Test func heldFingersAreKeptAndObjectsAbsorbedAreTimed() throws {
    let board = try Repo.board("sim-plate4")
    let presses = [
      TruthPress(ScriptedTouch(start_s: 1, x_mm: 50, y_mm: 50, force_n: 1.6, hold_s: 40, rise_s: 0.25, fall_s: 0.2), .held),
      TruthPress(ScriptedTouch(start_s: 45, x_mm: 90, y_mm: 50, force_n: 1.6, hold_s: 40, rise_s: 0.25, fall_s: 0.2), .held),
      TruthPress(ScriptedTouch(start_s: 90, x_mm: 70, y_mm: 40, force_n: 3, hold_s: 30, rise_s: 0.3, fall_s: 0.3), .object),
    ]
    var log = ReportLog()
    let f: (Double) -> Double = { _ in 1.6 }
    log.samples += Track.track(1, 1.1, 41.4, x: { _ in 50 }, y: { _ in 50 }, force: f, stage: .peek)
    log.events.append(.init(t_us: Track.us(1.3), kind: .peek, touch: 1))
    var cancelled = Track.track(2, 45.1, 65.1, x: { _ in 90 }, y: { _ in 50 }, force: f, stage: .peek)
    cancelled[cancelled.count - 1].phase = .cancelled
    log.samples += cancelled
    log.events.append(.init(t_us: Track.us(45.3), kind: .peek, touch: 2))
    log.samples += Track.track(3, 90.1, 110.3, x: { _ in 70 }, y: { _ in 40 }, force: { _ in 3 })
    log.samples.sort { ($0.t_us, $0.id) < ($1.t_us, $1.id) }
    let s = ScenarioScore(log: log, presses: presses, board: board)
    #expect(s.heldFingers == 2)
    #expect(s.heldKept == 0.5)
    #expect(s.absorbed_s.map { abs($0 - 20.3) < 1e-6 } == true, "absorbed after \(String(describing: s.absorbed_s)) s")
    // A bar the held scenario's figures are held to.
    #expect(EvaluationBar.bar(.held, scenario: "held")?.met(0.5, .plate) == false)
    #expect(EvaluationBar.bar(.absorbed, scenario: "held")?.met(20.3, .plate) == true)
    #expect(EvaluationBar.bar(.latency, scenario: "startup") == nil)
    #expect(EvaluationBar.bar(.pairs, scenario: "pairs", pitch_mm: 25) == nil)
    #expect(EvaluationBar.bar(.pairs, scenario: "pairs", pitch_mm: 20) != nil)
  }

  /// On a plate on four corner supports of equal stiffness and noise, one
  /// frame's bound at the centre is the centre of pressure's own spread,
  /// sigma sqrt(W^2 + H^2) / F, and frames add information.
  @Test func thePlateBoundAtTheCentreIsTheCentreOfPressuresSpread() throws {
    let board = try Repo.board("sim-plate4")
    var p = try board.simulationParameters
    p.stiffnessSpread = 0
    p.gainSpread = 0
    let physics = PanelPhysics(board: board, parameters: p, scenario: .idle())
    let bound = try #require(PlateBound(physics: physics, rate_hz: 320))
    let k = bound.information(x: 80, y: 50)
    let sigma = p.effectiveNoise_counts / p.gain_counts_per_n
    let force = 0.5
    let det = k.0 * k.2 - k.1 * k.1
    let single = ((k.0 + k.2) / det).squareRoot() / force
    let expected = sigma * (160.0 * 160 + 100 * 100).squareRoot() / force
    #expect(abs(single / expected - 1) < 1e-6, "bound \(single) mm, centre of pressure \(expected) mm")
    // A 100 ms plateau after a 40 ms rise: far below one frame's bound.
    let tap = TruthPress(ScriptedTouch(start_s: 1, x_mm: 80, y_mm: 50, force_n: force, hold_s: 0.1, rise_s: 0.04, fall_s: 0.04), .tap)
    let rms = try #require(bound.rms([tap]))
    #expect(rms < single / 2.5 && rms > single / 8, "tap bound \(rms) mm against one frame's \(single)")
    #expect(PlateBound(physics: PanelPhysics(board: try Repo.board("sim-grid"), parameters: p, scenario: .idle()), rate_hz: 500) == nil)
  }

  /// A finger's tremor: the force fluctuates by its RMS around the profile,
  /// mostly slowly, the centroid wanders by its RMS, and a scenario file
  /// carries it through.
  @Test func aTremorFluctuatesAsAFingerAndRoundTripsThroughAScenarioFile() throws {
    let board = try Repo.board("sim-plate4")
    var touch = ScriptedTouch(start_s: 0, x_mm: 80, y_mm: 50, force_n: 2, hold_s: 60, rise_s: 0.2, fall_s: 0.2)
    touch.tremor = Tremor(force: 0.06, position_mm: 0.2, seed: 7)
    var forces: [Double] = []
    var xs: [Double] = []
    var t = 1.0
    while t < 60 {
      let s = try #require(touch.state(at: t))
      forces.append(s.force)
      xs.append(s.x)
      t += 0.002
    }
    func rms(_ v: [Double], around m: Double) -> Double {
      (v.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(v.count)).squareRoot()
    }
    let forceRMS = rms(forces, around: 2)
    #expect(abs(forceRMS / 0.12 - 1) < 0.25, "force RMS \(forceRMS) N, 6 % of 2 N")
    #expect(abs(rms(xs, around: 80) / 0.2 - 1) < 0.3)
    // Mostly below 4 Hz: the frame-to-frame change is small beside the swing.
    let steps = zip(forces.dropFirst(), forces).map { $0 - $1 }
    #expect(rms(steps, around: 0) < 0.1 * forceRMS, "white noise would change by 1.4 times its RMS a frame")
    // An object has no tremor; the file keeps the finger's.
    let scenario = Scenario(name: "held", touches: [touch, ScriptedTouch(start_s: 70, x_mm: 50, y_mm: 50, force_n: 3, hold_s: 5)])
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    try AtomicFile.write(scenario.encoded(), to: dir + "/held.toml")
    let back = try Scenario.load(path: dir + "/held.toml", board: board)
    #expect(back.touches[0].tremor == touch.tremor)
    #expect(back.touches[1].tremor == nil)
    #expect(back.touches[0].state(at: 33.3)! == touch.state(at: 33.3)!)
  }

  /// The overlays that are not radial: wider along x spreads a press onto
  /// its x neighbours more than its y ones; a frame takes force from a press
  /// at an edge cell and none to speak of from one in the middle.
  @Test func anisotropicAndFramedOverlaysShareAsTheySay() throws {
    let pitch = 20.0
    let cells = (0..<6).flatMap { r in (0..<8).map { c in CellPosition(x_mm: (Double(c) + 0.5) * pitch, y_mm: (Double(r) + 0.5) * pitch) } }
    let kernel = SpreadingKernel.boussinesq(depth: 14)
    func loads(_ sharing: LoadSharing, _ x: Double, _ y: Double) -> [Double] {
      var l = [Double](repeating: 0, count: cells.count)
      sharing.add(force: 1, x: x, y: y, to: &l)
      return l
    }
    let wide = loads(LoadSharing(grid: cells, pitch: pitch, kernel: kernel, aspect: 2), 70, 50)
    let centre = 2 * 8 + 3
    #expect(wide[centre + 1] > 1.5 * wide[centre + 8], "x neighbour \(wide[centre + 1]), y neighbour \(wide[centre + 8])")
    #expect(abs(wide.reduce(0, +) - 1) < 1e-12)
    let framed = LoadSharing(grid: cells, pitch: pitch, kernel: kernel, frame: 1)
    let edge = loads(framed, 10, 70).reduce(0, +)
    let corner = loads(framed, 10, 10).reduce(0, +)
    let middle = loads(framed, 70, 50).reduce(0, +)
    #expect(middle > 0.99 && edge < 0.9 && corner < edge, "capture middle \(middle), edge \(edge), corner \(corner)")
    // Without either, the same numbers as before either existed.
    #expect(loads(LoadSharing(grid: cells, pitch: pitch, kernel: kernel, aspect: 1, frame: 0), 33, 47)
      == loads(LoadSharing(grid: cells, pitch: pitch, kernel: kernel), 33, 47))
  }

  /// The new scenarios on a small grid and a plate of other sizes: every
  /// press on the panel, the outer band's presses within a tenth of an
  /// edge, the pairs as far apart as they say.
  @Test func theNewScenariosStayOnTheirPanelsAndInTheirBands() throws {
    var envelopes = [PanelEnvelope(kind: .grid, seed: 3), PanelEnvelope(kind: .plate, seed: 4)]
    envelopes[0].grid = GridSpec(columns: 4, rows: 4, pitch_mm: 25)
    envelopes[1].plate = .init(
      width_mm: 300, height_mm: 200,
      supports: [CellPosition(x_mm: 10, y_mm: 10), CellPosition(x_mm: 290, y_mm: 30), CellPosition(x_mm: 150, y_mm: 190)])
    for e in envelopes {
      let board = try BoardText.load(e.boardText(name: "t", serial: "T", description: "test"))
      var scenarios = StandardScenarios(board: board, seed: 11, lengths: .full)
      let all = scenarios.all()
      let names = all.map(\.name)
      #expect(names.contains("edges") && names.contains("held") && names.contains("startup"))
      #expect(names.contains("pairs") == (e.kind == .grid))
      for s in all {
        for p in s.presses {
          for t in stride(from: p.touch.start_s, through: p.touch.end_s, by: 0.05) {
            let at = p.position(at: t)
            #expect(at.x >= 0 && at.x <= board.width_mm && at.y >= 0 && at.y <= board.height_mm, "\(s.name) at \(at)")
          }
        }
      }
      let edges = all.first { $0.name == "edges" }!
      for p in edges.presses {
        let at = p.position(at: p.touch.start_s)
        let band = min(at.x, board.width_mm - at.x) <= max(4.5, board.width_mm / 10) + 1e-9
          || min(at.y, board.height_mm - at.y) <= max(4.5, board.height_mm / 10) + 1e-9
        #expect(band, "\(at) is not in the outer band")
      }
      if let pairs = all.first(where: { $0.name == "pairs" }) {
        for i in stride(from: 0, to: pairs.presses.count, by: 2) {
          let a = pairs.presses[i].position(at: 0), b = pairs.presses[i + 1].position(at: 0)
          let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
          #expect(d >= 29.8 && d <= 45.2, "a pair \(d) mm apart")
        }
      }
      let held = all.first { $0.name == "held" }!
      #expect(held.presses.filter { $0.role == .held }.allSatisfy { $0.touch.tremor != nil && $0.touch.end_s - $0.touch.start_s >= 30 })
      #expect(held.presses.filter { $0.role == .object }.allSatisfy { $0.touch.tremor == nil })
    }
  }

  /// Every scenario of both seeds' populations is one its panel accepts:
  /// seed 2 drew a grid 57 mm across whose pinches, 55-75 mm apart, were
  /// placed off the panel, and `sim evaluate --seed 2` stopped at its
  /// pinch file. A pair that no drawn place fits is put at the centre as
  /// far apart as the panel allows.
  @Test(arguments: [UInt64(1), 2])
  func everyScenarioStaysOnItsPanel(seed: UInt64) throws {
    let dir = try FilesTestSupport.makeTemporaryDirectory()
    for (i, panel) in EvaluationPopulation.panels(count: 36, seed: seed, boardsDirectory: Repo.path("boards")).enumerated() {
      guard let envelope = panel.envelope else { continue }
      let path = dir + "/\(panel.name).toml"
      try AtomicFile.write(envelope.boardText(name: panel.name, serial: "ON-PANEL", description: "test"), to: path)
      let board = try Board.load(path: path)
      var scenarios = StandardScenarios(board: board, seed: PopulationEvaluation.panelSeed(seed, index: i), lengths: .full)
      for s in scenarios.all() {
        do {
          _ = try Scenario(table: TOML.parse(s.scenario.encoded(), file: "\(s.name).toml"), board: board)
        } catch {
          Issue.record("\(panel.name) \(s.name): \(error)")
        }
      }
    }
  }
}
