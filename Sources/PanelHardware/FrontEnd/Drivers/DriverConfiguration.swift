import PanelFiles

/// How a front end's chips on an I2C bus are wired and set up: the driver
/// kinds of a board file's `[frontend]` (`kind = "nau7802"`, `"ads122c04"`,
/// `"frame"`, read by PanelFormats). A real board and its simulated twin
/// share this; which one a board is, is its `BoardFrontEnd` case. Every key
/// is documented in docs/hardware.md.
public struct DriverConfiguration: Sendable {
  /// The chip family of the front end.
  public enum Chip: String, Sendable, CaseIterable {
    case nau7802
    case ads122c04
    /// A panel with its own controller speaking docs/frame-protocol.md.
    case frame

    /// How messages name it: "NAU7802".
    public var name: String {
      switch self {
      case .nau7802: "NAU7802"
      case .ads122c04: "ADS122C04"
      case .frame: "frame controller"
      }
    }
  }

  /// Where one chip sits: its address and, behind a switch, the channel.
  public struct Place: Sendable, Equatable {
    public var address: I2CAddress
    public var channel: Int?
    public init(address: I2CAddress, channel: Int? = nil) {
      self.address = address
      self.channel = channel
    }
  }

  /// GPIO lines wired to the chips' data-ready pins.
  public struct DataReadyWiring: Sendable, Equatable {
    /// The GPIO character device ("/dev/gpiochip0").
    public var chip: String
    /// Line offsets, one per chip, in chip order.
    public var lines: [Int]
    public init(chip: String, lines: [Int]) {
      self.chip = chip
      self.lines = lines
    }
  }

  /// The panel's EEPROM (calibration storage).
  public struct EEPROMPlace: Sendable, Equatable {
    public var kind: EEPROM24.Kind
    public var place: Place
    public init(kind: EEPROM24.Kind, place: Place) {
      self.kind = kind
      self.place = place
    }
  }

  public var chip: Chip
  /// Cells of the board (a frame controller delivers them all).
  public var cellCount: Int
  /// The bus: its i2c-dev node ("/dev/i2c-1"), or a twin's simulated bus
  /// (messages name it "sim").
  public var bus: I2CBusName
  /// SCL rate, kHz (100, 400 or 1000).
  public var bus_khz: Int
  /// The TCA9548A the chips sit behind, if any.
  public var mux: I2CAddress?
  /// One place per chip, in cell order (a frame controller: one for all).
  public var places: [Place]
  /// Data-ready lines; nil: the driver polls the chips' ready bits.
  public var dataReady: DataReadyWiring?
  public var eeprom: EEPROMPlace?
  /// Attempts after a failed transfer before a chip counts as failing.
  public var retries: Int
  /// How long to wait for a conversion beyond its period before it counts
  /// as missed, ms.
  public var timeout_ms: Int
  public var nau7802 = NAU7802Settings()
  public var ads122c04 = ADS122C04Settings()
  public var frame = FrameSettings()
  /// The load cells' rating, for running before a calibration.
  public var cells = CellRating()
  /// Where the keys were in the board file, for errors about the devices
  /// (`[frontend] bus`, `drdy_lines`).
  public var origin: TableOrigin

  /// A configuration with the defaults a board file leaves out: 400 kHz,
  /// no switch, no data-ready lines, no EEPROM, 2 retries, 50 ms timeout.
  public init(chip: Chip, cellCount: Int, bus: I2CBusName, places: [Place] = [], origin: TableOrigin = TableOrigin(table: "frontend")) {
    self.chip = chip
    self.cellCount = cellCount
    self.bus = bus
    self.bus_khz = 400
    self.mux = nil
    self.places = places
    self.dataReady = nil
    self.eeprom = nil
    self.retries = 2
    self.timeout_ms = 50
    self.origin = origin
  }

  /// Where chip `index` is, for messages: "/dev/i2c-1 mux 0x70 channel 2
  /// address 0x2a (NAU7802)".
  public func location(of index: Int) -> ChipLocation {
    let place = places[index]
    return ChipLocation(
      bus: bus.description, mux: place.channel == nil ? nil : mux, channel: place.channel, address: place.address,
      chip: chip.name)
  }

