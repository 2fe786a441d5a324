import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelHardware
@testable import PanelSimulation

/// `panelctl scan --board`'s engine: a board's chips checked against what
/// answers on a simulated bus wired as the board says.
@Suite struct BoardScannerTests {
  /// sim-plate4-nau7802's wiring on a simulated bus: a TCA9548A at 0x70,
  /// simulated NAU7802s on channels 0...3 except
  /// `missing`, a 24C32 at 0x50.
  static func rig(missing: Set<Int> = []) throws -> (DriverConfiguration, SimulatedI2CBus) {
    let board = try Repo.board("sim-plate4-nau7802")
    let config = try board.driverConfiguration
    let bus = SimulatedI2CBus()
    let mux = SimulatedTCA9548A(address: 0x70)
    bus.attach(mux)
    bus.attach(SimulatedEEPROM(kind: .c32, address: 0x50))
    for channel in 0..<4 where !missing.contains(channel) {
      mux.attach(SimulatedNAU7802(signals: nil, cell: nil), channel: channel)
    }
    return (config, bus)
  }

  @Test func theBoardNamesTheSwitchEachADCAndTheEEPROM() throws {
    let (config, _) = try Self.rig()
    #expect(
      BoardScanner.expected(config).map(\.location.description) == [
        "sim address 0x70 (TCA9548A)",
        "sim mux 0x70 channel 0 address 0x2a (NAU7802)", "sim mux 0x70 channel 1 address 0x2a (NAU7802)",
        "sim mux 0x70 channel 2 address 0x2a (NAU7802)", "sim mux 0x70 channel 3 address 0x2a (NAU7802)",
        "sim address 0x50 (24C32)",
      ])
  }

  @Test func aCompleteBoardPasses() throws {
    var (config, bus) = try Self.rig()
    let report = try BoardScanner.scan(config, on: &bus)
    #expect(report.segments.map { $0.behind?.channel } == [nil, 0, 1, 2, 3])
    #expect(report.problems.isEmpty)
    #expect(report.chips.count == 6)
  }

  @Test func aChipThatDoesNotAnswerIsNamedByBusChannelAndAddress() throws {
    var (config, bus) = try Self.rig(missing: [3])
    let report = try BoardScanner.scan(config, on: &bus, range: 0x2a...0x2a)
    #expect(report.problems.count == 1)
    let p = try #require(report.problems.first)
    #expect(p.status == .missing)
    #expect(BoardScanner.message(p.chip, p.status) == "no answer from sim mux 0x70 channel 3 address 0x2a (NAU7802)")
  }

  @Test func somethingElseAtTheAddressIsAWrongChip() throws {
    var (config, bus) = try Self.rig(missing: [1])
    // A chip at 0x2a on channel 1 that answers a read but no register
    // address: not a NAU7802.
    final class ReadOnlyChip: SimulatedI2CDevice {
      let address: I2CAddress = 0x2a
      func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool { reading }
      func write(_ byte: UInt8, at ns: Int64) -> Bool { false }
      func read(at ns: Int64) -> UInt8 { 0x5a }
      func stop(at ns: Int64) {}
    }
    let mux = bus.segment.devices.compactMap { $0 as? SimulatedTCA9548A }.first!
    mux.attach(ReadOnlyChip(), channel: 1)
    let report = try BoardScanner.scan(config, on: &bus)
    let p = try #require(report.problems.first)
    #expect(p.status == .wrongChip(nil))
    #expect(
      BoardScanner.message(p.chip, p.status)
        == "sim mux 0x70 channel 1 address 0x2a (NAU7802) answers but looks like an unknown chip")
  }

  /// REV_ID's low nibble is 0xF, except right after a cold power-up
  /// (Adafruit_NAU7802 #5): the chip is found, with a note.
  @Test func aNAU7802WithAnOddRevisionIsFoundWithANote() throws {
    var (config, bus) = try Self.rig(missing: [1])
    let mux = bus.segment.devices.compactMap { $0 as? SimulatedTCA9548A }.first!
    mux.attach(RegisterFileDevice(address: 0x2a, registers: [0x1f: 0x42]), channel: 1)
    let report = try BoardScanner.scan(config, on: &bus)
    #expect(report.problems.isEmpty)
    guard case .found(let id?) = report.chips[2].status else {
      Issue.record("channel 1: \(report.chips[2].status)")
      return
    }
    #expect(id.kind == .nau7802)
    #expect(
      id.summary
        == "REV_ID 0x42 (low nibble not 0xf, as a NAU7802 may read just after a cold power-up; scan again to be sure)")
  }

  @Test func aMissingSwitchStopsTheScanNamingIt() throws {
    let (config, _) = try Self.rig()
    var empty = SimulatedI2CBus()
    #expect(throws: BusScanError.mux(MuxChannel(mux: 0x70, channel: 0), .nack(0x70))) {
      try BoardScanner.scan(config, on: &empty)
    }
  }
}
