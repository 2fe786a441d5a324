import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

/// A data-ready line as GPIODataReady was before it could read a level:
/// edges only (`isAsserted` cannot tell).
struct EdgeOnlyLine: DataReady {
  var inner: SimulatedDataReadyLine
  mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool { try inner.wait(timeout_us: timeout_us) }
}

/// A line that never gives an edge (a broken wire that reads no error).
struct SilentLine: DataReady {
  let clock: SimulatedClock
  mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    clock.advance(by: max(timeout_us, 0) * 1000)
    return false
  }
}

/// Data-ready lines that do not behave as the simple edge-per-conversion
/// model says, and ready bits that do not clear: no chip is called stuck,
/// no result is delivered twice.
@Suite struct DataReadyLevelTests {
  /// The NAU7802's DRDY may stay high between conversions above 40 SPS
  /// (Linux nau7802.c uses a level interrupt for it): with a line that
  /// rises once and stays high, every frame is read, the line's level
  /// sending the front end to the ready bit. (Polling costs a PU_CTRL read
  /// per chip and frame: at 400 kHz with 200 µs per transfer, four chips
  /// behind a switch then reach about 280 frames/s of their 320.)
  @Test func aDRDYLineThatStaysHighIsReadThroughTheReadyBit() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    for chip in twin.hardware.nau7802s { chip.parameters.drdyStaysHigh = true }
    try twin.frontEnd.start()
    let edgesAfterStart = twin.hardware.nau7802s.map(\.drdyEdges)
    let t0 = twin.clock.now_ns
    var valid = 0
    try twin.run(frames: 320) { t in
      if t.frame.valid { valid += 1 }
      return true
    }
    #expect(valid == 320)
    #expect(twin.hardware.nau7802s.map(\.drdyEdges) == edgesAfterStart, "the pins gave no edge while streaming")
    let rate = 320 / (Double(twin.clock.now_ns - t0) / 1e9)
    #expect(rate > 250 && rate < 330, "\(rate) frames/s, health \(twin.frontEnd.health)")
    #expect(twin.notices().isEmpty)
    #expect(twin.frontEnd.health.invalidFrames == 0)
  }

  /// The same pins on lines that only know edges (what GPIODataReady was):
  /// no edge comes, the first wait of each chip times out and the ready
  /// bit read after it still finds the conversion (`lateReady`); the line
  /// is then taken for silent and the ready bit polled: no chip called
  /// stuck, one frame lost (its cells read a timeout apart), then the
  /// chips' pace, not the timeout's.
  @Test func anEdgeOnlyLineThatStaysHighFallsBackToTheReadyBitAfterTheTimeout() throws {
    let board = try Repo.board("sim-plate4-nau7802")
    let (c, hw) = try Twins.hardware(board)
    for chip in hw.nau7802s { chip.parameters.drdyStaysHigh = true }
    var fe = NAU7802FrontEnd(
      configuration: c, chip: NAU7802Cell(settings: c.nau7802), bus: hw.bus, clock: hw.clock,
      lines: hw.dataReadyLines().map { EdgeOnlyLine(inner: $0) }, options: RunOptions(speed: 0))
    try fe.start()
    var frame = RawFrame(cellCount: 4)
    _ = try fe.next(into: &frame)
    #expect(!frame.valid, "chips 1-3 read a timeout after chip 0")
    #expect(fe.health.lateReady == 4)
    let t0 = hw.clock.now_ns
    for _ in 0..<100 {
      _ = try fe.next(into: &frame)
      #expect(frame.valid)
    }
    #expect(fe.health.lateReady == 4, "each line timed out once")
    var notices: [String] = []
    while let n = fe.takeNotice() { notices.append(n.message) }
    #expect(notices.count == 4 && notices.allSatisfy { $0.hasSuffix("data-ready line gave no edge for a conversion; polling its ready bit until it does") }, "\(notices)")
    #expect(fe.conditions.allSatisfy { $0.isReady })
    let rate = 100 / (Double(hw.clock.now_ns - t0) / 1e9)
    #expect(rate > 250, "the ready bit polled: \(rate) frames/s")
  }

  /// A chip's data-ready line that stops (a broken trace, a GPIO that
  /// stops reporting edges: the soak's `dataReadyStopped`) while a press
  /// begins. Before, every frame waited the line's timeout (period + 50
  /// ms) for that chip and found its conversion late by the ready bit, and
  /// the frame kept the time of the chip read before it: chips 1-3 read
  /// 53 ms after chip 0, under chip 0's time, showed a press that began
  /// after that time — the 10^7-frame soak's false and stuck touch
  /// (docs/reliability.md, "The long run"). Now the frame of the late
  /// result is invalid, the chip's ready bit is polled until the line
  /// moves again, and every valid frame's cells are of its time.
  @Test func aLineThatStopsAsAPressBeginsMixesNoInstants() throws {
    let press_s = 1.0
    let scenario = Scenario(
      name: "press", touches: [ScriptedTouch(start_s: press_s, x_mm: 150, y_mm: 90, force_n: 2, hold_s: 0.5, rise_s: 0.01)])
    for stopBefore_ms in [2.0, 9.0, 20.0, 31.0] {
      var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"), scenario: scenario)
      try twin.frontEnd.start()
      let origin = twin.clock.now_ns
      twin.hardware.signals.origin_ns = origin
      let seconds = { (ns: Int64) in Double(ns - origin) / 1e9 }
      var rest = [Double](repeating: 0, count: 4)
      var restFrames = 0
      try twin.run(frames: 10_000) { t in
        if seconds(t.clock.now_ns) > 0.5 {
          for k in 0..<4 { rest[k] += Double(t.frame.counts[k]) }
          restFrames += 1
        }
        return seconds(t.clock.now_ns) < press_s - stopBefore_ms / 1000
      }
      rest = rest.map { $0 / Double(restFrames) }
      let chip = twin.hardware.nau7802s[1]
      chip.pinStopped = true
      var framesStopped = 0
      var invalid = 0
      try twin.run(frames: 10_000) { t in
        let time = seconds(t.frame.time.rawValue * 1000)
        if !t.frame.valid { invalid += 1 }
        if t.frame.valid && time < press_s {
          for k in 0..<4 {
            #expect(abs(Double(t.frame.counts[k]) - rest[k]) < 500, "stopped \(stopBefore_ms) ms before the press: the frame at \(time) s reads cell \(k) at \(t.frame.counts[k]), at rest \(rest[k])")
          }
        }
        framesStopped += 1
        return seconds(t.clock.now_ns) < press_s + 0.5
      }
      #expect(invalid <= 1, "\(invalid) frames invalid")
      #expect(framesStopped > 120, "\(framesStopped) frames in the half second after the stop")
      #expect(twin.frontEnd.health.lateReady == 1)
      // The line moves again: it is used again, the ready bit no longer polled.
      chip.pinStopped = false
      try twin.run(frames: 20)
      let messages = twin.notices()
      #expect(messages.contains { $0.hasSuffix("data-ready line gives edges again") }, "\(messages)")
      twin.bus.isTracing = true
      try twin.run(frames: 20)
      let polls = twin.bus.trace.filter {
        if case .writeRead(0x2A, [0x00], _) = $0 { return true }
        return false
      }.count
      #expect(polls == 0, "\(polls) PU_CTRL reads with every line moving")
      #expect(twin.frontEnd.health.lateReady == 1)
    }
  }

  /// A ready bit that stays set after ADCO is read (`clearReadyOnRead =
  /// false`), polled: results are taken no sooner than 15/16 of a period
  /// apart, so the frame rate stays at the chips' and few results repeat.
  @Test func aReadyBitThatDoesNotClearIsTakenAtMostOncePerPeriod() throws {
    let board = try Twins.board(cells: 2, frontEnd: """
      kind = "nau7802"
      bus = "sim"
      mux = 0x71
      channels = [6, 3]
      [frontend.sim]
      oscillator_tolerance = 0.0
      """)
    var twin = try Twins.nau7802(board)
    try twin.frontEnd.start()
    for chip in twin.hardware.nau7802s { chip.parameters.clearReadyOnRead = false }
    try twin.run(frames: 5)
    let conversions0 = twin.hardware.nau7802s.map(\.conversions)
    let t0 = twin.clock.now_ns
    var previous = twin.frame.counts[0]
    var repeats = 0
    var frames = 0
    try twin.run(frames: 640) { t in
      frames += 1
      if t.frame.counts[0] == previous { repeats += 1 }
      previous = t.frame.counts[0]
      return t.frame.valid
    }
    // At most one result per 15/16 of a period: a few repeats (a result
    // read again before the next conversion) where polling at the bit's
    // own pace would repeat most.
    #expect(frames == 640)
    #expect(repeats <= 640 / 15 + 2, "\(repeats) frames repeated the previous result")
    let converted = twin.hardware.nau7802s[0].conversions - conversions0[0]
    #expect(frames * 15 <= converted * 16 + 16, "\(frames) frames from \(converted) conversions")
    let rate = Double(frames) / (Double(twin.clock.now_ns - t0) / 1e9)
    #expect(rate > 300 && rate <= 320 * 16 / 15 + 1, "\(rate) frames/s")
  }

  /// An edge that comes too soon after the last result (a glitch, an edge
  /// left over) is checked against the ready bit: no new conversion, no
  /// result; the real one is read when it comes.
  @Test func anEarlyEdgeWithoutAConversionIsNotAResult() throws {
    /// A line whose next wait returns at once, once.
    struct GlitchingLine: DataReady {
      var inner: SimulatedDataReadyLine
      let glitch: Switch
      mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
        if glitch.on {
          glitch.on = false
          return true
        }
        return try inner.wait(timeout_us: timeout_us)
      }
      mutating func isAsserted() throws(DataReadyError) -> Bool? { try inner.isAsserted() }
    }
    let board = try Twins.board(cells: 1, frontEnd: """
      kind = "nau7802"
      bus = "sim"
      drdy_lines = [17]
      [frontend.sim]
      oscillator_tolerance = 0.0
      """)
    let (c, hw) = try Twins.hardware(board)
    let glitch = Switch()
    var fe = NAU7802FrontEnd(
      configuration: c, chip: NAU7802Cell(settings: c.nau7802), bus: hw.bus, clock: hw.clock,
      lines: hw.dataReadyLines().map { GlitchingLine(inner: $0, glitch: glitch) }, options: RunOptions(speed: 0))
    try fe.start()
    var frame = RawFrame(cellCount: 1)
    for _ in 0..<20 { _ = try fe.next(into: &frame) }
    let conversions = hw.nau7802s[0].conversions
    let before = fe.health
    hw.bus.isTracing = true
    glitch.on = true
    _ = try fe.next(into: &frame)
    #expect(frame.valid)
    #expect(fe.health.staleResults == before.staleResults + 1)
    // The glitch cost one PU_CTRL read (CR clear); the result read is the
    // next conversion, not the one read last frame.
    #expect(hw.bus.trace.first == .writeRead(0x2A, [0x00], [0x9E]))
    #expect(hw.nau7802s[0].conversions == conversions + 1)
    #expect(fe.health.missedFrames == before.missedFrames)
  }
}
