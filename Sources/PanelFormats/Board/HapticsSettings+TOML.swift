import PanelHardware

extension HapticsSettings {
  public static let keys = [
    "kind", "bus", "actuator", "library", "rated_voltage", "overdrive_clamp", "peek_effect", "pop_effect", "retries",
  ]

  /// Reads a `[haptics]` table; every problem names the file, line and key.
  public init(table t: TOMLTable) throws(FileError) {
    self.init()
    try t.rejectUnknownKeys(HapticsSettings.keys)
    kind = try t.string("kind")
    if kind != "drv2605l" { throw t.error("kind", "\(Quote.text(kind)) is not a haptic driver this build knows (expected: drv2605l)") }
    let device = try t.string("bus")
    file = t.file
    busLine = t.line(of: "bus")
    if device == "sim" {
      bus = .simulated
    } else if device.hasPrefix("/dev/") {
      bus = .device(device)
    } else {
      throw t.error("bus", "\(Quote.text(device)) is neither an i2c-dev node (/dev/i2c-N) nor \"sim\"")
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
