import ForceCore
import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelSimulation
@testable import PanelTouch

/// The per-touch stage machine over force profiles (Interaction driven
/// directly, so forces are exact). Board: average touch 0.8 N, so at Medium
/// hint enters at 0.88 N, peek at 1.064 N, pop at 4.0 N; exits at 0.83 of
/// those; max force 6.67 x 0.8 = 5.336 N.
@Suite struct StageMachineTests {
  static let peek_n = 1.33 * 0.8
  static let pop_n = 5.0 * 0.8
  static let max_n = 6.67 * 0.8

  @Test func aSlowPressThroughPeekToPopGivesOnePeekAndOnePop() {
    var d = InteractionDrive()
    d.press(Profile.ramp(0.1, 4.8, seconds: 3) + Profile.hold(4.8, seconds: 0.3) + Profile.ramp(4.8, 0.1, seconds: 0.5) + Profile.lift)
    #expect(d.kinds() == [.peek, .pop])
    #expect(d.stageSequence() == [.none, .hint, .peek, .pop])
    // Progress rises within each stage and resets at each transition.
    let p = d.stages.map(\.progress)
    let peekFrame = Int(d.frame(of: .peek)!)
    #expect(p[peekFrame - 1] > 900 && p[peekFrame + 1] < 100, "progress around peek: \(p[peekFrame - 1]), \(p[peekFrame + 1])")
    #expect(d.stages.last!.stage == .pop && d.stages.last!.progress == 1000)
  }

  @Test func hoveringAtThePeekThresholdWithNoiseGivesOnePeekAndNoFlicker() {
    for seed in 0..<20 as Range<UInt64> {
      var rng = TestRandom(seed: seed)
      var d = InteractionDrive()
      var samples = Profile.ramp(0.1, Self.peek_n, seconds: 0.4)
      // Three seconds around the threshold: 4 % noise, a slow +-6 % wander.
      for i in 0..<960 {
        let wander = 0.06 * Self.peek_n * ((Double(i % 320) / 160) - 1)
        samples.append(Sample(Self.peek_n + wander + 0.04 * Self.peek_n * rng.gaussian()))
      }
      d.press(samples + Profile.ramp(Self.peek_n, 0.1, seconds: 0.2) + Profile.lift)
      #expect(d.kinds() == [.peek, .peekCancelled], "seed \(seed): \(d.kinds())")
      #expect(d.stageSequence() == [.none, .hint, .peek], "seed \(seed): \(d.stageSequence())")
    }
  }

  @Test func hoveringAtTheHintThresholdDoesNotFlicker() {
    var rng = TestRandom(seed: 7)
    var d = InteractionDrive()
    let hint_n = 1.1 * 0.8
    var samples = Profile.ramp(0.1, hint_n, seconds: 0.2)
    for _ in 0..<960 { samples.append(Sample(hint_n * (1 + 0.04 * rng.gaussian()))) }
    d.press(samples + Profile.lift)
    #expect(d.stageSequence() == [.none, .hint])
    #expect(d.kinds().isEmpty)
  }

  /// Taps up to an average touch (force 1.0) never enter hint, at any
  /// sensitivity: a host that blurs on hint must not flash on every tap.
  /// A press between an average touch and peek does hint, after holding.
  @Test(arguments: Sensitivity.allCases)
  func tapsNeverHint(_ sensitivity: Sensitivity) {
    for peak in stride(from: 0.2, through: 1.0, by: 0.1) {
      let n = peak * 0.8
      var d = InteractionDrive(board: InteractionDrive.board { $0.sensitivity = sensitivity })
      d.press(Profile.ramp(0.1, n, seconds: 0.03) + Profile.hold(n, seconds: 0.1) + Profile.ramp(n, 0.1, seconds: 0.03) + Profile.lift)
      #expect(d.stages.allSatisfy { $0.stage == .none }, "\(sensitivity) tap of \(peak): \(d.stageSequence())")
      #expect(d.kinds().isEmpty)
    }
    let t = StageThresholds(settings: InteractionSettings(), sensitivity: sensitivity)
    let between = (Double(t.hintOn) + Double(t.peekOn)) / 2 / Double(Force_mN(newtons: 1).rawValue)
    var d = InteractionDrive(board: InteractionDrive.board { $0.sensitivity = sensitivity })
    d.press(Profile.ramp(0.1, between, seconds: 0.1) + Profile.hold(between, seconds: 0.2) + Profile.lift)
    #expect(d.stageSequence() == [.none, .hint], "\(sensitivity): \(d.stageSequence())")
  }

