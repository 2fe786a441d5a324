/// The chips the project drives, as a bus scan recognises them.
public enum ChipKind: String, Sendable, CaseIterable {
  /// Nuvoton NAU7802 bridge ADC: fixed address 0x2a, REV_ID (0x1F) low
  /// nibble 0xF.
  case nau7802 = "NAU7802"
  /// TI TCA9548A 8-channel switch: 0x70...0x77, one readable control register.
  case tca9548a = "TCA9548A"
  /// TI ADS122C04 bridge ADC: 0x40...0x4F, four registers read with RREG.
  case ads122c04 = "ADS122C04"
  /// 24C02/24C32 EEPROM: 0x50...0x57.
  case eeprom = "24Cxx EEPROM"

  /// The addresses the chip can be strapped to.
  public var addresses: ClosedRange<UInt8> {
    switch self {
    case .nau7802: return 0x2A...0x2A
    case .tca9548a: return 0x70...0x77
    case .ads122c04: return 0x40...0x4F
    case .eeprom: return 0x50...0x57
    }
  }

  /// The kinds that may sit at `address`.
  public static func candidates(at address: I2CAddress) -> [ChipKind] {
    allCases.filter { $0.addresses.contains(address.rawValue) }
  }
}

/// What a chip that answered looks like: its kind, the register values
/// that said so ("REV_ID 0x0f"), and a note when they are not quite what
/// the datasheet says but a known state of the chip explains them.
public struct ChipIdentity: Equatable, Sendable {
  public var kind: ChipKind
  public var evidence: String
  public var note: String?
  public init(kind: ChipKind, evidence: String, note: String? = nil) {
    self.kind = kind
    self.evidence = evidence
    self.note = note
  }

  /// The evidence, and the note in parentheses.
  public var summary: String { note.map { evidence + " (" + $0 + ")" } ?? evidence }
}

/// Register reads that tell the project's chips apart. Each reads only;
/// the TCA9548A check writes its control register back with the value it
/// read, which changes nothing.
public enum ChipIdentifier {
  /// The first kind whose registers fit what `address` answers, or nil.
  public static func identify<Bus: I2CBus>(_ address: I2CAddress, on bus: inout Bus) -> ChipIdentity? {
    for kind in ChipKind.candidates(at: address) {
      if let found = check(kind, address, on: &bus) { return found }
    }
    return nil
  }

  static func check<Bus: I2CBus>(_ kind: ChipKind, _ address: I2CAddress, on bus: inout Bus) -> ChipIdentity? {
    do throws(I2CError) {
      switch kind {
      case .nau7802:
        // REV_ID (0x1F): the revision code in the low nibble reads 0xF,
        // except that it has been seen not to right after a cold power-up
        // (Adafruit_NAU7802 #5): still a NAU7802 at its only address, with
        // a note.
        let rev = try RegisterIO.read(0x1F, at: address, on: &bus)
        guard rev & 0x0F == 0x0F else {
          return ChipIdentity(
            kind: kind, evidence: "REV_ID " + hex(rev),
            note: "low nibble not 0xf, as a NAU7802 may read just after a cold power-up; scan again to be sure")
        }
        return ChipIdentity(kind: kind, evidence: "REV_ID " + hex(rev))
      case .tca9548a:
        // The control register reads back what was written (applied at STOP).
        let mux = TCA9548A(address: address)
        let control = try mux.selection(on: &bus)
        try mux.select(mask: control, on: &bus)
        guard try mux.selection(on: &bus) == control else { return nil }
        return ChipIdentity(kind: kind, evidence: "control " + hex(control) + channels(control))
      case .ads122c04:
        // RREG (0x20 | r << 2) of the four configuration registers; bits
        // 1:0 of register 3 are reserved and read 0.
        var r: [UInt8] = []
        for n in 0..<4 as Range<UInt8> { r.append(try RegisterIO.read(0x20 | n << 2, at: address, on: &bus)) }
        guard r[3] & 0x03 == 0 else { return nil }
        return ChipIdentity(kind: kind, evidence: "config " + r.map(hex).joined(separator: " "))
      case .eeprom:
        // Any byte-readable device at 0x50...0x57; the read only moves the
        // EEPROM's address counter.
        let first = try ScanIO.readByte(at: address, on: &bus)
        return ChipIdentity(kind: kind, evidence: "reads " + hex(first))
      }
    } catch {
      return nil
    }
  }

  static func channels(_ control: UInt8) -> String {
    let on = (0..<8).filter { control & (1 << $0) != 0 }
    if on.isEmpty { return " (no channel)" }
    return " (channel " + on.map(String.init).joined(separator: ",") + ")"
  }

  static func hex(_ v: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x" + String(digits[Int(v >> 4)]) + String(digits[Int(v & 15)])
  }
}
