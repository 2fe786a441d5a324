import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

@Suite struct SimulatedBusTests {
  @Test func theTimingModelMatchesTheBudgetArithmetic() {
    // adc-calibration.md section 5: 3-byte register read = 57 bit times.
    #expect(I2CBusTiming.bitTimes(writing: 1, reading: 3) == 57)
    #expect(I2CBusTiming.bitTimes(writing: 1, reading: 1) == 39)
    #expect(I2CBusTiming.bitTimes(writing: 2) == 29)
    #expect(I2CBusTiming.bitTimes(writing: 1) == 20)
    let fast = I2CBusTiming(khz: 400, hostOverhead_us: 0)
    #expect(fast.wire_ns(bitTimes: 57) == 142_500)
    #expect(I2CBusTiming(khz: 100).wire_ns(bitTimes: 57) == 570_000)
    #expect(I2CBusTiming(khz: 1000).wire_ns(bitTimes: 57) == 57_000)
    #expect(fast.tBUF_ns == 1_300)
    #expect(I2CBusTiming(khz: 100).tBUF_ns == 4_700)
    #expect(I2CBusTiming(khz: 1000).tBUF_ns == 500)
  }

  @Test func aTransferAdvancesTheClockByOverheadWireAndTBUF() throws {
    let bus = SimulatedI2CBus(timing: I2CBusTiming(khz: 400, hostOverhead_us: 200))
    let chip = RegisterFileDevice(address: 0x2A)
    bus.attach(chip)
    var b = bus
    var out = [UInt8](repeating: 0, count: 3)
    try out.withUnsafeMutableBytes { try RegisterIO.read(0x04, into: $0, at: 0x2A, on: &b) }
    #expect(out == [4, 5, 6])
    #expect(bus.clock.now_ns == 200_000 + 142_500 + 1_300)
    // The chip saw the repeated START after address, pointer and Sr: 1+9+9+1+9 bits.
    #expect(chip.starts.map(\.reading) == [false, true])
    #expect(chip.starts[1].ns == 200_000 + 29 * 2_500)
    #expect(chip.stops == [200_000 + 142_500])
    #expect(bus.statistics.bitTimes == 57)
  }

