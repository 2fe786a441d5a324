import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

@Suite struct NAU7802RegisterTests {
  @Test func bitFieldsPackAsTheDatasheetSays() {
    var p = NAU7802.PUCtrl()
    p.powerUpDigital = true
    p.powerUpAnalog = true
    p.internalLDO = true
    p.cycleStart = true
    #expect(p.rawValue == 0x96)
    var c1 = NAU7802.Ctrl1()
    c1.gain = .x128
    c1.ldo = .v3_3
    #expect(c1.rawValue == 0x27)
    #expect(NAU7802.LDOVoltage.v3_3.millivolts == 3300)
    var c2 = NAU7802.Ctrl2()
    c2.rate = .sps320
    c2.calibrationStart = true
    #expect(c2.rawValue == 0x74)
    c2.channel2 = true
    c2.calibrationMode = .systemGain
    #expect(c2.rawValue == 0xF7)
    #expect(NAU7802.Ctrl2(rawValue: 0x48).rate == .sps10)  // unused CRS code 4
    #expect(NAU7802.Ctrl2(rawValue: 0x01).calibrationMode == nil)  // reserved CALMOD
  }

  @Test(arguments: [
    ((UInt8(0x7F), UInt8(0xFF), UInt8(0xFF)), Int32(8_388_607)),
    ((0x80, 0x00, 0x00), -8_388_608),
    ((0xFF, 0xFF, 0xFF), -1),
    ((0x00, 0x01, 0x00), 256),
    ((0xFE, 0xDC, 0xBA), -74_566),
  ])
  func resultsAreSignExtendedFrom24Bits(_ bytes: (UInt8, UInt8, UInt8), _ value: Int32) {
    #expect(NAU7802.signExtend(bytes.0, bytes.1, bytes.2) == value)
  }
}

@Suite struct NAU7802SimulationTests {
  static func bench() -> (SimulatedI2CBus, SimulatedNAU7802) {
    let bus = SimulatedI2CBus(timing: I2CBusTiming(khz: 400, hostOverhead_us: 0))
    var p = SimulatedNAU7802.Parameters()
    p.analogSettle_ns = 1_000_000
    p.calibration_ns = 5_000_000
    let chip = SimulatedNAU7802(parameters: p)
    bus.attach(chip)
    return (bus, chip)
  }

  @Test func resetValuesAndAutoIncrement() throws {
    let (bus, _) = Self.bench()
    var b = bus
    var all = [UInt8](repeating: 0xAA, count: 32)
    try all.withUnsafeMutableBytes { try NAU7802().readRegisters(from: 0, into: $0, on: &b) }
    #expect(all[0x1F] == 0x0F)
    #expect(Array(all[0x06...0x09]) == [0x00, 0x80, 0x00, 0x00])  // GCAL1 = 1.0
    #expect(all[0...5].allSatisfy { $0 == 0 })
    // A burst write lands in consecutive registers.
    try [UInt8]([0x03, 0x12, 0x34, 0x56]).withUnsafeBytes { try b.write($0, to: 0x2A) }
    var ocal = [UInt8](repeating: 0, count: 3)
    try ocal.withUnsafeMutableBytes { try RegisterIO.read(0x03, into: $0, at: 0x2A, on: &b) }
    #expect(ocal == [0x12, 0x34, 0x56])
  }

  @Test func conversionsFollowTheRateAndClearCROnRead() throws {
    let (bus, chip) = Self.bench()
    var b = bus
    chip.fixedInput = (10_000, 0)
    let nau = NAU7802()
    try nau.resetRegisters(on: &b)
    bus.clock.advance(by: 300_000)
    #expect(try nau.isPowerUpReady(on: &b))
    var s = NAU7802Settings()
    s.rate = .sps80
    try nau.configure(s, on: &b)
    #expect(try !nau.isConversionReady(on: &b))
    bus.clock.advance(by: 12_500_000)  // one period at 80 SPS
    #expect(try nau.isConversionReady(on: &b))
    _ = try nau.readConversion(on: &b)
    #expect(try !nau.isConversionReady(on: &b))
    bus.clock.advance(by: 200_000_000)
    // Settled: gain 128, GCAL 1.0, OCAL 0 -> the input itself.
    #expect(try nau.readConversion(on: &b) == 10_000)
    #expect(chip.conversions == 17)
  }

