import ForceCore
import PanelTestSupport
import Testing

@testable import PanelEvaluationHarness
@testable import PanelFirmware
@testable import PanelFormats
@testable import PanelSimulation
@testable import PanelTouch

/// The evaluation's scoring on report streams built by hand, where every
/// figure is known in advance.
@Suite struct EvaluationScoringTests {
  typealias Sample = ReportLog.Sample

  /// Samples of one touch every 5 ms from `begin` to `end`, at `x`, `y`
  /// with `force(t)`, began ... ended.
  static func track(
    _ id: UInt32, _ begin: Double, _ end: Double, x: (Double) -> Double, y: (Double) -> Double,
    force: (Double) -> Double, stage: Stage = .none
  ) -> [Sample] {
    var out: [Sample] = []
    var t = begin
    while t <= end + 1e-9 {
      let us = Int64((t * 1e6).rounded())
      out.append(Sample(t_us: us, id: id, phase: .moved, x_mm: x(t), y_mm: y(t), force_n: force(t), stage: stage))
      t += 0.005
    }
    out[0].phase = .began
    out[out.count - 1].phase = .ended
    return out
  }

  static func us(_ t: Double) -> Int64 { Int64((t * 1e6).rounded()) }

  /// Five scripted presses on sim-plate4: one tap missed, one tap that
  /// peeks, a pop press, a peek press split in two touches, and one touch
  /// no finger made. Everything reported is 0.5 mm off and 2 % heavy and
  /// begins 10 ms after the scripted force reaches `touch_on_n`.
  @Test func aStreamWithOneMissedTapAndOneFalseTouchScoresExactlyThat() throws {
    let board = try Repo.board("sim-plate4")
    let presses = [
      TruthPress(ScriptedTouch(start_s: 1, x_mm: 40, y_mm: 30, force_n: 0.5, hold_s: 0.1, rise_s: 0.04, fall_s: 0.04), .tap),
      TruthPress(ScriptedTouch(start_s: 2, x_mm: 100, y_mm: 60, force_n: 0.5, hold_s: 0.1, rise_s: 0.04, fall_s: 0.04), .tap),
      TruthPress(ScriptedTouch(start_s: 3, x_mm: 120, y_mm: 40, force_n: 0.6, hold_s: 0.1, rise_s: 0.04, fall_s: 0.04), .tap),
      TruthPress(ScriptedTouch(start_s: 4, x_mm: 80, y_mm: 50, force_n: 4.6, hold_s: 0.4, rise_s: 0.2, fall_s: 0.15), .pop),
      TruthPress(ScriptedTouch(start_s: 6, x_mm: 60, y_mm: 50, force_n: 2.0, hold_s: 0.4, rise_s: 0.2, fall_s: 0.15), .peek),
    ]
    var log = ReportLog()
    func reported(_ id: UInt32, _ p: TruthPress, from: Double? = nil, to: Double? = nil) {
      let crossing = p.firstTime(reaching: board.detection.touchOn_n)!
      let begin = from ?? crossing + 0.010
      let end = to ?? p.touch.end_s - 0.01
      let at = p.position(at: p.touch.start_s)
      log.samples += Self.track(
        id, begin, end, x: { _ in at.x + 0.3 }, y: { _ in at.y + 0.4 },
        force: { t in 1.02 * (p.touch.state(at: t)?.force ?? 0) })
    }
    reported(1, presses[0])
    log.samples += Self.track(2, 2.5, 2.7, x: { _ in 150 }, y: { _ in 90 }, force: { _ in 0.2 })
    reported(3, presses[2])
    log.events.append(.init(t_us: Self.us(3.06), kind: .peek, touch: 3))
    reported(4, presses[3])
    log.events.append(.init(t_us: Self.us(4.15), kind: .peek, touch: 4))
    log.events.append(.init(t_us: Self.us(4.25), kind: .pop, touch: 4))
    reported(5, presses[4], to: 6.3)
    log.events.append(.init(t_us: Self.us(6.2), kind: .peek, touch: 5))
    reported(6, presses[4], from: 6.31)
    log.samples.sort { ($0.t_us, $0.id) < ($1.t_us, $1.id) }

    let s = ScenarioScore(log: log, presses: presses, board: board)
    #expect(s.fingers == 5)
    #expect(s.found == 4)
    #expect(s.recall == 0.8)
    #expect(s.touches == 6)
    #expect(s.splits == 1)
    #expect(s.falseTouches == 1)
    #expect(abs(s.falseSeconds - 0.2) < 1e-6)
    #expect(s.precision.map { abs($0 - 4.0 / 6) < 1e-12 } == true, "precision \(String(describing: s.precision))")
    #expect(s.latency_ms.map { abs($0 - 10) < 0.01 } == true, "latency \(String(describing: s.latency_ms))")
    #expect(s.positionRMS_mm.map { abs($0 - 0.5) < 1e-9 } == true)
    #expect(s.forceError_pct.map { abs($0 - 2) < 1e-9 } == true, "force \(String(describing: s.forceError_pct))")
    // Taps: the missed one never peeked, the third did.
    #expect(s.taps == 3 && s.tapsWithoutPeek.map { abs($0 - 2.0 / 3) < 1e-12 } == true)
    #expect(s.popOnce == 1 && s.peekOnly == 1)
    #expect(s.pairsStable == nil)

    let result = PanelResult(
      panel: EvaluationPanel(name: "sim-plate4", origin: .repository, kind: .plate, planPath: ""),
      board: "sim-plate4", boardFile: "", planFile: "", rate_hz: 320, envelope: "", calibration: CalibrationOutcome(),
      scenarios: [ScenarioResult(name: "parked", summary: "", frames: 1, score: s, scenarioFile: "", recording: "", reports: "")])
    let missed = Set(result.misses.map(\.metric))
    #expect(missed == [.recall, .precision, .falseTouches, .latency, .tapsWithoutPeek], "\(result.misses)")
  }

