import PanelFirmware
import Testing

@testable import PanelHardware
@testable import PanelSimulation

@Suite struct EEPROMTests {
  static func bench(_ kind: EEPROM24.Kind) -> (SimulatedI2CBus, SimulatedEEPROM, EEPROM24) {
    let bus = SimulatedI2CBus(timing: I2CBusTiming(khz: 400, hostOverhead_us: 50))
    let chip = SimulatedEEPROM(kind: kind, address: 0x50)
    bus.attach(chip)
    return (bus, chip, EEPROM24(kind: kind, address: 0x50))
  }

  @Test(arguments: EEPROM24.Kind.allCases)
  func writesAcrossPagesAndReadsBack(_ kind: EEPROM24.Kind) throws {
    let (bus, chip, eeprom) = Self.bench(kind)
    var b = bus
    var clock = bus.clock
    let data = (0..<70).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    let offset = kind.pageSize - 3  // starts 3 bytes before a page boundary
    try eeprom.write(data, at: offset, on: &b, clock: &clock)
    #expect(Array(chip.memory[offset..<(offset + 70)]) == data)
    #expect(chip.memory[offset - 1] == 0xFF && chip.memory[offset + 70] == 0xFF)
    #expect(try eeprom.read(at: offset, count: 70, on: &b) == data)
    // 3 bytes, then full pages, then the rest: one write cycle each.
    let pages = 1 + (70 - 3 + kind.pageSize - 1) / kind.pageSize
    #expect(chip.pageWrites == pages)
  }

  @Test func theWriteTrafficIsPageWriteThenAckPolling() throws {
    let (bus, _, eeprom) = Self.bench(.c32)
    var b = bus
    var clock = bus.clock
    bus.isTracing = true
    try eeprom.write([1, 2, 3], at: 0x123, on: &b, clock: &clock)
    // 24C32: two address bytes, then the data; the chip NACKs while it
    // programs (tWR 5 ms), then acknowledges an empty write.
    #expect(bus.trace.first == .write(0x50, [0x01, 0x23, 1, 2, 3]))
    #expect(bus.trace.last == .write(0x50, []))
    let polls = bus.trace.dropFirst().dropLast()
    #expect(!polls.isEmpty && polls.allSatisfy { $0 == .nack(0x50) })
    #expect(bus.clock.now_ns >= 5_000_000)
    bus.clearTrace()
    _ = try eeprom.read(at: 0x123, count: 2, on: &b)
    #expect(bus.trace == [.writeRead(0x50, [0x01, 0x23], [1, 2])])
  }

  @Test func aWriteRunningPastAPageEndWrapsInsideThePage() throws {
    // The chip itself (not the driver, which never does this).
    let (bus, chip, _) = Self.bench(.c02)
    let b = bus
    try [UInt8]([0x06, 0xA, 0xB, 0xC, 0xD]).withUnsafeBytes { try b.write($0, to: 0x50) }
    bus.clock.advance(by: 6_000_000)
    #expect(chip.isBusy(at: bus.clock.now_ns) == false)
    #expect(Array(chip.memory[0..<8]) == [0xC, 0xD, 0xFF, 0xFF, 0xFF, 0xFF, 0xA, 0xB])
  }

  @Test func aBusyChipIsWaitedForBeforeTheNextPage() throws {
    let (bus, chip, eeprom) = Self.bench(.c02)
    var b = bus
    var clock = bus.clock
    // Start a write cycle behind the driver's back.
    try [UInt8]([0x40, 0x99]).withUnsafeBytes { try b.write($0, to: 0x50) }
    #expect(chip.isBusy(at: bus.clock.now_ns))
    try eeprom.write([7, 8], at: 0x10, on: &b, clock: &clock)
    #expect(chip.memory[0x40] == 0x99)
    #expect(Array(chip.memory[0x10..<0x12]) == [7, 8])
  }

  @Test(arguments: [0, 1, 5, 8, 9, 31, 32, 33, 60])
  func powerLossCutsAWriteAtAnyByte(_ cut: Int) throws {
    let (bus, chip, eeprom) = Self.bench(.c32)
    var b = bus
    var clock = bus.clock
    let data = (0..<64).map { UInt8($0 + 100) }
    chip.cutPower(afterDataBytes: cut)
    #expect(throws: EEPROMError.self) { try eeprom.write(data, at: 0, on: &b, clock: &clock) }
    // Whole pages before the cut are programmed; the page it hit is not.
    let committed = cut / 32 * 32
    #expect(Array(chip.memory[0..<committed]) == Array(data[0..<committed]))
    #expect(chip.memory[committed..<64].allSatisfy { $0 == 0xFF })
    chip.restorePower()
    #expect(try eeprom.read(at: 0, count: 64, on: &b) == Array(chip.memory[0..<64]))
  }

  @Test func powerLossDuringTheWriteCycleLeavesAPartPageAndACorruptByte() throws {
    let (bus, chip, _) = Self.bench(.c02)
    var b = bus
    try [UInt8]([0x00, 1, 2, 3, 4, 5, 6, 7, 8]).withUnsafeBytes { try b.write($0, to: 0x50) }
    chip.cutPower(at: bus.clock.now_ns + 2_600_000)  // just past half of tWR
    #expect(Array(chip.memory[0..<4]) == [1, 2, 3, 4])
    #expect(chip.memory[4] != 5 && chip.memory[4] != 0xFF)
    #expect(chip.memory[5..<8].allSatisfy { $0 == 0xFF })
    #expect(throws: I2CError.nack(0x50)) { try RegisterIO.read(0, at: 0x50, on: &b) }
  }

  @Test func aChipThatNeverFinishesTimesOut() throws {
    let (bus, chip, eeprom) = Self.bench(.c02)
    chip.writeCycle_ns = 1_000_000_000
    var b = bus
    var clock = bus.clock
    #expect(throws: EEPROMError.writeCycleTimeout(0x50, timeout_us: 20_000)) {
      try eeprom.write([1], at: 0, on: &b, clock: &clock)
    }
  }

  @Test func rangesAreChecked() throws {
    let (bus, _, eeprom) = Self.bench(.c02)
    var b = bus
    #expect(throws: EEPROMError.outOfRange(offset: 250, count: 10, size: 256)) {
      _ = try eeprom.read(at: 250, count: 10, on: &b)
    }
  }
}
