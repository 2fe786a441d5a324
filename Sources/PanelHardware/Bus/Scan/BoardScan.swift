/// A chip a board file says is on its bus.
public struct ExpectedChip: Equatable, Sendable {
  /// Where it is, as messages name it.
  public var location: ChipLocation
  /// What it must look like; nil: anything that answers (a frame controller).
  public var kind: ChipKind?
  public init(location: ChipLocation, kind: ChipKind?) {
    self.location = location
    self.kind = kind
  }
}

/// How one expected chip did in a scan.
public enum ExpectedChipStatus: Equatable, Sendable {
  /// It answered and looks like what the board says.
  case found(ChipIdentity?)
  /// Nobody answered at its address.
  case missing
  /// Something answered that does not look like the expected chip.
  case wrongChip(ChipIdentity?)
  /// The transfer failed (timeout, bus error), or a kernel driver owns it.
  case failed(ProbeResult)

  public var isOK: Bool { if case .found = self { return true } else { return false } }
}

/// A board's bus scanned: every segment its chips sit on, and each chip
/// the board names checked against what answered.
public struct BoardScan: Equatable, Sendable {
  public var segments: [BusScan]
  public var chips: [(chip: ExpectedChip, status: ExpectedChipStatus)]

  public static func == (a: BoardScan, b: BoardScan) -> Bool {
    a.segments == b.segments && a.chips.map(\.chip) == b.chips.map(\.chip)
      && a.chips.map(\.status) == b.chips.map(\.status)
  }

  /// The chips that are not as the board says.
  public var problems: [(chip: ExpectedChip, status: ExpectedChipStatus)] { chips.filter { !$0.status.isOK } }
}

/// `panelctl scan --board`: scans the main bus and each switch channel the
/// board uses, then checks every chip the board names (the switch, each
/// cell's ADC or the frame controller, the EEPROM).
public enum BoardScanner {
  /// The chips `config` names, switch first, then in chip order, then the EEPROM.
  public static func expected(_ config: DriverConfiguration) -> [ExpectedChip] {
    var chips: [ExpectedChip] = []
    if let mux = config.mux {
      chips.append(
        ExpectedChip(
          location: ChipLocation(bus: config.bus.description, address: mux, chip: ChipKind.tca9548a.rawValue), kind: .tca9548a))
    }
    let kind: ChipKind? =
      switch config.chip {
      case .nau7802: .nau7802
      case .ads122c04: .ads122c04
      case .frame: nil
      }
    for i in config.places.indices { chips.append(ExpectedChip(location: config.location(of: i), kind: kind)) }
    if let e = config.eepromLocation { chips.append(ExpectedChip(location: e, kind: .eeprom)) }
    return chips
  }

  /// Scans every segment of `config`'s bus over `range` and checks the chips.
  public static func scan<Bus: I2CBus>(
    _ config: DriverConfiguration, on bus: inout Bus, range: ClosedRange<UInt8> = BusScanner.defaultRange,
    claimed: (I2CAddress) -> Bool = { _ in false }
  ) throws(BusScanError) -> BoardScan {
    let chips = expected(config)
    // Every expected address is probed, even outside `range`.
    var lo = range.lowerBound
    var hi = range.upperBound
    for c in chips {
      lo = min(lo, c.location.address.rawValue)
      hi = max(hi, c.location.address.rawValue)
    }
    var segments = [try BusScanner.scan(&bus, range: lo...hi, claimed: claimed)]
    if let mux = config.mux {
      let channels = Set(chips.compactMap(\.location.channel)).sorted()
      for c in channels {
        segments.append(try BusScanner.scan(&bus, range: lo...hi, behind: MuxChannel(mux: mux, channel: c), claimed: claimed))
      }
    }
    var checked: [(ExpectedChip, ExpectedChipStatus)] = []
    for chip in chips {
      let segment = segments.first { $0.behind?.channel == chip.location.channel } ?? segments[0]
      let status: ExpectedChipStatus
      switch segment.result(at: chip.location.address.rawValue) {
      case .present(let id):
        if chip.kind == nil || id?.kind == chip.kind {
          status = .found(id)
        } else {
          status = .wrongChip(id)
        }
      case .absent, nil: status = .missing
      case let other?: status = .failed(other)
      }
      checked.append((chip, status))
    }
    return BoardScan(segments: segments, chips: checked)
  }

  /// One line per problem chip: "no answer from /dev/i2c-1 mux 0x70 channel
  /// 3 address 0x2a (NAU7802)".
  public static func message(_ chip: ExpectedChip, _ status: ExpectedChipStatus) -> String {
    switch status {
    case .found: return "\(chip.location): found"
    case .missing: return "no answer from \(chip.location)"
    case .wrongChip(let id):
      let seen = id.map { "a \($0.kind.rawValue) (\($0.evidence))" } ?? "an unknown chip"
      return "\(chip.location) answers but looks like \(seen)"
    case .failed(.claimed): return "\(chip.location) is in use by a kernel driver"
    case .failed(.failed(let e)): return "\(chip.location): \(e)"
    case .failed: return "\(chip.location): probe failed"
    }
  }
}
