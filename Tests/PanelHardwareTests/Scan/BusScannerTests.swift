import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

extension RegisterFileDevice {
  /// A chip whose simulation is not in the tree: `size` registers, zero
  /// but for `registers` (index: reset value).
  convenience init(address: I2CAddress, registers: [Int: UInt8], size: Int = 32) {
    var file = [UInt8](repeating: 0, count: size)
    for (r, v) in registers { file[r] = v }
    self.init(address: address, registers: file)
  }
}

/// `panelctl scan`'s engine on the simulated bus: what answers, what it
/// looks like, behind a TCA9548A channel, and the exact traffic it makes.
@Suite struct BusScannerTests {
  /// A bench: an EEPROM at 0x50 and a switch at 0x70 on the main bus, a
  /// simulated NAU7802 on channel 2.
  static func bench() -> (SimulatedI2CBus, SimulatedTCA9548A) {
    let bus = SimulatedI2CBus()
    let mux = SimulatedTCA9548A(address: 0x70)
    bus.attach(SimulatedEEPROM(kind: .c02, address: 0x50))
    bus.attach(mux)
    mux.attach(SimulatedNAU7802(signals: nil, cell: nil), channel: 2)
    return (bus, mux)
  }

  static func found(_ scan: BusScan) -> [String] {
    scan.found.map { "\($0.address) \($0.identity.map { $0.kind.rawValue + " " + $0.evidence } ?? "?")" }
  }

  @Test func theMainSegmentShowsTheSwitchAndTheEEPROM() throws {
    var (bus, _) = Self.bench()
    let scan = try BusScanner.scan(&bus)
    #expect(scan.range == 0x08...0x77)
    #expect(Self.found(scan) == ["0x50 24Cxx EEPROM reads 0xff", "0x70 TCA9548A control 0x00 (no channel)"])
    #expect(scan.result(at: 0x2a) == .absent, "behind a channel that is off")
  }

  @Test func behindAChannelTheADCAnswersAndTheSwitchIsRestored() throws {
    var (bus, mux) = Self.bench()
    let scan = try BusScanner.scan(&bus, behind: MuxChannel(mux: 0x70, channel: 2))
    #expect(
      Self.found(scan) == [
        "0x2a NAU7802 REV_ID 0x0f", "0x50 24Cxx EEPROM reads 0xff", "0x70 TCA9548A control 0x04 (channel 2)",
      ])
    #expect(mux.control == 0x00, "the selection before the scan is put back")
  }

  @Test func probingAnADCIsAReadThenItsRevisionRegister() throws {
    var (bus, _) = Self.bench()
    try TCA9548A(address: 0x70).select(channel: 2, on: &bus)
    bus.isTracing = true
    _ = BusScanner.probe(0x2a, on: &bus)
    _ = BusScanner.probe(0x2b, on: &bus)
    bus.isTracing = false
    #expect(bus.trace == [.read(0x2a, [0x00]), .writeRead(0x2a, [0x1f], [0x0f]), .nack(0x2b)])
  }

  @Test func selectingTheChannelIsItsOwnTransferBeforeTheProbes() throws {
    var (bus, _) = Self.bench()
    bus.isTracing = true
    _ = try BusScanner.scan(&bus, range: 0x08...0x08, behind: MuxChannel(mux: 0x70, channel: 5))
    #expect(
      bus.trace == [
        .read(0x70, [0x00]), .write(0x70, [0x20]), .read(0x70, [0x20]),  // select channel 5, check
        .nack(0x08),  // the probe
        .write(0x70, [0x00]),  // restore
      ])
  }

  @Test func aChipThatIsNotOneOfOursAnswersUnnamed() throws {
    let bus0 = SimulatedI2CBus()
    bus0.attach(RegisterFileDevice(address: 0x33, registers: [:]))
    // At 0x2a a REV_ID whose low nibble is not 0xF is still a NAU7802
    // (cold power-up), with a note in the listing.
    bus0.attach(RegisterFileDevice(address: 0x2a, registers: [0x1f: 0x21]))
    var bus = bus0
    let scan = try BusScanner.scan(&bus)
    #expect(Self.found(scan) == ["0x2a NAU7802 REV_ID 0x21", "0x33 ?"])
    #expect(
      ScanTable.listing(scan).hasPrefix(
        "0x2a  NAU7802       REV_ID 0x21 (low nibble not 0xf, as a NAU7802 may read just after a cold power-up"))
  }

  @Test func anADS122C04IsToldByItsRegisters() throws {
    // RREG n is command 0x20 | n << 2: a register file indexed by command.
    let bus0 = SimulatedI2CBus()
    bus0.attach(RegisterFileDevice(address: 0x45, registers: [0x20: 0x08, 0x24: 0x04, 0x28: 0x00, 0x2c: 0x00], size: 64))
    var bus = bus0
    let scan = try BusScanner.scan(&bus, range: 0x40...0x4f)
    #expect(Self.found(scan) == ["0x45 ADS122C04 config 0x08 0x04 0x00 0x00"])
  }

  @Test func aSwitchThatDoesNotAnswerIsNamed() {
    var bus = SimulatedI2CBus()
    #expect(throws: BusScanError.mux(MuxChannel(mux: 0x71, channel: 3), .nack(0x71))) {
      try BusScanner.scan(&bus, behind: MuxChannel(mux: 0x71, channel: 3))
    }
    #expect(
      BusScanError.mux(MuxChannel(mux: 0x71, channel: 3), .nack(0x71)).description
        == "no answer from the TCA9548A at 0x71 (selecting channel 3)")
  }

  @Test func aStuckAddressAndADriverClaimAreShownApart() throws {
    var (bus, _) = Self.bench()
    bus.inject(.timeout, at: 0x33, count: Int.max)
    let scan = try BusScanner.scan(&bus, range: 0x30...0x57) { $0 == 0x48 }
    #expect(scan.result(at: 0x33) == .failed(.timeout(0x33)))
    #expect(scan.result(at: 0x48) == .claimed)
    #expect(
      ScanTable.grid(scan) == """
             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f
        30: -- -- -- !! -- -- -- -- -- -- -- -- -- -- -- --
        40: -- -- -- -- -- -- -- -- UU -- -- -- -- -- -- --
        50: 50 -- -- -- -- -- -- --

        """)
    #expect(
      ScanTable.listing(scan) == """
        0x33  !!            transfer to 0x33 timed out
        0x48  UU            in use by a kernel driver
        0x50  24Cxx EEPROM  reads 0xff

        """)
  }

  @Test func theGridLeavesAddressesOutsideTheRangeBlank() throws {
    var (bus, _) = Self.bench()
    let scan = try BusScanner.scan(&bus, range: 0x4e...0x51)
    #expect(
      ScanTable.grid(scan) == """
             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f
        40:                                           -- --
        50: 50 -- 

        """.replacingOccurrences(of: "-- \n", with: "--\n"))
  }
}