  @Test func theCalibrationEngineRemovesTheChipsOffset() throws {
    let (bus, chip) = Self.bench()
    chip.parameters.inputOffset_counts = 1_234
    chip.fixedInput = (5_000, 0)
    var b = bus
    let clock = bus.clock
    let nau = NAU7802()
    try nau.resetRegisters(on: &b)
    clock.sleep(us: 300)
    try nau.configure(NAU7802Settings(), on: &b)
    clock.sleep(us: 50_000)
    #expect(try nau.readConversion(on: &b) == 6_234)
    try nau.startCalibration(.internalOffset, settings: NAU7802Settings(), on: &b)
    #expect(try nau.calibrationStatus(on: &b) == .running)
    clock.sleep(us: 6_000)
    #expect(try nau.calibrationStatus(on: &b) == .done)
    clock.sleep(us: 50_000)
    #expect(try nau.readConversion(on: &b) == 5_000)
    // A system gain calibration with (almost) no input cannot work: CAL_ERR.
    chip.fixedInput = (0, 0)
    try nau.startCalibration(.systemGain, settings: NAU7802Settings(), on: &b)
    clock.sleep(us: 6_000)
    #expect(try nau.calibrationStatus(on: &b) == .failed)
  }

  @Test func aConfigurationChangeRestartsAndSettles() throws {
    let (bus, chip) = Self.bench()
    chip.fixedInput = (100_000, 0)
    var b = bus
    let clock = bus.clock
    let nau = NAU7802()
    try nau.resetRegisters(on: &b)
    clock.sleep(us: 300)
    try nau.configure(NAU7802Settings(), on: &b)
    clock.sleep(us: 100_000)
    #expect(try nau.readConversion(on: &b) == 100_000)
    var s = NAU7802Settings()
    s.gain = .x64
    try nau.write(NAU7802.ctrl1(s), on: &b)
    clock.sleep(us: 3_200)
    let first = try nau.readConversion(on: &b)
    #expect(first > 50_000 && first < 100_000)  // on its way, not there
    clock.sleep(us: 3_125 * 8)
    #expect(try nau.readConversion(on: &b) == 50_000)
  }
}

@Suite struct NAU7802FrontEndTests {
  /// One NAU7802 on the main bus, polled; short simulated waits.
  static let single = """
    kind = "nau7802"
    bus = "sim"
    settle_ms = 20

    [frontend.sim]
    host_overhead_us = 0.0
    oscillator_tolerance = 0.0
    chip_offset_counts = 0.0
    analog_settle_ms = 10.0
    calibration_ms = 25.0
    spike_rate_hz = 0.0
    """