  /// Two pairs of fingers on sim-grid: one keeps its ids, the other swaps
  /// them half way. An object put down makes one expected touch, then a
  /// second one (false).
  @Test func pairsThatSwapIdsAreNotStableAndAnObjectsSecondTouchIsFalse() throws {
    let board = try Repo.board("sim-grid")
    func finger(_ t: Double, _ x0: Double, _ x1: Double, _ y: Double) -> ScriptedTouch {
      ScriptedTouch(
        start_s: t, force: [Keyframe(0, 0), Keyframe(0.08, 1), Keyframe(1.0, 1), Keyframe(1.08, 0)],
        x: [Keyframe(0, x0), Keyframe(0.15, x0), Keyframe(0.95, x1)], y: [Keyframe(0, y)])
    }
    let presses = [
      TruthPress(finger(1, 30, 50, 40), .finger, pair: 0), TruthPress(finger(1.05, 120, 140, 40), .finger, pair: 0),
      TruthPress(finger(3, 30, 50, 80), .finger, pair: 1), TruthPress(finger(3.05, 120, 140, 80), .finger, pair: 1),
      TruthPress(ScriptedTouch(start_s: 5, x_mm: 80, y_mm: 60, force_n: 3, hold_s: 10), .object),
    ]
    var log = ReportLog()
    func along(_ p: TruthPress) -> (Double) -> (x: Double, y: Double) { { p.position(at: $0) } }
    let a0 = along(presses[0]), b0 = along(presses[1]), a1 = along(presses[2]), b1 = along(presses[3])
    log.samples += Self.track(1, 1.02, 2.05, x: { a0($0).x }, y: { a0($0).y }, force: { _ in 1 })
    log.samples += Self.track(2, 1.07, 2.1, x: { b0($0).x }, y: { b0($0).y }, force: { _ in 1 })
    // Pair 1: near the end, id 3 jumps to the right finger and id 4 to the left.
    log.samples += Self.track(3, 3.02, 4.05, x: { $0 < 3.8 ? a1($0).x : b1($0).x }, y: { _ in 80 }, force: { _ in 1 })
    log.samples += Self.track(4, 3.07, 4.1, x: { $0 < 3.8 ? b1($0).x : a1($0).x }, y: { _ in 80 }, force: { _ in 1 })
    log.samples += Self.track(5, 5.02, 5.2, x: { _ in 80 }, y: { _ in 60 }, force: { _ in 3 })
    log.samples += Self.track(6, 5.21, 8, x: { _ in 80 }, y: { _ in 60 }, force: { _ in 3 })
    log.samples.sort { ($0.t_us, $0.id) < ($1.t_us, $1.id) }
    let s = ScenarioScore(log: log, presses: presses, board: board)
    #expect(s.pairs == 2)
    #expect(s.pairsStable == 0.5)
    #expect(s.fingers == 4 && s.found == 4 && s.recall == 1)
    #expect(s.falseTouches == 1 && abs(s.falseSeconds - 2.79) < 1e-6, "\(s.falseTouches) false, \(s.falseSeconds) s")
    #expect(s.positionRMS_mm == nil && s.forceError_pct == nil && s.tapsWithoutPeek == nil)
  }

  @Test func aTouchFarFromEveryPressIsFalseAndOneBeforeItsPressIsNotIt() throws {
    let board = try Repo.board("sim-plate4")
    let tap = TruthPress(ScriptedTouch(start_s: 1, x_mm: 40, y_mm: 30, force_n: 0.5, hold_s: 0.1), .tap)
    var log = ReportLog()
    // During the tap but 40 mm away, then one that began 100 ms early.
    log.samples += Self.track(1, 1.02, 1.15, x: { _ in 80 }, y: { _ in 30 }, force: { _ in 0.5 })
    log.samples += Self.track(2, 0.9, 1.15, x: { _ in 40 }, y: { _ in 30 }, force: { _ in 0.5 })
    log.samples.sort { ($0.t_us, $0.id) < ($1.t_us, $1.id) }
    let s = ScenarioScore(log: log, presses: [tap], board: board)
    #expect(s.found == 0 && s.falseTouches == 2 && s.recall == 0 && s.precision == 0)
  }
}