  /// The EEPROM's location, if there is one.
  public var eepromLocation: ChipLocation? {
    eeprom.map {
      ChipLocation(
        bus: bus.description, mux: $0.place.channel == nil ? nil : mux, channel: $0.place.channel,
        address: $0.place.address, chip: $0.kind.name)
    }
  }
}

/// NAU7802 settings (`kind = "nau7802"`).
public struct NAU7802Settings: Sendable, Equatable {
  public var gain: NAU7802.Gain = .x128
  public var rate: NAU7802.Rate = .sps320
  /// The internal LDO's voltage; nil = AVDD supplied externally.
  public var ldo: NAU7802.LDOVoltage? = .v3_3
  /// Input channel: false = channel 1 (with the PGA output capacitor).
  public var channel2 = false
  /// Wait after power-up for the LDO and analog front end, ms.
  public var settle_ms = 400
  /// Conversions dropped after a configuration change.
  public var discard = 6
  public init() {}
}

/// ADS122C04 settings (`kind = "ads122c04"`).
public struct ADS122C04Settings: Sendable, Equatable {
  public var gain: ADS122C04.Gain = .x128
  public var rateCode: UInt8 = 5
  public var turbo = false
  public var reference: ADS122C04.Reference = .external
  public var input: ADS122C04.InputMux = .ain0ain1
  /// DCNT: read the conversion counter (missed conversions are counted).
  public var counter = true
  /// CRC-16 on every result.
  public var crc = true
  public var samplesPerSecond: Int { ADS122C04.samplesPerSecond(rateCode: rateCode, turbo: turbo) }
  public init() {}
}

/// Frame-protocol settings (`kind = "frame"`).
public struct FrameSettings: Sendable, Equatable {
  /// Frames per second the controller is asked for.
  public var rate_hz = 0
  /// The gain the controller's 24-bit converters run at (ratiometric), for
  /// the nominal sensitivity only: the protocol does not carry it.
  public var gain = 128
  public init() {}
}

/// The load cells' datasheet rating (`cell_output_mv_v`, `cell_capacity_kg`)
/// and, for a converter whose reference is not the bridge excitation, the
/// excitation (`excitation_v`): what makes a nominal sensitivity before the
/// panel is calibrated (`--uncalibrated`).
public struct CellRating: Sendable, Equatable {
  /// Rated output at capacity, mV per V of excitation (most small bar and
  /// button cells: 1.0 to 2.0).
  public var output_mV_V = 1.0
  /// Rated capacity, kg.
  public var capacity_kg = 5.0
  /// Bridge excitation, V (used with the ADS122C04's internal 2.048 V
  /// reference; otherwise the reference is the excitation).
  public var excitation_v = 3.3
  public init() {}

  /// Counts per newton of a signed 24-bit converter at `gain` whose full
  /// scale is +-reference/gain, for a bridge excited at `excitation_v`:
  /// output_mV_V x 1e-3 x (excitation / reference) x gain x 2^23 / (capacity_kg x g).
  public func counts_per_n(gain: Int, excitationOverReference ratio: Double) -> Double {
    output_mV_V * 1e-3 * ratio * Double(gain) * 8_388_608 / (capacity_kg * 9.80665)
  }
}

/// Where a chip is, named the way messages name it.
public struct ChipLocation: Sendable, Equatable, CustomStringConvertible {
  public var bus: String
  public var mux: I2CAddress?
  public var channel: Int?
  public var address: I2CAddress
  public var chip: String

  public init(bus: String, mux: I2CAddress? = nil, channel: Int? = nil, address: I2CAddress, chip: String) {
    self.bus = bus
    self.mux = mux
    self.channel = channel
    self.address = address
    self.chip = chip
  }

  /// "/dev/i2c-1 mux 0x70 channel 2 address 0x2a (NAU7802)".
  public var description: String {
    var text = bus
    if let mux, let channel { text += " mux \(mux) channel \(channel)" }
    return text + " address \(address) (\(chip))"
  }
}
