import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelHardware
@testable import PanelSimulation
@testable import PanelStreaming
@testable import PanelTouch

/// The DRV2605L driver against its register-accurate simulation: the exact
/// bus traffic of bring-up and of a click, the click in the frame of its
/// stage event, and faults survived.
@Suite struct HapticsTests {
  @Test func bringUpTrafficAndRegisters() throws {
    var (feedback, chip, bus) = HapticsBench.bench()
    #expect(chip.registers[0x01] == 0x40)  // standby after power-on
    try feedback.start()
    #expect(
      bus.trace == [
        .writeRead(0x5A, [0x00], [0xE0]),  // STATUS: DEVICE_ID 7
        .write(0x5A, [0x1A, 0xB6]),  // FEEDBACK_CONTROL: N_ERM_LRA (LRA), defaults
        .write(0x5A, [0x16, 0x3E, 0x8C]),  // RATED_VOLTAGE, OD_CLAMP
        .write(0x5A, [0x03, 0x06]),  // LIBRARY_SEL: LRA library
        .write(0x5A, [0x01, 0x00]),  // MODE: internal trigger, out of standby
      ], "\(bus.trace)")
    #expect(chip.registers[0x01] == 0x00 && chip.registers[0x03] == 0x06 && chip.registers[0x1A] == 0xB6)
    // An ERM on library B.
    var erm = HapticsSettings()
    erm.chip.actuator = .erm
    erm.chip.library = 2
    var (f2, c2, b2) = HapticsBench.bench(erm)
    try f2.start()
    #expect(b2.trace[1] == .write(0x5A, [0x1A, 0x36]) && b2.trace[3] == .write(0x5A, [0x03, 0x02]))
    #expect(c2.registers[0x1A] & 0x80 == 0)
  }

  static func burst(_ effect: UInt8) -> I2CTransferEvent {
    // WAV_FRM_SEQ1 = effect, SEQ2...8 = 0 (end), GO = 1: one write from 0x04.
    .write(0x5A, [0x04, effect, 0, 0, 0, 0, 0, 0, 0, 0x01])
  }

  static func empty(frame: UInt64, t_us: Int64) -> FrameReport {
    var r = FrameReport()
    r.frame = frame
    r.time = Time_us(rawValue: t_us)
    return r
  }

  @Test func aClickIsOneWriteAndIsCheckedInTheNextFrame() throws {
    var (feedback, chip, bus) = HapticsBench.bench()
    try feedback.start()
    bus.clearTrace()
    feedback.respond(to: HapticsBench.report(.peek, frame: 7, t_us: 21_875))
    #expect(bus.trace == [Self.burst(21)], "\(bus.trace)")
    #expect(chip.played.map(\.effect) == [21])
    #expect(feedback.lastClick?.frame == 7 && feedback.health.clicks == 1)
    // It plays about 30 ms, then GO clears by itself.
    #expect(chip.isPlaying(at: bus.clock.now_ns))
    #expect(!chip.isPlaying(at: bus.clock.now_ns + 31_000_000))
    // Next frame: MODE read back (out of standby: nothing more to do).
    bus.clearTrace()
    feedback.respond(to: Self.empty(frame: 8, t_us: 25_000))
    #expect(bus.trace == [.writeRead(0x5A, [0x01], [0x00])])
    bus.clearTrace()
    feedback.respond(to: Self.empty(frame: 9, t_us: 28_125))
    #expect(bus.trace.isEmpty)
    // A click within a second of the last one cancels it first (GO only
    // fires on 0 -> 1); the check of the previous click is not needed.
    chip.resetPlayedForTests()
    feedback.respond(to: HapticsBench.report(.pop, frame: 10, t_us: 31_250))
    #expect(bus.trace == [.write(0x5A, [0x0C, 0x00]), Self.burst(1)], "\(bus.trace)")
    #expect(chip.played.map(\.effect) == [1])
    // A second later, no cancel.
    bus.clearTrace()
    feedback.respond(to: Self.empty(frame: 11, t_us: 34_375))
    feedback.respond(to: HapticsBench.report(.peek, frame: 400, t_us: 1_250_000))
    #expect(bus.trace == [.writeRead(0x5A, [0x01], [0x00]), Self.burst(21)], "\(bus.trace)")
  }

  /// The click's time on the bus (the timing model: host overhead per
  /// transfer, bits at 400 kHz) fits well inside a 320 Hz frame.
  @Test func aClickCostsLessThanAFifthOfAFrameOnTheBus() throws {
    var (feedback, _, bus) = HapticsBench.bench()
    try feedback.start()
    let before = bus.clock.now_ns
    var report = FrameReport()
    report.append(TouchEvent(kind: .pop, touch: 1))
    feedback.respond(to: report)
    let click_us = Double(bus.clock.now_ns - before) / 1000
    print("haptic click on the simulated bus: \(click_us) us, \(bus.trace.count - 5) transfers")
    #expect(click_us < 3125.0 / 5)
    let check_start = bus.clock.now_ns
    feedback.respond(to: Self.empty(frame: 1, t_us: 3_125))
    print("haptic check in the next frame: \(Double(bus.clock.now_ns - check_start) / 1000) us")
  }

  @Test func popWinsAndOneClickPerFrame() throws {
    var (feedback, chip, _) = HapticsBench.bench()
    try feedback.start()
    var report = FrameReport()
    report.append(TouchEvent(kind: .peek, touch: 1))
    report.append(TouchEvent(kind: .pop, touch: 1))
    report.append(TouchEvent(kind: .peek, touch: 2))
    feedback.respond(to: report)
    #expect(chip.played.map(\.effect) == [1])
    // No click for events without one: lifting, swiping up for actions.
    var quiet = FrameReport()
    quiet.append(TouchEvent(kind: .peekCancelled, touch: 1))
    quiet.append(TouchEvent(kind: .quickActions, touch: 1, origin: .peek))
    quiet.append(TouchEvent(kind: .capability, touch: 0))
    feedback.respond(to: quiet)
    #expect(chip.played.count == 1)
    // An icon's menu and a long press click like peek.
    var icon = FrameReport()
    icon.append(TouchEvent(kind: .quickActions, touch: 3, origin: .press))
    feedback.respond(to: icon)
    var hold = FrameReport()
    hold.append(TouchEvent(kind: .longPress, touch: 4))
    feedback.respond(to: hold)
    #expect(chip.played.map(\.effect) == [1, 21, 21])
  }

  /// The click's bus traffic in the same frame as its stage event, through
  /// the whole scan loop on the simulated plate.
  @Test func theClickIsOnTheBusInTheFrameOfItsStageEvent() throws {
    let board = try Repo.board("sim-plate4")
    let scenario = Scenario(
      name: "press", touches: [
        ScriptedTouch(
          start_s: 0.3, force: [Keyframe(0, 0), Keyframe(0.3, 1.5), Keyframe(0.6, 1.5), Keyframe(0.9, 4.8), Keyframe(1.1, 4.8), Keyframe(1.2, 0)],
          x: [Keyframe(0, 80)], y: [Keyframe(0, 50)]),
        ScriptedTouch(
          start_s: 2.0, force: [Keyframe(0, 0), Keyframe(0.3, 1.5), Keyframe(0.6, 1.5), Keyframe(0.7, 0)],
          x: [Keyframe(0, 80)], y: [Keyframe(0, 50)]),
      ])
    let parameters = try board.simulationParameters
    let panel = SimulatedPanel(board: board, parameters: parameters, scenario: scenario)
    let loop = ScanLoop(source: panel, board: board, calibration: panel.trueCalibration(created: "test"))
    var (feedback, chip, bus) = HapticsBench.bench()
    try feedback.start()
    bus.clearTrace()
    var eventFrames: [(UInt64, EventKind)] = []
    var traffic: [(UInt64, [I2CTransferEvent])] = []
    while try loop.step() {
      // The haptic bus's clock follows the frames.
      bus.clock.advance(to: loop.report.time.rawValue * 1000)
      let before = bus.trace.count
      feedback.respond(to: loop.report)
      for i in 0..<loop.report.eventCount where !loop.report[event: i].kind.isPanelEvent {
        eventFrames.append((loop.report.frame, loop.report[event: i].kind))
      }
      if bus.trace.count > before { traffic.append((loop.report.frame, Array(bus.trace[before...]))) }
    }
    #expect(eventFrames.map(\.1) == [.peek, .pop, .peek, .peekCancelled])
    let stageFrames = eventFrames.filter { $0.1 == .peek || $0.1 == .pop }.map(\.0)
    // Bus traffic in exactly the stage frames (the click) and the frame
    // after each (the MODE check), nothing else.
    let mode = I2CTransferEvent.writeRead(0x5A, [0x01], [0x00])
    var expected: [(UInt64, [I2CTransferEvent])] = [
      (stageFrames[0], [Self.burst(21)]), (stageFrames[0] + 1, [mode]),
      // Pop comes less than a second after peek: cancel, then click.
      (stageFrames[1], [.write(0x5A, [0x0C, 0x00]), Self.burst(1)]), (stageFrames[1] + 1, [mode]),
      (stageFrames[2], [Self.burst(21)]), (stageFrames[2] + 1, [mode]),
    ]
    if stageFrames[1] == stageFrames[0] + 1 { expected.remove(at: 1) }
    #expect(traffic.count == expected.count)
    for (got, want) in zip(traffic, expected) {
      #expect(got.0 == want.0 && got.1 == want.1, "frame \(got.0): \(got.1), expected frame \(want.0): \(want.1)")
    }
    // The actuator started each effect within the frame period of its event.
    let period_ns = Int64(1_000_000_000 / board.rate_hz)
    #expect(chip.played.map(\.effect) == [21, 1, 21])
    for (k, p) in chip.played.enumerated() where k < stageFrames.count {
      let frame = Int64(stageFrames[k])
      #expect(p.at_ns >= frame * period_ns && p.at_ns < (frame + 1) * period_ns, "click \(k) at \(p.at_ns) ns, frame \(frame)")
    }
  }

  @Test func aGlitchIsRetriedAndCounted() throws {
    var (feedback, chip, bus) = HapticsBench.bench()
    try feedback.start()
    bus.inject(.nack, at: 0x5A, count: 1)
    var report = FrameReport()
    report.append(TouchEvent(kind: .pop, touch: 1))
    feedback.respond(to: report)
    #expect(chip.played.map(\.effect) == [1])
    #expect(feedback.health.retries == 1 && feedback.health.failures == 0)
  }

  @Test func anAbsentChipIsSurvivedAndPickedUpWhenItAnswers() throws {
    var (feedback, chip, _) = HapticsBench.bench()
    chip.isPresent = false
    #expect(throws: HapticsError.bus(.nack(0x5A))) { try feedback.start() }
    var report = FrameReport()
    report.append(TouchEvent(kind: .peek, touch: 1))
    feedback.respond(to: report)
    #expect(feedback.health.failures == 1 && feedback.health.clicks == 0)
    chip.isPresent = true
    feedback.respond(to: report)  // brought up, then clicks
    #expect(feedback.health.clicks == 1 && chip.played.map(\.effect) == [21])
    #expect(feedback.health.bringUps == 3)
  }

  @Test func aChipResetSinceBringUpIsReinitialisedAndTheClickReplayed() throws {
    var (feedback, chip, bus) = HapticsBench.bench()
    try feedback.start()
    chip.powerCycle()  // brownout: standby, library A, ERM
    bus.clearTrace()
    feedback.respond(to: HapticsBench.report(.peek, frame: 1, t_us: 3_125))
    #expect(chip.played.isEmpty)  // in standby GO does nothing
    feedback.respond(to: Self.empty(frame: 2, t_us: 6_250))
    #expect(feedback.health.reinitialisations == 1 && feedback.health.bringUps == 2)
    #expect(chip.played.map(\.effect) == [21])  // replayed, one frame late
    #expect(chip.registers[0x01] == 0x00 && chip.registers[0x03] == 0x06)
    #expect(bus.trace[0] == Self.burst(21))
    #expect(bus.trace[1] == .writeRead(0x5A, [0x01], [0x40]))  // MODE: standby
    #expect(bus.trace.last == Self.burst(21))
  }

  @Test func anotherChipIsRefused() {
    var (feedback, chip, _) = HapticsBench.bench()
    chip.deviceID = 4  // a DRV2604: no ROM library
    #expect(throws: HapticsError.unexpectedDevice(0x5A, deviceID: 4)) { try feedback.start() }
  }

  @Test func theSimulationKeepsTheDatasheetRules() throws {
    let bus = SimulatedI2CBus()
    let chip = SimulatedDRV2605L()
    bus.attach(chip)
    let b = bus
    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try b.write($0, to: 0x5A) } }
    // In standby GO plays nothing.
    try write([0x04, 1, 0])
    try write([0x0C, 1])
    #expect(chip.played.isEmpty && chip.registers[0x0C] == 0)
    // Out of standby: a sequence with a 50 ms wait between two effects.
    try write([0x01, 0x00])
    try write([0x04, 1, 0x85, 4, 0])
    try write([0x0C, 1])
    #expect(chip.played.map(\.effect) == [1, 4])
    #expect(chip.played[1].at_ns - chip.played[0].at_ns == 30_000_000 + 50_000_000)
    // GO = 0 cancels; STATUS is read only; DEV_RESET restores every register.
    try write([0x0C, 0])
    #expect(chip.cancels == 1)
    try write([0x00, 0x00])
    #expect(chip.registers[0] == 0xE0)
    try write([0x01, 0x80])
    #expect(chip.registers == SimulatedDRV2605L.powerOnValues)
  }

  /// The driver's reset table and the simulation's power-on values are
  /// written out separately; they must agree register by register.
  @Test func theDriversResetTableAgreesWithTheSimulatedChip() {
    for (r, (driver, chip)) in zip(DRV2605L.resetValues, SimulatedDRV2605L.powerOnValues).enumerated() {
      #expect(driver == chip, "register \(r): driver \(driver), simulated chip \(chip)")
    }
    #expect(DRV2605L.resetValues.count == SimulatedDRV2605L.powerOnValues.count)
  }

  @Test func theBoardTableIsChecked() throws {
    func load(_ haptics: String) -> String? {
      FilesTestSupport.failure { _ = try Board(table: TOML.parse(BoardText.valid + "\n[haptics]\n" + haptics, file: "b.toml")) }
    }
    #expect(load("kind = \"drv2605l\"\nbus = \"sim\"\n") == nil)
    #expect(load("kind = \"drv2604\"\nbus = \"sim\"\n")?.contains("[haptics] kind: \"drv2604\" is not a haptic driver") == true)
    #expect(load("kind = \"drv2605l\"\nbus = \"i2c-1\"\n")?.contains("[haptics] bus:") == true)
    #expect(load("kind = \"drv2605l\"\nbus = \"sim\"\nactuator = \"lra\"\nlibrary = 2\n")?.contains("[haptics] library: an LRA uses library 6") == true)
    #expect(load("kind = \"drv2605l\"\nbus = \"sim\"\npop_effect = 124\n")?.contains("[haptics] pop_effect: 124 is out of range") == true)
    let board = try Board(table: TOML.parse(BoardText.valid + "\n[haptics]\nkind = \"drv2605l\"\nbus = \"sim\"\nactuator = \"erm\"\npeek_effect = 24\n", file: "b.toml"))
    #expect(board.haptics?.chip.actuator == .erm && board.haptics?.chip.library == 1 && board.haptics?.peekEffect == 24)
  }
}