  @Test func powerUpTrafficIsExact() throws {
    var twin = try Twins.nau7802(Twins.board(cells: 1, frontEnd: Self.single))
    twin.bus.isTracing = true
    try twin.frontEnd.start()
    let a: I2CAddress = 0x2A
    let powerUp: [I2CTransferEvent] = [
      .write(a, [0x00, 0x01]),  // PU_CTRL: RR
      .write(a, [0x00, 0x02]),  // PU_CTRL: PUD
      .writeRead(a, [0x00], [0x0A]),  // PUR set (210 µs later)
      .write(a, [0x01, 0x27, 0x70]),  // CTRL1 gain 128, LDO 3.3 V; CTRL2 320 SPS
      .write(a, [0x00, 0x86]),  // PUD, PUA, AVDDS: the LDO starts at 3.3 V
      .write(a, [0x15, 0x30]),  // clock chopper off
      .write(a, [0x1B, 0x00]),  // PGA: LDOMODE low-ESR
      .write(a, [0x1C, 0x80]),  // PGA output capacitor
      .write(a, [0x00, 0x96]),  // + CS: conversions start
      .write(a, [0x02, 0x74]),  // CALS, internal offset (after settle_ms)
      .writeRead(a, [0x02], [0x74]),  // running at +10 ms
      .writeRead(a, [0x02], [0x74]),  // running at +20 ms
      .writeRead(a, [0x02], [0x70]),  // done, no CAL_ERR
    ]
    #expect(Array(twin.bus.trace.prefix(powerUp.count)) == powerUp)
    // VLDO was written before AVDDS switched the LDO on (it resets to 4.5 V).
    #expect(twin.hardware.nau7802s[0].ldoSwitchedOn_mV == 3300)
    // Then six conversions are polled for (CR) and dropped.
    let rest = Array(twin.bus.trace.dropFirst(powerUp.count))
    let drops = rest.filter { if case .writeRead(_, [0x12], _) = $0 { true } else { false } }
    #expect(drops.count == 6)
    for event in rest {
      switch event {
      case .writeRead(a, [0x00], let r): #expect(r == [0x9E] || r == [0xBE])  // CR clear / set
      case .writeRead(a, [0x12], let r): #expect(r.count == 3)
      default: Issue.record("unexpected \(event)")
      }
    }
    #expect(twin.frontEnd.conditions == [.ready])
  }

