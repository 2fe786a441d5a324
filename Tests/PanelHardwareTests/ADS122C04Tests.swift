import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

@Suite struct ADS122C04Tests {
  @Test func crc16IsCCITTFalse() {
    #expect(CRC16.checksum(Array("123456789".utf8)) == 0x29B1)
    #expect(CRC16.checksum([]) == 0xFFFF)
  }

  @Test func registersPackAsTheDatasheetSays() {
    let (r0, r1, r2, r3) = ADS122C04.registers(ADS122C04Settings())
    #expect(r0.rawValue == 0x0E)  // AIN0-AIN1, gain 128, PGA on
    #expect(r1.rawValue == 0xAA)  // 600 SPS, normal, continuous, REFP/REFN
    #expect(r2.rawValue == 0x60)  // DCNT, CRC-16
    #expect(r3.rawValue == 0x00)
    #expect(ADS122C04.Command.readRegister(2) == 0x28)
    #expect(ADS122C04.Command.writeRegister(3) == 0x4C)
    #expect(ADS122C04.rateSetting(samplesPerSecond: 2000, turbo: true) == 6)
    #expect(ADS122C04.rateSetting(samplesPerSecond: 2000, turbo: false) == nil)
    #expect(ADS122C04.rateSetting(samplesPerSecond: 45, turbo: false) == 1)
  }

  static func bench(_ address: I2CAddress = 0x45) -> (SimulatedI2CBus, SimulatedADS122C04, ADS122C04) {
    let bus = SimulatedI2CBus(timing: I2CBusTiming(khz: 1000, hostOverhead_us: 0))
    let chip = SimulatedADS122C04(address: address)
    bus.attach(chip)
    return (bus, chip, ADS122C04(address: address))
  }

  @Test func theSimulationDecodesCommandsAndConverts() throws {
    let (bus, chip, ads) = Self.bench()
    var b = bus
    chip.fixedInput = (-123_456, 0)
    #expect(try ads.read(ADS122C04.Config1.self, on: &b).rawValue == 0)
    var settings = ADS122C04Settings()
    settings.rateCode = 6  // 1000 SPS
    try ads.configure(settings, on: &b)
    #expect(try ads.isConfigured(settings, on: &b))
    #expect(try !ads.isDataReady(on: &b))
    try ads.send(ADS122C04.Command.start, on: &b)
    bus.clock.advance(by: 1_000_000)
    #expect(try ads.isDataReady(on: &b))
    let first = try ads.readResult(counter: true, crc: true, on: &b)
    #expect(first == .init(value: -123_456, counter: 1, intact: true))
    #expect(try !ads.isDataReady(on: &b))  // RDATA cleared DRDY
    bus.clock.advance(by: 3_000_000)
    #expect(try ads.readResult(counter: true, crc: true, on: &b).counter == 4)
    // A configuration write restarts the conversion in progress.
    bus.clock.advance(by: 500_000)
    settings.gain = .x64
    try ads.configure(settings, on: &b)
    bus.clock.advance(by: 700_000)
    #expect(try !ads.isDataReady(on: &b))
    bus.clock.advance(by: 400_000)
    #expect(try ads.readResult(counter: true, crc: true, on: &b).value == -61_728)
    // POWERDOWN keeps the registers, stops converting.
    try ads.send(ADS122C04.Command.powerDown, on: &b)
    bus.clock.advance(by: 5_000_000)
    #expect(try !ads.isDataReady(on: &b))
    #expect(try ads.isConfigured(settings, on: &b))
    // The general-call reset (address 0x00, byte 0x06) resets every chip.
    try RegisterIO.write(byte: 0x06, at: 0x00, on: &b)
    #expect(chip.registers == [0, 0, 0, 0])
  }

  @Test func registerReadsCarryTheCRCToo() throws {
    let (bus, _, ads) = Self.bench()
    var b = bus
    try ads.configure(ADS122C04Settings(), on: &b)
    var r = [UInt8](repeating: 0, count: 3)
    try r.withUnsafeMutableBytes { try RegisterIO.read(ADS122C04.Command.readRegister(1), into: $0, at: 0x45, on: &b) }
    #expect(r[0] == 0xAA)
    #expect(UInt16(r[1]) << 8 | UInt16(r[2]) == CRC16.checksum([0xAA]))
    // The driver reads the value alone.
    #expect(try ads.read(ADS122C04.Config1.self, on: &b).rawValue == 0xAA)
  }

  @Test func temperatureModeGives14BitsAt1Over32Degree() throws {
    let (bus, chip, ads) = Self.bench()
    var b = bus
    chip.fixedTemperature = 27.5
    var r1 = ADS122C04.Config1()
    r1.continuous = true
    r1.temperatureSensor = true
    try ads.write(r1, on: &b)
    try ads.send(ADS122C04.Command.start, on: &b)
    bus.clock.advance(by: 60_000_000)
    let value = try ads.readResult(counter: false, crc: false, on: &b).value
    #expect(value >> 10 == 880)  // 27.5 / 0.03125
  }