  @Test func liftingInPeekGivesPeekCancelledInTheLiftFrame() {
    var d = InteractionDrive()
    d.press(Profile.ramp(0.1, 2.0, seconds: 0.3) + Profile.hold(2.0, seconds: 0.5) + Profile.lift)
    #expect(d.kinds() == [.peek, .peekCancelled])
    #expect(d.frame(of: .peekCancelled) == d.frame - 1)
    // Lowering the force while peeking keeps the preview until the lift.
    var e = InteractionDrive()
    e.press(Profile.ramp(0.1, 2.0, seconds: 0.3) + Profile.ramp(2.0, 0.2, seconds: 0.5) + Profile.hold(0.2, seconds: 0.3) + Profile.lift)
    #expect(e.stageSequence() == [.none, .hint, .peek])
    #expect(e.kinds() == [.peek, .peekCancelled])
    // A pop is not cancelled by its lift.
    var f = InteractionDrive()
    f.press(Profile.ramp(0.1, 5.0, seconds: 0.5) + Profile.lift)
    #expect(f.kinds() == [.peek, .pop])
  }

  @Test func sensitivityScalesTheThresholdsByItsFactor() {
    let s = InteractionSettings()
    let medium = StageThresholds(settings: s, sensitivity: .medium)
    for (sensitivity, factor) in [(Sensitivity.light, 0.83), (.firm, 1.2)] {
      let t = StageThresholds(settings: s, sensitivity: sensitivity)
      for (a, m) in [(t.peekOn, medium.peekOn), (t.popOn, medium.popOn), (t.peekOff, medium.peekOff)] {
        #expect(abs(Double(a) - Double(m) * factor) <= 1, "\(sensitivity): \(a) vs \(m) x \(factor)")
      }
      // Hint keeps its place between an average touch (which no
      // sensitivity changes) and that sensitivity's peek.
      let average = Double(Force_mN(newtons: 0.8).rawValue)
      let place = (Double(t.hintOn) - average) / (Double(t.peekOn) - average)
      let mediumPlace = (Double(medium.hintOn) - average) / (Double(medium.peekOn) - average)
      #expect(abs(place - mediumPlace) < 0.01 && place > 0 && place < 1, "\(sensitivity): \(place)")
    }
    #expect(StageThresholds(settings: s, sensitivity: .firm).peekOn > medium.peekOn)
    #expect(StageThresholds(settings: s, sensitivity: .light).peekOn < medium.peekOn)
    // Behaviour: a press to 1.15 N peeks at Medium (1.064 N) but not at Firm
    // (1.277 N); one to 0.95 N peeks at Light (0.883 N) only.
    func peeks(_ force: Double, _ sensitivity: Sensitivity) -> Bool {
      var d = InteractionDrive(board: InteractionDrive.board { $0.sensitivity = sensitivity })
      d.press(Profile.ramp(0.1, force, seconds: 0.3) + Profile.hold(force, seconds: 0.3) + Profile.lift)
      return d.kinds().contains(.peek)
    }
    #expect(peeks(1.15, .medium) && !peeks(1.15, .firm) && peeks(1.15, .light))
    #expect(peeks(0.95, .light) && !peeks(0.95, .medium) && !peeks(0.95, .firm))
    #expect(peeks(1.35, .firm))
  }