  @Test func aFrameIsAMuxSelectAndABurstPerChip() throws {
    let board = try Repo.board("sim-plate4-nau7802")
    var twin = try Twins.nau7802(board)
    try twin.frontEnd.start()
    twin.bus.isTracing = true
    try twin.run(frames: 3)
    twin.bus.clearTrace()
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    var expected: [I2CTransferEvent] = []
    for i in 0..<4 {
      expected.append(.write(0x70, [UInt8(1 << i)]))
      expected.append(.writeRead(0x2A, [0x12], I2CTransferEvent.bytes24(twin.frame.counts[i])))
    }
    #expect(twin.bus.trace == expected)
    // The counts are the physics' cells (offsets of +-150000 counts drawn
    // from the seed), not zero and not railed.
    for i in 0..<4 { #expect(abs(twin.frame.counts[i]) < 400_000 && twin.frame.counts[i] != 0) }
  }

  @Test func polledFramesReadCRThenTheResult() throws {
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
    try twin.run(frames: 5)
    twin.bus.isTracing = true
    #expect(try twin.frontEnd.next(into: &twin.frame))
    let trace = twin.bus.trace
    // Select channel 6, poll PU_CTRL until CR, read; then channel 3.
    #expect(trace.first == .write(0x71, [0x40]))
    let select3 = try #require(trace.firstIndex(of: .write(0x71, [0x08])))
    for (part, cell) in [(trace[1..<select3], 0), (trace[(select3 + 1)...], 1)] {
      #expect(part.last == .writeRead(0x2A, [0x12], I2CTransferEvent.bytes24(twin.frame.counts[cell])))
      #expect(part.dropLast().last == .writeRead(0x2A, [0x00], [0xBE]))
      #expect(part.dropLast(2).allSatisfy { $0 == .writeRead(0x2A, [0x00], [0x9E]) })
    }
  }

  /// The internal calibration measures the offset with the inputs
  /// shorted; started before the LDO and analog front end have settled it
  /// measures the settling too, and every result is off by it. The driver
  /// waits `settle_ms` (400 ms, past the chip's 250 ms): OCAL is the
  /// chip's own offset. Without the wait the simulated chip's OCAL is
  /// hundreds of thousands of counts off.
  @Test func theCalibrationWaitsForTheAnalogFrontEndToSettle() throws {
    func ocalAfterBringUp(_ extra: String) throws -> (ocal: Int32, offset: Double) {
      let board = try Twins.board(cells: 1, frontEnd: """
        kind = "nau7802"
        bus = "sim"
        \(extra)
        [frontend.sim]
        analog_settle_ms = 250.0
        """)
      var twin = try Twins.nau7802(board)
      try twin.frontEnd.start()
      let chip = twin.hardware.nau7802s[0]
      return (chip.load24(at: 0x03), chip.parameters.inputOffset_counts)
    }
    let waited = try ocalAfterBringUp("")
    #expect(waited.offset != 0)
    #expect(Double(waited.ocal) == waited.offset)
    let hurried = try ocalAfterBringUp("settle_ms = 0")
    #expect(abs(Double(hurried.ocal) - hurried.offset) > 300_000)
  }

  @Test func calibrationErrorIsABringUpErrorNamingTheChip() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    twin.hardware.nau7802s[1].failCalibration = true
    #expect(throws: FrontEndError.setup(
      "sim mux 0x70 channel 1 address 0x2a (NAU7802): internal calibration failed (CTRL2.CAL_ERR)"))
    {
      try twin.frontEnd.start()
    }
  }

  @Test func powerUpReadyNeverSetIsABringUpError() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    twin.hardware.nau7802s[3].powerUpNeverReady = true
    #expect(throws: FrontEndError.setup(
      "sim mux 0x70 channel 3 address 0x2a (NAU7802): power-up ready (PU_CTRL.PUR) never set"))
    {
      try twin.frontEnd.start()
    }
  }

  @Test func aChipThatDoesNotAnswerIsNamedByBusChannelAndAddress() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    twin.hardware.nau7802s[2].isPresent = false
    do {
      try twin.frontEnd.start()
      Issue.record("started without chip 2")
    } catch {
      #expect(error == .chip("sim mux 0x70 channel 2 address 0x2a (NAU7802)", .nack(0x2A)))
      #expect(error.description == "sim mux 0x70 channel 2 address 0x2a (NAU7802): no acknowledge from 0x2a")
    }
    // Tried once plus the configured retries (2).
    #expect(twin.frontEnd.health.retries == 2)
    #expect(twin.frontEnd.health.busErrors == 3)
  }

  @Test func aChipThatNeverConvertsIsABringUpError() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    twin.hardware.nau7802s[0].conversionsStuck = true
    #expect(throws: FrontEndError.setup(
      "sim mux 0x70 channel 0 address 0x2a (NAU7802): answers but delivers no conversions (stuck)"))
    {
      try twin.frontEnd.start()
    }
  }

  @Test func aMissingSwitchIsNamed() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    twin.hardware.mux?.isPresent = false
    #expect(throws: FrontEndError.chip("sim address 0x70 (TCA9548A)", .nack(0x70))) { try twin.frontEnd.start() }
  }

  @Test func aGlitchIsRetriedAndTheFrameStaysValid() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    try twin.frontEnd.start()
    try twin.run(frames: 10)
    let before = twin.frontEnd.health
    twin.bus.inject(.nack, at: 0x2A, count: 1)
    twin.bus.inject(.timeout, at: 0x70, after: 2, count: 1)
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    #expect(twin.frontEnd.health.retries == before.retries + 2)
    #expect(twin.frontEnd.health.busErrors == before.busErrors + 2)
    #expect(twin.frontEnd.health.invalidFrames == before.invalidFrames)
  }

  @Test func aChipThatResetsMidStreamIsDetectedAndReinitialised() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    try twin.frontEnd.start()
    try twin.run(frames: 50)
    #expect(twin.frontEnd.health.invalidFrames == 0)
    twin.hardware.nau7802s[1].brownout(at: twin.clock.now_ns)
    var invalid = 0
    var recovered = false
    try twin.run(frames: 2000) { t in
      if !t.frame.valid { invalid += 1 } else if invalid > 0 { recovered = true }
      return !recovered
    }
    #expect(recovered)
    #expect(twin.frontEnd.health.reinitialisations == 1)
    #expect(twin.frontEnd.health.invalidFrames == UInt64(invalid))
    #expect(twin.frontEnd.health.missedFrames >= 1)
    // Re-initialising takes settle (400 ms) + calibration (344 ms) + discards.
    #expect(invalid > 200 && invalid < 300)
    let notices = twin.notices()
    #expect(notices.first?.hasPrefix("sim mux 0x70 channel 1 address 0x2a (NAU7802): reset detected") == true)
    #expect(twin.frontEnd.conditions.allSatisfy { $0.isReady })
  }

  @Test func aChipThatVanishesIsReportedAndComesBack() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    try twin.frontEnd.start()
    try twin.run(frames: 20)
    twin.hardware.nau7802s[3].isPresent = false
    try twin.run(frames: 200)
    #expect(!twin.frame.valid)
    guard case .failed(.bus(.nack(0x2A)), _) = twin.frontEnd.conditions[3] else {
      Issue.record("chip 3: \(twin.frontEnd.conditions[3])")
      return
    }
    #expect(twin.notices() == [
      "sim mux 0x70 channel 3 address 0x2a (NAU7802): does not answer (no acknowledge); its frames are marked invalid"
    ])
    // The others keep being read: the frame rate holds.
    let t0 = twin.frame.time.rawValue
    try twin.run(frames: 100)
    let rate = 100 / (Double(twin.frame.time.rawValue - t0) / 1e6)
    #expect(rate > 300 && rate < 330)
    twin.hardware.nau7802s[3].isPresent = true
    try twin.run(frames: 3000) { !$0.frame.valid }
    #expect(twin.frame.valid)
    #expect(twin.frontEnd.health.reinitialisations >= 1)
    // Reported back once it has delivered for a second.
    #expect(twin.notices().isEmpty)
    try twin.run(frames: 330)
    #expect(twin.notices() == ["sim mux 0x70 channel 3 address 0x2a (NAU7802): answering again, re-initialised"])
  }

  @Test func aStuckChipIsReportedAndItsFramesInvalid() throws {
    var twin = try Twins.nau7802(Repo.board("sim-plate4-nau7802"))
    try twin.frontEnd.start()
    try twin.run(frames: 20)
    twin.hardware.nau7802s[0].conversionsStuck = true
    try twin.run(frames: 10)
    #expect(!twin.frame.valid)
    #expect(twin.notices().contains(
      "sim mux 0x70 channel 0 address 0x2a (NAU7802): answers but delivers no conversions (stuck); its frames are marked invalid"))
  }
}