  @Test func theTraceRecordsTheExactTraffic() throws {
    let bus = SimulatedI2CBus()
    bus.attach(RegisterFileDevice(address: 0x2A))
    bus.isTracing = true
    var b = bus
    try RegisterIO.write(0x01, 0xAB, at: 0x2A, on: &b)
    #expect(try RegisterIO.read(0x01, at: 0x2A, on: &b) == 0xAB)
    #expect(throws: I2CError.nack(0x2B)) { try RegisterIO.write(byte: 0, at: 0x2B, on: &b) }
    #expect(
      bus.trace == [
        .write(0x2A, [0x01, 0xAB]), .writeRead(0x2A, [0x01], [0xAB]), .nack(0x2B),
      ])
    #expect(bus.statistics.nacks == 1)
  }

  @Test func aBusyDeviceIsNotAcknowledged() {
    let bus = SimulatedI2CBus()
    let chip = RegisterFileDevice(address: 0x2A)
    chip.acknowledges = false
    bus.attach(chip)
    var b = bus
    #expect(throws: I2CError.nack(0x2A)) { try RegisterIO.read(0, at: 0x2A, on: &b) }
    #expect(chip.stops.count == 1)
  }

  @Test func muxChannelsConnectOnlyAfterTheirStop() throws {
    let bus = SimulatedI2CBus()
    let mux = SimulatedTCA9548A(address: 0x70)
    bus.attach(mux)
    let a = RegisterFileDevice(address: 0x2A, registers: [0xA0, 0xA1])
    let c = RegisterFileDevice(address: 0x2A, registers: [0xC0, 0xC1])
    mux.attach(a, channel: 0)
    mux.attach(c, channel: 2)
    bus.isTracing = true
    var b = bus
    let driver = TCA9548A(address: 0x70)
    // Nothing connected at power-on.
    #expect(throws: I2CError.nack(0x2A)) { try RegisterIO.read(0, at: 0x2A, on: &b) }
    try driver.select(channel: 0, on: &b)
    #expect(try RegisterIO.read(1, at: 0x2A, on: &b) == 0xA1)
    try driver.select(channel: 2, on: &b)
    #expect(try RegisterIO.read(1, at: 0x2A, on: &b) == 0xC1)
    #expect(try driver.selection(on: &b) == 0x04)
    #expect(
      bus.trace == [
        .nack(0x2A), .write(0x70, [0x01]), .writeRead(0x2A, [0x01], [0xA1]), .write(0x70, [0x04]),
        .writeRead(0x2A, [0x01], [0xC1]), .read(0x70, [0x04]),
      ])
  }

  @Test func aSelectInsideACombinedTransferIsNotYetActive() throws {
    // Write the control register then, with a repeated start, read it back:
    // the read still sees the old selection, the STOP applies the new one.
    let bus = SimulatedI2CBus()
    let mux = SimulatedTCA9548A(address: 0x71)
    bus.attach(mux)
    var b = bus
    var value: UInt8 = 0
    var select: UInt8 = 0x08
    try withUnsafeBytes(of: &select) { w in
      try withUnsafeMutableBytes(of: &value) { r in try b.writeRead(w, into: r, address: 0x71) }
    }
    #expect(value == 0x00)
    #expect(mux.control == 0x08)
    // Several bytes in one write: the last wins.
    try [UInt8]([0x01, 0x02, 0x80]).withUnsafeBytes { try b.write($0, to: 0x71) }
    #expect(mux.control == 0x80)
  }

  @Test func severalChannelsBroadcastWritesAndWireAndReads() throws {
    let bus = SimulatedI2CBus()
    let mux = SimulatedTCA9548A()
    bus.attach(mux)
    let a = RegisterFileDevice(address: 0x2A, registers: [0b1100, 0])
    let c = RegisterFileDevice(address: 0x2A, registers: [0b1010, 0])
    mux.attach(a, channel: 1)
    mux.attach(c, channel: 5)
    var b = bus
    try TCA9548A().select(mask: 0b0010_0010, on: &b)
    try RegisterIO.write(1, 0x5A, at: 0x2A, on: &b)
    #expect(a.registers[1] == 0x5A && c.registers[1] == 0x5A)
    #expect(try RegisterIO.read(0, at: 0x2A, on: &b) == 0b1000)
  }

  @Test func injectedFaultsHitTheRightTransfers() throws {
    let bus = SimulatedI2CBus()
    bus.attach(RegisterFileDevice(address: 0x2A))
    bus.attach(RegisterFileDevice(address: 0x2B))
    bus.isTracing = true
    bus.inject(.nack, at: 0x2A, after: 1, count: 2)
    bus.inject(.timeout, at: 0x2B)
    bus.inject(.corruptRead(index: 0, mask: 0x01), at: 0x2B, after: 1)
    var b = bus
    #expect(try RegisterIO.read(3, at: 0x2A, on: &b) == 3)
    #expect(throws: I2CError.nack(0x2A)) { try RegisterIO.read(3, at: 0x2A, on: &b) }
    #expect(throws: I2CError.nack(0x2A)) { try RegisterIO.read(3, at: 0x2A, on: &b) }
    #expect(try RegisterIO.read(3, at: 0x2A, on: &b) == 3)
    let before = bus.clock.now_ns
    #expect(throws: I2CError.timeout(0x2B)) { try RegisterIO.read(3, at: 0x2B, on: &b) }
    #expect(bus.clock.now_ns - before >= bus.timeout_ns)
    #expect(try RegisterIO.read(3, at: 0x2B, on: &b) == 2)
    #expect(try RegisterIO.read(3, at: 0x2B, on: &b) == 3)
    bus.inject(.busError(errno: 5), count: .max)
    #expect(throws: I2CError.bus(0x2A, errno: 5)) { try RegisterIO.read(3, at: 0x2A, on: &b) }
    #expect(throws: I2CError.bus(0x2B, errno: 5)) { try RegisterIO.read(3, at: 0x2B, on: &b) }
    bus.clearFaults()
    #expect(try RegisterIO.read(3, at: 0x2B, on: &b) == 3)
    #expect(bus.trace.filter { if case .nack = $0 { true } else { false } }.count == 2)
  }

  @Test func aDataReadyLineMovesTheClockToTheEdge() throws {
    /// A pin that asserts at `at` and stays asserted until `release`.
    final class Pin: SimulatedDataReadySource {
      var at: Int64? = 3_000_000
      var edges = 0
      var released: Int64 = -1
      func isDataReady(at ns: Int64) -> Bool { at.map { ns >= $0 } ?? false }
      func dataReadyEdges(at ns: Int64) -> Int { (at.map { ns >= $0 } ?? false) ? edges + 1 : edges }
      func nextDataReady(after ns: Int64) -> Int64? { at.flatMap { $0 > ns ? $0 : nil } }
    }
    let clock = SimulatedClock()
    let pin = Pin()
    var line = SimulatedDataReadyLine(source: pin, clock: clock)
    #expect(try line.wait(timeout_us: 1_000) == false)
    #expect(clock.now_ns == 1_000_000)
    #expect(try line.isAsserted() == false)
    #expect(try line.wait(timeout_us: 5_000) == true)
    #expect(clock.now_ns == 3_000_000)
    // Edge-triggered: a pin that stays asserted gives no second edge.
    #expect(try line.isAsserted() == true)
    #expect(try line.wait(timeout_us: 2_000) == false)
    #expect(clock.now_ns == 5_000_000)
    // Released, and asserted again while nobody waited: the edge is queued.
    pin.edges = 1
    pin.at = 6_000_000
    clock.advance(to: 7_000_000)
    #expect(try line.wait(timeout_us: 0) == true)
    #expect(clock.now_ns == 7_000_000)
  }
}
