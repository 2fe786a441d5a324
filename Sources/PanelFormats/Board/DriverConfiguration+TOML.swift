import PanelHardware

extension DriverConfiguration {
  /// Keys every driver kind takes.
  static let commonKeys = [
    "kind", "bus", "bus_khz", "mux", "gpio_chip", "drdy_lines", "retries", "timeout_ms", "eeprom", "sim",
    "cell_output_mv_v", "cell_capacity_kg",
  ]

  /// Keys of each chip kind, beyond the common ones.
  static func keys(of chip: Chip) -> [String] {
    switch chip {
    case .nau7802: ["channels", "gain", "rate_sps", "avdd", "ldo_v", "input", "settle_ms", "discard"]
    case .ads122c04:
      ["addresses", "channels", "gain", "rate_sps", "turbo", "reference", "input", "counter", "crc", "excitation_v"]
    case .frame: ["address", "channel", "gain"]
    }
  }

  /// Reads and checks the `[frontend]` table `t` of a driver kind (`chip`)
  /// for a board with `cellCount` cells sampled at `rate_hz`: real chips
  /// on an i2c-dev node, or, with `bus = "sim"`, a simulated twin and its
  /// `[frontend.sim]`. Every error names the key at fault.
  static func frontEnd(table t: TOMLTable, chip: Chip, cellCount: Int, rate_hz: Int) throws(FileError) -> BoardFrontEnd {
    try t.rejectUnknownKeys(Self.commonKeys + Self.keys(of: chip))
    let busText = try t.string("bus")
    let bus: I2CBusName
    switch busText {
    case "sim": bus = .simulated
    case let path where path.hasPrefix("/dev/") && path.count > 5: bus = .device(path)
    default: throw t.error("bus", "\(Quote.text(busText)) is neither a bus device (/dev/i2c-N) nor \"sim\"")
    }
    let simulated = bus == .simulated
    var c = DriverConfiguration(chip: chip, cellCount: cellCount, bus: bus, origin: t.origin)
    c.bus_khz = try t.optionalInt("bus_khz") ?? 400
    if !I2CBusTiming.speeds_khz.contains(c.bus_khz) {
      throw t.error("bus_khz", "\(c.bus_khz) kHz is not a bus speed (expected 100, 400 or 1000)")
    }
    c.retries = try t.optionalInt("retries") ?? 2
    if c.retries < 0 || c.retries > 10 { throw t.error("retries", "must be 0...10, is \(c.retries)") }
    c.timeout_ms = try t.optionalInt("timeout_ms") ?? 50
    if c.timeout_ms < 1 || c.timeout_ms > 10_000 { throw t.error("timeout_ms", "must be 1...10000, is \(c.timeout_ms)") }

    if t.has("mux") { c.mux = try Self.address(t, "mux", in: TCA9548A.addresses, chip: "TCA9548A") }
    c.places = try Self.places(t, chip: chip, cellCount: cellCount, hasMux: c.mux != nil)
    if c.mux != nil && c.bus_khz > 400 {
      throw t.error("bus_khz", "\(c.bus_khz) kHz is faster than the TCA9548A runs (at most 400 kHz)")
    }

    if let lines = try t.intArray("drdy_lines") {
      if lines.count != c.places.count {
        throw t.error("drdy_lines", "has \(lines.count) lines, the front end has \(c.places.count) chips")
      }
      for (i, line) in lines.enumerated() where line < 0 || line > 1023 {
        throw t.error("drdy_lines", element: i, "GPIO line \(line) is out of range (0...1023)")
      }
      c.dataReady = DataReadyWiring(chip: try t.optionalString("gpio_chip") ?? "/dev/gpiochip0", lines: lines)
    } else if t.has("gpio_chip") {
      throw t.error("gpio_chip", "given without drdy_lines")
    }

    if let e = try t.optionalTable("eeprom") {
      try e.rejectUnknownKeys(["kind", "address", "channel"])
      let name = try e.string("kind")
      guard let kind = EEPROM24.Kind(rawValue: name.lowercased()) else {
        throw e.error("kind", "\(Quote.text(name)) is not an EEPROM this driver knows (expected one of: 24c02, 24c32)")
      }
      let address = e.has("address") ? try Self.address(e, "address", in: EEPROM24.addresses, chip: kind.name) : 0x50
      let channel = try Self.channel(e, "channel", hasMux: c.mux != nil)
      c.eeprom = EEPROMPlace(kind: kind, place: Place(address: address, channel: channel))
    }

    switch chip {
    case .nau7802: try c.nau7802.load(t, busKHz: c.bus_khz, rate_hz: rate_hz)
    case .ads122c04: try c.ads122c04.load(t, rate_hz: rate_hz)
    case .frame:
      c.frame.rate_hz = rate_hz
      if let g = try t.optionalInt("gain") {
        guard [1, 2, 4, 8, 16, 32, 64, 128].contains(g) else {
          throw t.error("gain", "\(g) is not a converter gain (1, 2, 4, 8, 16, 32, 64, 128)")
        }
        c.frame.gain = g
      }
    }
    c.cells.output_mV_V = try t.optionalDouble("cell_output_mv_v", in: ValueBound(above: 0, atMost: 100, "mV/V")) ?? c.cells.output_mV_V
    c.cells.capacity_kg = try t.optionalDouble("cell_capacity_kg", in: ValueBound(above: 0, atMost: 100_000, "kg")) ?? c.cells.capacity_kg
    c.cells.excitation_v = try t.optionalDouble("excitation_v", in: ValueBound(above: 0, atMost: 10, "V")) ?? c.cells.excitation_v

    guard let s = try t.optionalTable("sim") else {
      return simulated ? .simulatedTwin(c, SimulatedBoardParameters()) : .chips(c)
    }
    if !simulated {
      throw t.error("sim", "a simulation table, but bus is \(Quote.text(busText)) (use bus = \"sim\" for a simulated twin)")
    }
    let p = try SimulatedBoardParameters(table: s)
    for (i, chipIndex) in p.absent.enumerated() where chipIndex < 0 || chipIndex >= c.places.count {
      throw s.error("absent", element: i, "chip \(chipIndex) does not exist (0...\(c.places.count - 1))")
    }
    return .simulatedTwin(c, p)
  }