/// A data-ready line that breaks while streaming.
struct BreakingLine: DataReady {
  var inner: SimulatedDataReadyLine
  let breaks: () -> Bool
  mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    if breaks() { throw .io(errno: 5) }
    return try inner.wait(timeout_us: timeout_us)
  }
}

final class Switch: @unchecked Sendable {
  var on = false
}

@Suite struct DataReadyFailureTests {
  @Test func aFailingLineIsReportedAndTheReadyBitPolled() throws {
    let board = try Repo.board("sim-plate4-nau7802")
    let (c, hw) = try Twins.hardware(board)
    let broken = Switch()
    let lines = hw.dataReadyLines().enumerated().map { i, l in BreakingLine(inner: l) { i == 2 && broken.on } }
    var fe = NAU7802FrontEnd(
      configuration: c, chip: NAU7802Cell(settings: c.nau7802), bus: hw.bus, clock: hw.clock, lines: lines,
      options: RunOptions(speed: 0))
    try fe.start()
    var frame = RawFrame(cellCount: 4)
    for _ in 0..<10 { _ = try fe.next(into: &frame) }
    broken.on = true
    hw.bus.isTracing = true
    for _ in 0..<10 {
      _ = try fe.next(into: &frame)
      #expect(frame.valid)
    }
    #expect(fe.takeNotice()?.message == "sim mux 0x70 channel 2 address 0x2a (NAU7802): data-ready line read failed (errno 5); polling its ready bit instead")
    // Chip 2 is now polled: PU_CTRL reads on its channel.
    #expect(hw.bus.trace.contains(.writeRead(0x2A, [0x00], [0xBE])))
  }
}
