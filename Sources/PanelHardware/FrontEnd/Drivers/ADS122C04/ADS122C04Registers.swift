/// The ADS122C04's commands and registers (TI SBAS751): four 8-bit
/// configuration registers, all 0x00 after reset, read with RREG and
/// written with WREG.
extension ADS122C04 {
  /// Command bytes.
  public enum Command {
    /// RESET: registers to defaults (also the general-call reset).
    public static let reset: UInt8 = 0x06
    /// START/SYNC: start (single-shot) or restart (continuous) conversions.
    public static let start: UInt8 = 0x08
    /// POWERDOWN: stop converting; registers are kept.
    public static let powerDown: UInt8 = 0x02
    /// RDATA: load the latest result for the following read.
    public static let readData: UInt8 = 0x10
    /// RREG r: read register r.
    public static func readRegister(_ r: UInt8) -> UInt8 { 0x20 | (r & 3) << 2 }
    /// WREG r: write register r (the next byte).
    public static func writeRegister(_ r: UInt8) -> UInt8 { 0x40 | (r & 3) << 2 }
  }

  /// Register 0: input multiplexer, gain, PGA bypass.
  public struct Config0: Register8 {
    public static let address: UInt8 = 0
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// MUX [7:4].
    public var input: InputMux {
      get { InputMux(rawValue: field(4..<8)) ?? .ain0ain1 }
      set { setField(4..<8, newValue.rawValue) }
    }
    /// GAIN [3:1].
    public var gain: Gain {
      get { Gain(rawValue: field(1..<4)) ?? .x1 }
      set { setField(1..<4, newValue.rawValue) }
    }
    /// PGA_BYPASS [0] (gains 1, 2, 4 only).
    public var pgaBypass: Bool { get { bit(0) } set { setBit(0, newValue) } }
  }

  /// Register 1: data rate, mode, conversion mode, reference, temperature.
  public struct Config1: Register8 {
    public static let address: UInt8 = 1
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// DR [7:5]: code 0...6.
    public var rateCode: UInt8 { get { field(5..<8) } set { setField(5..<8, newValue) } }
    /// MODE [4]: turbo (twice the modulator clock).
    public var turbo: Bool { get { bit(4) } set { setBit(4, newValue) } }
    /// CM [3]: continuous conversions (0 = single shot).
    public var continuous: Bool { get { bit(3) } set { setBit(3, newValue) } }
    /// VREF [2:1].
    public var reference: Reference {
      get { Reference(rawValue: field(1..<3)) ?? .internal2V048 }
      set { setField(1..<3, newValue.rawValue) }
    }
    /// TS [0]: temperature sensor mode.
    public var temperatureSensor: Bool { get { bit(0) } set { setBit(0, newValue) } }
  }

  /// Register 2: data ready, counter, data integrity, currents.
  public struct Config2: Register8 {
    public static let address: UInt8 = 2
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// DRDY [7] (read only): a new result since the last read.
    public var dataReady: Bool { get { bit(7) } set { setBit(7, newValue) } }
    /// DCNT [6]: a conversion counter byte precedes the data.
    public var counter: Bool { get { bit(6) } set { setBit(6, newValue) } }
    /// CRC [5:4].
    public var integrity: Integrity {
      get { Integrity(rawValue: field(4..<6)) ?? .none }
      set { setField(4..<6, newValue.rawValue) }
    }
    /// BCS [3]: 10 µA burn-out current sources.
    public var burnout: Bool { get { bit(3) } set { setBit(3, newValue) } }
    /// IDAC [2:0]: excitation current code.
    public var idac: UInt8 { get { field(0..<3) } set { setField(0..<3, newValue) } }
  }

  /// Register 3: excitation current routing.
  public struct Config3: Register8 {
    public static let address: UInt8 = 3
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public var idac1Routing: UInt8 { get { field(5..<8) } set { setField(5..<8, newValue) } }
    public var idac2Routing: UInt8 { get { field(2..<5) } set { setField(2..<5, newValue) } }
  }

  /// MUX codes (the ones a bridge front end uses).
  public enum InputMux: UInt8, Sendable {
    case ain0ain1 = 0x0
    case ain0ain2 = 0x1
    case ain0ain3 = 0x2
    case ain1ain0 = 0x3
    case ain1ain2 = 0x4
    case ain1ain3 = 0x5
    case ain2ain3 = 0x6
    case ain3ain2 = 0x7
    case ain0 = 0x8, ain1 = 0x9, ain2 = 0xA, ain3 = 0xB
    case referenceMonitor = 0xC
    case supplyMonitor = 0xD
    /// Inputs shorted to mid-supply (offset measurement).
    case shorted = 0xE
  }

  /// GAIN codes.
  public enum Gain: UInt8, Sendable, CaseIterable {
    case x1 = 0, x2, x4, x8, x16, x32, x64, x128
    public var factor: Int { 1 << Int(rawValue) }
    public init?(factor: Int) {
      guard let g = Gain.allCases.first(where: { $0.factor == factor }) else { return nil }
      self = g
    }
  }

  /// VREF codes.
  public enum Reference: UInt8, Sendable {
    case internal2V048 = 0
    /// REFP/REFN: ratiometric to the bridge excitation.
    case external = 1
    case supply = 2
  }

  /// CRC codes.
  public enum Integrity: UInt8, Sendable {
    case none = 0
    /// The data bytes are followed by their inverse.
    case inverted = 1
    /// The data bytes are followed by a CRC-16 (CCITT, 0x1021, init 0xFFFF).
    case crc16 = 2
  }

  /// Rates per DR code, normal mode (turbo doubles them).
  public static let normalRates = [20, 45, 90, 175, 330, 600, 1000]

  /// The DR code and mode for `samplesPerSecond`, nil when not a rate.
  public static func rateSetting(samplesPerSecond sps: Int, turbo: Bool) -> UInt8? {
    normalRates.firstIndex(of: turbo ? sps / 2 : sps).flatMap { turbo && sps % 2 != 0 ? nil : UInt8($0) }
  }

  /// Conversions per second for a DR code and mode.
  public static func samplesPerSecond(rateCode: UInt8, turbo: Bool) -> Int {
    normalRates[Int(min(rateCode, 6))] * (turbo ? 2 : 1)
  }
}