  /// Where each chip is. NAU7802s all sit at 0x2a, so several need a
  /// switch channel each; ADS122C04s have 16 addresses; a frame controller
  /// is one chip.
  static func places(_ t: TOMLTable, chip: Chip, cellCount: Int, hasMux: Bool) throws(FileError) -> [Place] {
    var places: [Place] = []
    switch chip {
    case .nau7802:
      if let channels = try channelList(t, count: cellCount, hasMux: hasMux) {
        places = channels.map { Place(address: NAU7802.address, channel: $0) }
      } else if cellCount == 1 {
        places = [Place(address: NAU7802.address)]
      } else if hasMux {
        throw t.error("channels", "missing: give the switch channel of each of the \(cellCount) NAU7802s")
      } else {
        throw t.error(
          "mux", "missing: \(cellCount) NAU7802s share the fixed address 0x2a, so each needs its own TCA9548A channel")
      }
    case .ads122c04:
      guard let list = try t.intArray("addresses") else {
        throw t.error("addresses", "missing: give the address of each of the \(cellCount) ADS122C04s")
      }
      if list.count != cellCount {
        throw t.error("addresses", "has \(list.count) addresses, the board has \(cellCount) cells")
      }
      let channels = try channelList(t, count: cellCount, hasMux: hasMux)
      for (i, a) in list.enumerated() {
        guard a >= 0x40 && a <= 0x4F else {
          throw t.error("addresses", element: i, "\(hex(a)) is not an ADS122C04 address (0x40...0x4f)")
        }
        let place = Place(address: I2CAddress(UInt8(a)), channel: channels?[i])
        if places.contains(place) {
          throw t.error("addresses", element: i, "\(hex(a)) is used twice on the same segment")
        }
        places.append(place)
      }
    case .frame:
      let address = t.has("address") ? try Self.address(t, "address", in: 0x08...0x77, chip: "frame controller") : 0x28
      places = [Place(address: address, channel: try channel(t, "channel", hasMux: hasMux))]
    }
    return places
  }

  /// `channels`: one switch channel per chip, distinct, each 0...7.
  static func channelList(_ t: TOMLTable, count: Int, hasMux: Bool) throws(FileError) -> [Int]? {
    guard let channels = try t.intArray("channels") else { return nil }
    if !hasMux { throw t.error("channels", "given, but there is no mux (add mux = 0x70...0x77)") }
    if channels.count != count {
      throw t.error("channels", "has \(channels.count) channels, the board has \(count) cells")
    }
    for (i, c) in channels.enumerated() {
      if c < 0 || c >= TCA9548A.channelCount {
        throw t.error("channels", element: i, "mux channel \(c) is out of range (0...7)")
      }
    }
    return channels
  }

  /// A single optional switch channel.
  static func channel(_ t: TOMLTable, _ key: String, hasMux: Bool) throws(FileError) -> Int? {
    guard let c = try t.optionalInt(key) else { return nil }
    if !hasMux { throw t.error(key, "given, but there is no mux (add mux = 0x70...0x77)") }
    if c < 0 || c >= TCA9548A.channelCount { throw t.error(key, "mux channel \(c) is out of range (0...7)") }
    return c
  }

  /// An address key, checked against the chip's range.
  static func address(_ t: TOMLTable, _ key: String, in range: ClosedRange<UInt8>, chip: String) throws(FileError)
    -> I2CAddress
  {
    let a = try t.int(key)
    guard a >= Int(range.lowerBound) && a <= Int(range.upperBound) else {
      let what = a < 0 || a > 0x7F ? "is not a 7-bit I2C address" : "is not a \(chip) address"
      throw t.error(key, "\(hex(a)) \(what) (\(hex(Int(range.lowerBound)))...\(hex(Int(range.upperBound))))")
    }
    return I2CAddress(UInt8(a))
  }

