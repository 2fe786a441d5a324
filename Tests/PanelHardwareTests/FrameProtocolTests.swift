import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

@Suite struct FrameProtocolTests {
  @Test func framesRoundTripAndTheCRCCatchesAnyFlippedBit() {
    var bytes: [UInt8] = []
    var status = FrameProtocol.Status()
    status.ready = true
    status.running = true
    FrameProtocol.encode(
      sequence: 0x1234, status: status, temperature: 25 * 256 + 128, counts: [1, -1, 8_388_607, -8_388_608],
      into: &bytes)
    #expect(bytes.count == FrameProtocol.frameSize(cells: 4))
    #expect(Array(bytes[0..<12]) == [0x12, 0x34, 0x11, 4, 0x19, 0x80, 0, 0, 1, 0xFF, 0xFF, 0xFF])
    var counts = [Int32](repeating: 0, count: 4)
    let header = bytes.withUnsafeBytes { FrameProtocol.decode($0) { counts[$0] = $1 } }
    #expect(header == .init(sequence: 0x1234, status: status, cells: 4, temperature: 6528))
    #expect(counts == [1, -1, 8_388_607, -8_388_608])
    for bit in 0..<(bytes.count * 8) {
      var bad = bytes
      bad[bit / 8] ^= 1 << (bit % 8)
      #expect(bad.withUnsafeBytes { FrameProtocol.decode($0) { _, _ in } } == nil, "bit \(bit)")
    }
  }