  @Test func sensitivityChangesWhileRunning() {
    var d = InteractionDrive()
    let press = Profile.ramp(0.1, 1.15, seconds: 0.3) + Profile.hold(1.15, seconds: 0.3) + Profile.lift
    d.press(press, id: 1)
    d.interaction.setSensitivity(.firm)
    d.idle(1)
    d.press(press, id: 2)
    d.interaction.setSensitivity(.light)
    d.idle(1)
    d.press(Profile.ramp(0.1, 0.95, seconds: 0.3) + Profile.hold(0.95, seconds: 0.3) + Profile.lift, id: 3)
    #expect(d.kinds(1) == [.peek, .peekCancelled])
    #expect(d.kinds(2).isEmpty)
    #expect(d.kinds(3) == [.peek, .peekCancelled])
    // Each change is announced once, as a panel event.
    #expect(d.events.filter { $0.event.kind == .sensitivity }.count == 2)
    #expect(d.interaction.thresholds.sensitivity == .light)
  }

  @Test func aDragNeverPeeks() {
    // Moving 20 mm while pressing ever harder, up to the maximum force.
    var d = InteractionDrive()
    let n = 320
    var samples: [Sample] = []
    for i in 0..<n {
      let f = 0.3 + (Self.max_n - 0.3) * Double(i) / Double(n - 1)
      samples.append(Sample(f, 60 + 20 * Double(min(i, 100)) / 100, 50))
    }
    d.press(samples + Profile.hold(Self.max_n, seconds: 0.5, x: 80) + Profile.lift)
    #expect(d.kinds().isEmpty)
    #expect(d.stages.allSatisfy { $0.stage <= .hint })
    #expect(d.stages.last!.stage == .none)
    // Many random drags: each moves beyond the slop before its force
    // reaches peek, then presses to the maximum.
    var rng = TestRandom(seed: 11)
    for trial in 0..<200 {
      var e = InteractionDrive()
      let angle = rng.uniform() * 2 * Double.pi
      let distance = 3.5 + 30 * rng.uniform()
      let moveFrames = 5 + Int(rng.uniform() * 60)
      var path: [Sample] = []
      let startForce = 0.35 + 0.5 * rng.uniform()  // below peek
      for i in 0...moveFrames {
        let k = Double(i) / Double(moveFrames)
        path.append(Sample(startForce, 80 + distance * k * cos(angle), 50 + distance * k * sin(angle)))
      }
      let end = path.last!
      path += Profile.ramp(startForce, Self.max_n, seconds: 0.5, x: end.x_mm, y: end.y_mm)
      e.press(path + Profile.lift)
      #expect(e.kinds().isEmpty, "trial \(trial): \(e.kinds())")
    }
  }

  @Test func stillnessWithinTheSlopStillPeeks() {
    // Wobbling by 2 mm (under the 3 mm slop) does not make a drag.
    var d = InteractionDrive()
    var samples: [Sample] = []
    for i in 0..<320 { samples.append(Sample(0.5 + 1.5 * Double(i) / 319, 80 + 2 * sin(Double(i) / 10), 50)) }
    d.press(samples + Profile.lift)
    #expect(d.kinds() == [.peek, .peekCancelled])
  }