  static func hex(_ value: Int) -> String {
    value < 0 ? String(value) : "0x" + (value < 16 ? "0" : "") + String(value, radix: 16)
  }
}

extension NAU7802Settings {
  mutating func load(_ t: TOMLTable, busKHz: Int, rate_hz: Int) throws(FileError) {
    if busKHz > 400 { throw t.error("bus_khz", "\(busKHz) kHz is faster than the NAU7802 runs (at most 400 kHz)") }
    if let g = try t.optionalInt("gain") {
      guard let gain = NAU7802.Gain(factor: g) else {
        throw t.error("gain", "\(g) is not a NAU7802 gain (1, 2, 4, 8, 16, 32, 64, 128)")
      }
      self.gain = gain
    }
    if let r = try t.optionalInt("rate_sps") {
      guard let rate = NAU7802.Rate(samplesPerSecond: r) else {
        throw t.error("rate_sps", "\(r) is not a NAU7802 rate (10, 20, 40, 80, 320)")
      }
      self.rate = rate
    } else {
      guard let rate = NAU7802.Rate.allCases.first(where: { $0.samplesPerSecond >= rate_hz }) else {
        throw t.error("rate_sps", "missing, and the board's \(rate_hz) Hz is faster than a NAU7802 converts (320 SPS)")
      }
      self.rate = rate
    }
    let avdd = try t.optionalString("avdd") ?? "ldo"
    switch avdd {
    case "ldo":
      if let v = try t.optionalDouble("ldo_v") {
        guard let ldo = NAU7802.LDOVoltage(millivolts: Int(saturating: (v * 1000).rounded())) else {
          throw t.error("ldo_v", "\(v) V is not a NAU7802 LDO voltage (2.4...4.5 in 0.3 V steps)")
        }
        self.ldo = ldo
      }
    case "external":
      if t.has("ldo_v") { throw t.error("ldo_v", "given, but avdd = \"external\"") }
      ldo = nil
    default:
      throw t.error("avdd", "\(Quote.text(avdd)) is not one of ldo, external")
    }
    if let input = try t.optionalInt("input") {
      guard input == 1 || input == 2 else { throw t.error("input", "\(input) is not a NAU7802 input (1 or 2)") }
      channel2 = input == 2
    }
    settle_ms = try t.optionalInt("settle_ms") ?? settle_ms
    if settle_ms < 0 || settle_ms > 5000 { throw t.error("settle_ms", "must be 0...5000, is \(settle_ms)") }
    discard = try t.optionalInt("discard") ?? discard
    if discard < 0 || discard > 100 { throw t.error("discard", "must be 0...100, is \(discard)") }
  }
}

extension ADS122C04Settings {
  mutating func load(_ t: TOMLTable, rate_hz: Int) throws(FileError) {
    if let g = try t.optionalInt("gain") {
      guard let gain = ADS122C04.Gain(factor: g) else {
        throw t.error("gain", "\(g) is not an ADS122C04 gain (1, 2, 4, 8, 16, 32, 64, 128)")
      }
      self.gain = gain
    }
    turbo = try t.optionalBool("turbo") ?? false
    if let r = try t.optionalInt("rate_sps") {
      guard let code = ADS122C04.rateSetting(samplesPerSecond: r, turbo: turbo) else {
        let rates = ADS122C04.normalRates.map { String($0 * (turbo ? 2 : 1)) }.joined(separator: ", ")
        throw t.error("rate_sps", "\(r) is not an ADS122C04 \(turbo ? "turbo" : "normal") rate (\(rates))")
      }
      rateCode = code
    } else {
      guard let code = ADS122C04.normalRates.indices.first(where: { ADS122C04.normalRates[$0] * (turbo ? 2 : 1) >= rate_hz })
      else {
        throw t.error("rate_sps", "missing, and the board's \(rate_hz) Hz is faster than an ADS122C04 converts")
      }
      rateCode = UInt8(code)
    }
    if let r = try t.optionalString("reference") {
      switch r {
      case "internal": reference = .internal2V048
      case "external": reference = .external
      case "avdd": reference = .supply
      default: throw t.error("reference", "\(Quote.text(r)) is not one of internal, external, avdd")
      }
    }
    if let i = try t.optionalString("input") {
      switch i {
      case "ain0-ain1": input = .ain0ain1
      case "ain2-ain3": input = .ain2ain3
      default: throw t.error("input", "\(Quote.text(i)) is not one of ain0-ain1, ain2-ain3")
      }
    }
    counter = try t.optionalBool("counter") ?? counter
    crc = try t.optionalBool("crc") ?? crc
  }
}