  @Test func bringUpAndAFrameAreExactTraffic() throws {
    var twin = try Twins.frame(Repo.board("sim-grid-frame"))
    twin.bus.isTracing = true
    try twin.frontEnd.start()
    #expect(
      twin.bus.trace == [
        .writeRead(0x28, [0x00], [0x46, 0x50, 0x01, 0x00, 48, 0x07, 0xD0]),  // ID "FP" 1.0, 48 cells, 2000 Hz
        .write(0x28, [0x09, 0x01, 0xF4]),  // RATE 500
        .write(0x28, [0x08, 0x01]),  // CTRL: RUN
      ])
    #expect(twin.hardware.frameController?.rate_hz == 500)
    try twin.run(frames: 3)
    twin.bus.clearTrace()
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    guard case .read(0x28, let bytes) = twin.bus.trace.first, twin.bus.trace.count == 1 else {
      Issue.record("\(twin.bus.trace)")
      return
    }
    #expect(bytes.count == 8 + 3 * 48)
    var counts = [Int32](repeating: 0, count: 48)
    let header = bytes.withUnsafeBytes { FrameProtocol.decode($0) { counts[$0] = $1 } }
    #expect(header?.sequence == 4)
    #expect(counts == (0..<48).map { twin.frame.counts[$0] })
    #expect(twin.frame.hasTemperature && twin.frame.temperature.celsius == 25)
  }

  @Test func aPolledFrameReadsStatusThenTheFrame() throws {
    let board = try Twins.board(cells: 4, frontEnd: """
      kind = "frame"
      bus = "sim"
      address = 0x3C
      [frontend.sim]
      oscillator_tolerance = 0.0
      """, rate_hz: 200)
    var twin = try Twins.frame(board)
    try twin.frontEnd.start()
    try twin.run(frames: 3)
    twin.bus.isTracing = true
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    let trace = twin.bus.trace
    #expect(trace.dropLast().allSatisfy { $0 == .writeRead(0x3C, [0x10], [0x10]) || $0 == .writeRead(0x3C, [0x10], [0x11]) })
    #expect(trace.dropLast().last == .writeRead(0x3C, [0x10], [0x11]))  // RUNNING | READY
    guard case .read(0x3C, let bytes) = trace.last else {
      Issue.record("\(trace)")
      return
    }
    #expect(bytes.count == 20)
  }

  @Test func aCRCErrorIsReadAgainThenTheControllerIsReported() throws {
    var twin = try Twins.frame(Repo.board("sim-grid-frame"))
    try twin.frontEnd.start()
    try twin.run(frames: 5)
    let before = twin.frontEnd.health
    twin.bus.inject(.corruptRead(index: 40, mask: 0x04), at: 0x28, count: 1)
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    #expect(twin.frontEnd.health.retries == before.retries + 1)
    #expect(twin.frontEnd.health.busErrors == before.busErrors + 1)
    twin.bus.inject(.corruptRead(index: 7, mask: 0x80), at: 0x28, count: .max)
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(!twin.frame.valid)
    #expect(twin.notices() == ["sim address 0x28 (frame controller): results fail their CRC check; its frames are marked invalid"])
    twin.bus.clearFaults()
    try twin.run(frames: 1000) { !$0.frame.valid }
    #expect(twin.frame.valid)
    try twin.run(frames: 520)
    #expect(twin.notices() == ["sim address 0x28 (frame controller): answering again, re-initialised"])
  }

  @Test func aControllerThatRestartsIsBroughtUpAgain() throws {
    var twin = try Twins.frame(Repo.board("sim-grid-frame"))
    try twin.frontEnd.start()
    try twin.run(frames: 10)
    twin.hardware.frameController?.brownout(at: twin.clock.now_ns)
    var invalid = 0
    try twin.run(frames: 50) { t in
      if !t.frame.valid { invalid += 1 }
      return invalid == 0 || !t.frame.valid
    }
    #expect(twin.frame.valid)
    #expect(invalid == 1)
    #expect(twin.frontEnd.health.reinitialisations == 1)
    #expect(twin.notices().first?.hasPrefix("sim address 0x28 (frame controller): reset detected (STATUS 0x04)") == true)
  }

  @Test func lostFramesAreCountedFromTheSequence() throws {
    var twin = try Twins.frame(Repo.board("sim-grid-frame"))
    try twin.frontEnd.start()
    try twin.run(frames: 5)
    #expect(twin.frontEnd.health.missedFrames == 0)
    twin.clock.advance(by: 10_000_000)  // 5 frames at 500 Hz go by unread
    try twin.run(frames: 1)
    let missed = twin.frontEnd.health.missedFrames
    #expect(missed == 4 || missed == 5)
    #expect(twin.frame.valid)
  }

  @Test func aCellFaultMarksFramesInvalid() throws {
    var twin = try Twins.frame(Repo.board("sim-grid-frame"))
    try twin.frontEnd.start()
    try twin.run(frames: 5)
    twin.hardware.frameController?.cellFault = true
    try twin.run(frames: 3)
    #expect(!twin.frame.valid)
    #expect(twin.notices() == ["sim address 0x28 (frame controller): a cell's converter failed (STATUS.CELL_FAULT); frames invalid"])
    twin.hardware.frameController?.cellFault = false
    try twin.run(frames: 2)
    #expect(twin.frame.valid)
  }

  /// A data-ready line that fires whether or not there is a frame (a
  /// spurious edge every time): the frame read again has the last
  /// sequence number, so it is not delivered as new; STATUS.READY is
  /// polled for the real one.
  @Test func aRepeatedFrameIsNotANewFrame() throws {
    struct AlwaysReady: DataReady {
      mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool { true }
    }
    let board = try Repo.board("sim-grid-frame")
    let (c, hw) = try Twins.hardware(board)
    var fe = FrameFrontEnd(configuration: c, bus: hw.bus, clock: hw.clock, lines: [AlwaysReady()], options: RunOptions(speed: 0))
    try fe.start()
    var frame = RawFrame(cellCount: board.cellCount)
    _ = try fe.next(into: &frame)
    var sequences: [UInt16] = []
    for _ in 0..<20 {
      _ = try fe.next(into: &frame)
      #expect(frame.valid)
      sequences.append(try #require(fe.lastSequence))
    }
    // Each delivered frame is the next one the controller made.
    #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    #expect(fe.health.staleResults > 0)
    #expect(fe.health.missedFrames == 0)
  }

  /// A DRDY line that gives no edge: after the timeout STATUS.READY says
  /// a frame is there, and it is read (`lateReady`), not counted stuck.
  @Test func aFrameTheLineMissedIsFoundByStatusReady() throws {
    let board = try Repo.board("sim-grid-frame")
    let (c, hw) = try Twins.hardware(board)
    var fe = FrameFrontEnd(
      configuration: c, bus: hw.bus, clock: hw.clock, lines: [SilentLine(clock: hw.clock)], options: RunOptions(speed: 0))
    try fe.start()
    var frame = RawFrame(cellCount: board.cellCount)
    for _ in 0..<5 {
      _ = try fe.next(into: &frame)
      #expect(frame.valid)
    }
    #expect(fe.health.lateReady == 5)
    #expect(fe.condition.isReady)
    #expect(fe.takeNotice() == nil)
  }

  @Test func aControllerWithOtherCellsIsRefused() throws {
    let board = try Twins.board(cells: 2, frontEnd: "kind = \"frame\"\nbus = \"sim\"")
    var twin = try Twins.frame(board)
    let other = SimulatedFrameController(address: 0x28, signals: nil, cellCount: 3)
    twin.hardware.bus.segment.detach(0x28)
    twin.hardware.bus.attach(other)
    #expect(throws: FrontEndError.setup("sim address 0x28 (frame controller): the controller has 3 cells, the board 2")) {
      try twin.frontEnd.start()
    }
  }
}
