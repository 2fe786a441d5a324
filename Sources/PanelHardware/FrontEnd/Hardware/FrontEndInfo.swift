import PanelFiles

/// What `panelctl info` shows about a front end: labelled lines.
public struct FrontEndInfo: Sendable, Equatable {
  public struct Line: Sendable, Equatable {
    public var label: String
    public var text: String
    public init(_ label: String, _ text: String) {
      self.label = label
      self.text = text
    }
  }

  public var lines: [Line] = []
  public init() {}

  public mutating func add(_ label: String, _ text: String) { lines.append(Line(label, text)) }
}

/// A front end that can describe itself: what it is, how it is set up,
/// its chips' registers (read now, over the bus) and its health.
public protocol InspectableFrontEnd: FrontEnd {
  mutating func inspect() -> FrontEndInfo
}

extension FrontEndHealth: CustomStringConvertible {
  public var description: String {
    "frames \(frames), invalid \(invalidFrames), missed \(missedFrames), stale \(staleResults), "
      + "late ready \(lateReady), retries \(retries), bus errors \(busErrors), re-inits \(reinitialisations)"
  }
}

extension DriverConfiguration {
  /// "nau7802 on /dev/i2c-1 at 400 kHz, TCA9548A at 0x70, data ready on
  /// /dev/gpiochip0 lines 17, 27"; "on sim (simulated)" on a `simulated` bus.
  public func summary(simulated: Bool) -> String {
    var text = "\(chip.rawValue) on \(bus)\(simulated ? " (simulated)" : "") at \(bus_khz) kHz"
    if let mux { text += ", TCA9548A at \(mux)" }
    if let d = dataReady {
      text += ", data ready on \(d.chip) lines " + d.lines.map(String.init).joined(separator: ", ")
    } else {
      text += ", ready bits polled"
    }
    return text
  }

  /// The chip settings, one line.
  public var settingsSummary: String {
    switch chip {
    case .nau7802:
      let s = nau7802
      let avdd = s.ldo.map { "LDO \(Double($0.millivolts) / 1000) V" } ?? "external AVDD"
      return "gain \(s.gain.factor), \(s.rate.samplesPerSecond) SPS, \(avdd), input \(s.channel2 ? 2 : 1), "
        + "settle \(s.settle_ms) ms, discard \(s.discard)"
    case .ads122c04:
      let s = ads122c04
      return "gain \(s.gain.factor), \(s.samplesPerSecond) SPS\(s.turbo ? " (turbo)" : ""), reference \(s.reference), "
        + "input \(s.input), counter \(s.counter ? "on" : "off"), CRC \(s.crc ? "on" : "off")"
    case .frame:
      return "\(cellCount) cells, \(frame.rate_hz) frames/s"
    }
  }

  /// The bus-timing model's figures for this configuration.
  public func timingSummary(_ t: I2CBusTiming) -> String {
    let b = BusBudget(configuration: self)
    let ms = Double(b.frame_ns(t)) / 1e6
    return "\(b): \(rounded(ms, 3)) ms at \(t) -> at most \(rounded(b.maxFrameRate(t), 1)) frames/s on the bus, "
      + "\(rounded(b.modelFrameRate(self, t), 1)) with the chips' \(Int(BusBudget.conversionRate(self))) per second"
  }
}

/// Hex bytes, "be 27 70".
func hexBytes(_ bytes: some Sequence<UInt8>) -> String {
  let digits = Array("0123456789abcdef")
  return bytes.map { String(digits[Int($0 >> 4)]) + String(digits[Int($0 & 15)]) }.joined(separator: " ")
}

extension ChipBus {
  /// The EEPROM's identity and first bytes, read now.
  mutating func describeEEPROM(_ c: DriverConfiguration, into info: inout FrontEndInfo) {
    guard let e = c.eeprom, let location = c.eepromLocation else { return }
    let eeprom = EEPROM24(kind: e.kind, address: e.place.address)
    var first = [UInt8](repeating: 0, count: 16)
    do throws(I2CError) {
      try first.withUnsafeMutableBytes { p in
        Result { () throws(I2CError) in
          try run(e.place) { (bus) throws(I2CError) in
            do throws(EEPROMError) {
              try eeprom.read(at: 0, into: p, on: &bus)
            } catch {
              if case .bus(let b) = error { throw b }
            }
          }
        }
      }.get()
      info.add(
        "eeprom", "\(location): \(e.kind.size) bytes, \(e.kind.pageSize)-byte pages; bytes 0-15: \(hexBytes(first))")
    } catch {
      info.add("eeprom", "\(location): \(error)")
    }
  }
}