  @Test(arguments: Sensitivity.allCases)
  func everyPeekCanReachPop(_ sensitivity: Sensitivity) {
    // Whatever happened before and after the peek (force up and down,
    // moving, swiping up for the quick actions), pressing to the maximum
    // force pops.
    var rng = TestRandom(seed: UInt64(sensitivity.factor * 100))
    let board = InteractionDrive.board { $0.sensitivity = sensitivity }
    let regions = try! RegionMap(
      items: [
        RegionItem(
          name: "mail", x_mm: 0, y_mm: 0, width_mm: 160, height_mm: 100, peek: true, pop: true,
          quickActions: [QuickAction(title: "Reply")])
      ], panelWidth_mm: 160, panelHeight_mm: 100)
    for trial in 0..<100 {
      var d = InteractionDrive(board: board, regions: trial % 2 == 0 ? regions : nil)
      var samples = Profile.ramp(0.1, 1.5 * sensitivity.factor, seconds: 0.1 + 0.5 * rng.uniform())
      for _ in 0..<Int(rng.uniform() * 300) {
        samples.append(Sample(0.2 + 3 * sensitivity.factor * rng.uniform(), 80 + 4 * rng.gaussian(), 50 - 15 * rng.uniform()))
      }
      let last = samples.last!
      samples += Profile.ramp(last.force_n, Self.max_n, seconds: 0.2, x: last.x_mm, y: last.y_mm)
      d.press(samples + Profile.lift)
      let kinds = d.kinds()
      #expect(kinds.contains(.peek), "trial \(trial)")
      #expect(kinds.filter { $0 == .pop }.count == 1, "trial \(trial): \(kinds)")
      #expect(kinds.firstIndex(of: .peek)! < kinds.firstIndex(of: .pop)!)
    }
  }

  @Test func aBoardWhosePopIsOutOfReachIsRefused() throws {
    var text = BoardText.valid + "\n[interaction]\nmax_force = 5.5\npop = 5.0\n"
    let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(of: "pop = 5.0")! + 1
    let message = FilesTestSupport.failure { _ = try Board(table: TOML.parse(text, file: "b.toml")) }
    #expect(message?.hasPrefix("b.toml:\(line): [interaction] pop: pop at Firm sensitivity") == true, "\(message ?? "")")
    text = BoardText.valid + "\n[interaction]\nmax_force = 6.0\npop = 5.0\n"
    #expect(FilesTestSupport.failure { _ = try Board(table: TOML.parse(text, file: "b.toml")) } == nil)
  }

  /// The frame in which a stage event fires: the crossing frame plus the
  /// hold (stage_hold_ms rounded up to frames) minus one.
  @Test(arguments: [(320, 5.0, 2), (500, 5.0, 3), (1000, 5.0, 5), (320, 0.0, 1), (320, 10.0, 4)])
  func stageEventsFireAfterTheHold(rate_hz: Int, hold_ms: Double, frames: Int) {
    let board = InteractionDrive.board(rate_hz: rate_hz) { $0.stageHold_ms = hold_ms }
    var d = InteractionDrive(board: board)
    #expect(d.interaction.holdFrames == frames)
    // Step profile: 10 frames light, then above peek (crossing at frame 10),
    // then above pop from frame 40.
    var samples = Array(repeating: Sample(0.2), count: 10)
    samples += Array(repeating: Sample(2.0), count: 30)
    samples += Array(repeating: Sample(4.5), count: 20)
    d.press(samples + Profile.lift)
    #expect(d.frame(of: .peek) == UInt64(10 + frames - 1))
    #expect(d.frame(of: .pop) == UInt64(40 + frames - 1))
  }

  @Test func aFastHardPressRaisesPeekThenPopInOneFrame() {
    var d = InteractionDrive()
    d.press([Sample(0.2), Sample(5.0), Sample(5.0), Sample(5.0)] + Profile.lift)
    #expect(d.kinds() == [.peek, .pop])
    #expect(d.frame(of: .peek) == d.frame(of: .pop))
  }

  @Test func aSpikeShorterThanTheHoldDoesNotPeek() {
    var d = InteractionDrive()
    d.press(Profile.hold(0.6, seconds: 0.1) + [Sample(2.0)] + Profile.hold(0.6, seconds: 0.1) + Profile.lift)
    #expect(d.kinds().isEmpty)
  }