  @Test func aCorruptedResultFailsItsCRC() throws {
    let (bus, chip, ads) = Self.bench()
    var b = bus
    chip.fixedInput = (1000, 0)
    try ads.configure(ADS122C04Settings(), on: &b)
    try ads.send(ADS122C04.Command.start, on: &b)
    bus.clock.advance(by: 2_000_000)
    bus.inject(.corruptRead(index: 2, mask: 0x10), at: 0x45)
    let bad = try ads.readResult(counter: true, crc: true, on: &b)
    #expect(!bad.intact)
    // The same result read again (RDATA latches it again) is intact.
    #expect(try ads.readResult(counter: true, crc: true, on: &b).intact)
  }

  @Test func bringUpAndAFrameWithCRCAreExactTraffic() throws {
    var twin = try Twins.ads122c04(Repo.board("sim-plate4-ads122c04"))
    twin.bus.isTracing = true
    try twin.frontEnd.start()
    let a: I2CAddress = 0x40
    let bringUp: [I2CTransferEvent] = [
      .write(a, [0x06]),  // RESET
      .write(a, [0x40, 0x0E]),  // WREG 0: AIN0-AIN1, gain 128
      .write(a, [0x44, 0xAA]),  // WREG 1: 600 SPS, continuous, REFP/REFN
      .write(a, [0x48, 0x60]),  // WREG 2: DCNT, CRC-16
      .write(a, [0x4C, 0x00]),  // WREG 3
      .writeRead(a, [0x20], [0x0E]),  // RREG 0..2: read back
      .writeRead(a, [0x24], [0xAA]),
      .writeRead(a, [0x28], [0x60]),
      .write(a, [0x08]),  // START/SYNC
    ]
    // The four chips are brought up side by side; chip 0x40's own traffic:
    let own = twin.bus.trace.filter {
      switch $0 {
      case .write(let to, _), .writeRead(let to, _, _): to == a
      default: false
      }
    }
    #expect(Array(own.prefix(bringUp.count)) == bringUp)
    try twin.run(frames: 5)
    twin.bus.clearTrace()
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    #expect(twin.bus.trace.count == 4)
    for (i, address) in [0x40, 0x41, 0x44, 0x45].enumerated() {
      guard case .writeRead(let to, [0x10], let r) = twin.bus.trace[i] else {
        Issue.record("\(twin.bus.trace[i])")
        continue
      }
      #expect(to == I2CAddress(UInt8(address)))
      #expect(r.count == 6)
      #expect(Array(r[1...3]) == I2CTransferEvent.bytes24(twin.frame.counts[i]))
      #expect(UInt16(r[4]) << 8 | UInt16(r[5]) == CRC16.checksum(Array(r[0...3])))
      #expect(r[0] == UInt8(truncatingIfNeeded: twin.hardware.ads122c04s[i].counter))
    }
  }

  @Test func aCRCErrorIsRetriedThenTheChipIsReported() throws {
    var twin = try Twins.ads122c04(Repo.board("sim-plate4-ads122c04"))
    try twin.frontEnd.start()
    try twin.run(frames: 10)
    let before = twin.frontEnd.health
    twin.bus.inject(.corruptRead(index: 3, mask: 0x01), at: 0x44, count: 1)
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(twin.frame.valid)
    #expect(twin.frontEnd.health.retries == before.retries + 1)
    #expect(twin.frontEnd.health.busErrors == before.busErrors + 1)
    // Corrupt every time: after the retries the frame is invalid and the chip named.
    twin.bus.inject(.corruptRead(index: 3, mask: 0x01), at: 0x44, count: .max)
    #expect(try twin.frontEnd.next(into: &twin.frame))
    #expect(!twin.frame.valid)
    #expect(twin.notices() == ["sim address 0x44 (ADS122C04): results fail their CRC check; its frames are marked invalid"])
    twin.bus.clearFaults()
    try twin.run(frames: 1000) { !$0.frame.valid }
    #expect(twin.frame.valid)
  }

  @Test func missedConversionsAreCountedFromTheCounter() throws {
    var twin = try Twins.ads122c04(Repo.board("sim-plate4-ads122c04"))
    try twin.frontEnd.start()
    try twin.run(frames: 10)
    #expect(twin.frontEnd.health.missedFrames == 0)
    twin.clock.advance(by: 10_000_000)  // the host looks away for 10 ms: 6 conversions
    try twin.run(frames: 1)
    #expect(twin.frontEnd.health.missedFrames >= 4 * 5)
    #expect(twin.frame.valid)
  }

  @Test func aChipThatResetsMidStreamIsReinitialised() throws {
    var twin = try Twins.ads122c04(Repo.board("sim-plate4-ads122c04"))
    try twin.frontEnd.start()
    try twin.run(frames: 20)
    twin.hardware.ads122c04s[2].brownout(at: twin.clock.now_ns)
    var invalid = 0
    try twin.run(frames: 100) { t in
      if !t.frame.valid { invalid += 1 }
      return invalid == 0 || !t.frame.valid
    }
    #expect(twin.frame.valid)
    #expect(invalid >= 1 && invalid < 5)
    #expect(twin.frontEnd.health.reinitialisations == 1)
    #expect(twin.notices().first == "sim address 0x44 (ADS122C04): reset detected (register 1 0x00); re-initialising, frames invalid meanwhile")
  }

  @Test func anAddressThatNACKsIsNamed() throws {
    var twin = try Twins.ads122c04(Repo.board("sim-plate4-ads122c04"))
    twin.hardware.bus.segment.detach(0x41)
    #expect(throws: FrontEndError.chip("sim address 0x41 (ADS122C04)", .nack(0x41))) { try twin.frontEnd.start() }
  }
}
