/// The board file's `[haptics]` table: a haptic driver chip that clicks at
/// the force stages. Absent: no haptics.
public struct HapticsSettings: Sendable, Equatable {
  /// The chip: "drv2605l".
  public var kind = "drv2605l"
  /// The i2c-dev node (`/dev/i2c-1`), or "sim" for a simulated chip.
  public var bus = "sim"
  public var chip = DRV2605LSettings()
  /// ROM library effect played on entering peek (and for the other
  /// peek-level actions: an icon's quick-action menu, a long press).
  /// Default 21, "Medium Click 1 - 100%".
  public var peekEffect: UInt8 = 21
  /// Effect played on entering pop. Default 1, "Strong Click - 100%".
  public var popEffect: UInt8 = 1
  /// Attempts after a failed transfer.
  public var retries = 1
  /// Where `bus` was defined, for errors about the device.
  public var file = ""
  public var busLine: Int?

  public init() {}

  public static let keys = [
    "kind", "bus", "actuator", "library", "rated_voltage", "overdrive_clamp", "peek_effect", "pop_effect", "retries",
  ]

  /// Reads a `[haptics]` table; every problem names the file, line and key.
  public init(table t: TOMLTable) throws(FileError) {
    self.init()
    try t.rejectUnknownKeys(HapticsSettings.keys)
    kind = try t.string("kind")
    if kind != "drv2605l" { throw t.error("kind", "\(Quote.text(kind)) is not a haptic driver this build knows (expected: drv2605l)") }
    bus = try t.string("bus")
    file = t.file
    busLine = t.line(of: "bus")
    if bus != "sim" && !bus.hasPrefix("/dev/") {
      throw t.error("bus", "\(Quote.text(bus)) is neither an i2c-dev node (/dev/i2c-N) nor \"sim\"")
    }
    if let a = try t.optionalString("actuator") {
      guard let actuator = DRV2605LSettings.Actuator(rawValue: a) else {
        throw t.error("actuator", "\(Quote.text(a)) is not one of erm, lra")
      }
      chip.actuator = actuator
      chip.library = actuator == .lra ? 6 : 1
    }
    func byte(_ key: String, _ range: ClosedRange<Int>) throws(FileError) -> UInt8? {
      guard let v = try t.optionalInt(key) else { return nil }
      if !range.contains(v) { throw t.error(key, "\(v) is out of range (\(range.lowerBound)...\(range.upperBound))") }
      return UInt8(v)
    }
    if let library = try byte("library", 1...7) {
      if chip.actuator == .lra && library != 6 { throw t.error("library", "an LRA uses library 6 (the LRA library)") }
      if chip.actuator == .erm && library == 6 { throw t.error("library", "library 6 is for LRAs; an ERM uses 1...5 or 7") }
      chip.library = library
    }
    chip.ratedVoltage = try byte("rated_voltage", 0...255) ?? chip.ratedVoltage
    chip.overdriveClamp = try byte("overdrive_clamp", 0...255) ?? chip.overdriveClamp
    peekEffect = try byte("peek_effect", 1...123) ?? peekEffect
    popEffect = try byte("pop_effect", 1...123) ?? popEffect
    retries = try t.optionalInt("retries") ?? retries
    if retries < 0 || retries > 10 { throw t.error("retries", "must be 0...10") }
  }
}

/// What bring-up writes to a DRV2605L haptic driver (`DRV2605L.Settings`).
public struct DRV2605LSettings: Sendable, Equatable {
  public var actuator = Actuator.lra
  /// LIBRARY_SEL: 6 (LRA) for an LRA, 1...5 or 7 (TS2200 A...F) for an ERM.
  public var library: UInt8 = 6
  /// RATED_VOLTAGE code (register 0x16; datasheet 8.5.2.1 gives volts).
  public var ratedVoltage: UInt8 = 0x3E
  /// OD_CLAMP code (register 0x17; datasheet 8.5.2.2).
  public var overdriveClamp: UInt8 = 0x8C
  public init() {}

  /// The actuator the chip drives.
  public enum Actuator: String, Sendable, CaseIterable {
    /// Eccentric rotating mass.
    case erm
    /// Linear resonant actuator.
    case lra
  }
}