  @Test func touchesHaveTheirOwnStageMachines() {
    var d = InteractionDrive()
    // Touch 1 presses to pop while touch 2, 30 mm away, hovers in hint; then
    // touch 2 peeks and lifts while touch 1 is still down.
    var frames: [[(UInt32, TouchPhase, Sample)]] = []
    let one = Profile.ramp(0.1, 4.5, seconds: 1) + Profile.hold(4.5, seconds: 1)
    let two = Profile.hold(0.6, seconds: 1, x: 110) + Profile.ramp(0.6, 1.6, seconds: 0.3, x: 110) + Profile.hold(1.6, seconds: 0.5, x: 110)
    for i in 0..<one.count {
      var f: [(UInt32, TouchPhase, Sample)] = [(1, i == 0 ? .began : .stationary, one[i])]
      if i < two.count { f.append((2, i == 0 ? .began : (i == two.count - 1 ? .ended : .stationary), two[i])) }
      frames.append(f)
    }
    for f in frames { d.step(f) }
    d.step([(1, .ended, Sample(0.03))])
    #expect(d.kinds(1) == [.peek, .pop])
    #expect(d.kinds(2) == [.peek, .peekCancelled])
    #expect(d.stageSequence(2) == [.none, .hint, .peek])
  }
}

/// When stage events fire on the simulated panels, relative to the frame in
/// which the scripted force crosses the threshold (docs/performance.md,
/// "Stage machine").
@Suite struct StageLatencyTests {
  /// A slow ramp (2 N/s) through peek and pop; returns, for peek and pop,
  /// frames from the scripted crossing to the frame whose reported force
  /// crosses, and from that to the event.
  static func latency(_ name: String) throws -> [(reported: Int, event: Int)] {
    let board = try Repo.board(name)
    let start = 0.5
    let press = ScriptedTouch(
      start_s: start, force: [Keyframe(0, 0), Keyframe(2.5, 5.0), Keyframe(2.7, 5.0), Keyframe(2.9, 0)],
      x: [Keyframe(0, 70)], y: [Keyframe(0, 50)])
    let run = try SimRun(board: board, scenario: Scenario(name: "ramp", touches: [press]))
    let rate = Double(board.rate_hz)
    var out: [(Int, Int)] = []
    for (kind, normalized) in [(EventKind.peek, board.interaction.peek), (.pop, board.interaction.pop)] {
      let threshold_n = normalized * board.interaction.averageTouch_n
      // Scripted: force = 2 N/s x (t - start); the first frame at or above.
      let scripted = Int((start + threshold_n / 2.0) * rate) + 1
      let reported = run.touches.first { $0.touch.force.newtons >= threshold_n }!.frame
      let event = run.events.first { $0.event.kind == kind }!.frame
      out.append((Int(reported) - scripted, Int(event) - Int(reported)))
    }
    return out
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func stageEventsFireTheHoldAfterTheReportedCrossing(_ name: String) throws {
    let board = try Repo.board(name)
    let hold = board.interaction.holdFrames(rate_hz: board.rate_hz)
    let l = try Self.latency(name)
    print("stage latency \(name) @ \(board.rate_hz) Hz, hold \(hold) frames: \(l)")
    for (reported, event) in l {
      // The stage machine adds exactly the hold (noise could stretch it; the
      // simulated noise is far below the 17 % hysteresis band).
      #expect(event == hold - 1)
      // The sensing path (spike filter median of three, rounding) adds at
      // most two frames to the scripted force; on a grid the force of a
      // contact is its window's sum scaled by the calibration's capture,
      // within 1 % (at 2 N/s, 1 % of the pop threshold in frames).
      let pop_n = board.interaction.pop * board.interaction.averageTouch_n
      let slack = board.grid == nil ? 0 : Int((0.01 * pop_n / 2.0 * Double(board.rate_hz)).rounded(.up))
      #expect(reported >= -slack && reported <= 2 + slack, "\(name): reported crossing \(reported) frames after the scripted one")
    }
  }
}
