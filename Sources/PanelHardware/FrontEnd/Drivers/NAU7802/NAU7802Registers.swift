/// The NAU7802's register map (Nuvoton NAU7802 datasheet rev 1.7; Linux
/// `drivers/iio/adc/nau7802.c`): one type per register, bit fields as
/// properties. All registers reset to 0x00 except REV_ID.
extension NAU7802 {
  /// Register addresses. Multi-byte values are most significant byte first
  /// and burst-readable (the register pointer auto-increments).
  public enum Register: UInt8, Sendable, CaseIterable {
    case puCtrl = 0x00
    case ctrl1 = 0x01
    case ctrl2 = 0x02
    /// OCAL1: channel 1 offset calibration, 24-bit signed, 0x03...0x05.
    case ocal1 = 0x03
    /// GCAL1: channel 1 gain calibration, 32-bit, 23 fraction bits, 0x06...0x09.
    case gcal1 = 0x06
    case ocal2 = 0x0A
    case gcal2 = 0x0D
    case i2cCtrl = 0x11
    /// ADCO_B2..B0: the conversion result, 24-bit two's complement, 0x12...0x14.
    case adco = 0x12
    /// ADC control on write (REG_CHPS, ADC_VCM, REG_CHP); OTP_B1 on read.
    case adc = 0x15
    case otp = 0x16
    case pga = 0x1B
    case powerCtrl = 0x1C
    /// REV_ID: revision, low nibble 0xF.
    case revisionID = 0x1F
  }

  /// PU_CTRL (0x00): power-up and status.
  public struct PUCtrl: Register8 {
    public static let address: UInt8 = 0x00
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// RR: 1 resets every register except RR itself; hold until written 0.
    public var registerReset: Bool { get { bit(0) } set { setBit(0, newValue) } }
    /// PUD: power up the digital circuit.
    public var powerUpDigital: Bool { get { bit(1) } set { setBit(1, newValue) } }
    /// PUA: power up the analog circuit.
    public var powerUpAnalog: Bool { get { bit(2) } set { setBit(2, newValue) } }
    /// PUR (read only): power-up ready, about 200 µs after PUD.
    public var powerUpReady: Bool { get { bit(3) } set { setBit(3, newValue) } }
    /// CS: cycle start; conversions synchronise on its rising edge.
    public var cycleStart: Bool { get { bit(4) } set { setBit(4, newValue) } }
    /// CR (read only): a conversion result is ready.
    public var conversionReady: Bool { get { bit(5) } set { setBit(5, newValue) } }
    /// OSCS: 1 = external crystal.
    public var externalOscillator: Bool { get { bit(6) } set { setBit(6, newValue) } }
    /// AVDDS: 1 = AVDD from the internal LDO.
    public var internalLDO: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// CTRL1 (0x01): gain, LDO voltage, DRDY pin function.
  public struct Ctrl1: Register8 {
    public static let address: UInt8 = 0x01
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// GAINS [2:0].
    public var gain: Gain {
      get { Gain(rawValue: field(0..<3)) ?? .x1 }
      set { setField(0..<3, newValue.rawValue) }
    }
    /// VLDO [5:3].
    public var ldo: LDOVoltage {
      get { LDOVoltage(rawValue: field(3..<6)) ?? .v4_5 }
      set { setField(3..<6, newValue.rawValue) }
    }
    /// DRDY_SEL: 1 = the DRDY pin outputs the clock, 0 = conversion ready.
    public var drdyOutputsClock: Bool { get { bit(6) } set { setBit(6, newValue) } }
    /// CRP: 1 = DRDY active low.
    public var drdyActiveLow: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// CTRL2 (0x02): calibration, conversion rate, channel.
  public struct Ctrl2: Register8 {
    public static let address: UInt8 = 0x02
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// CALMOD [1:0]; 01 is reserved (nil).
    public var calibrationMode: CalibrationMode? {
      get { CalibrationMode(rawValue: field(0..<2)) }
      set { setField(0..<2, newValue?.rawValue ?? 0) }
    }
    /// CALS: write 1 to start a calibration; reads 1 while it runs.
    public var calibrationStart: Bool { get { bit(2) } set { setBit(2, newValue) } }
    /// CAL_ERR: the last calibration failed (sticky until a good one or reset).
    public var calibrationError: Bool { get { bit(3) } set { setBit(3, newValue) } }
    /// CRS [6:4]; codes 4...6 are unused and convert at 10 SPS.
    public var rate: Rate {
      get { Rate(rawValue: field(4..<7)) ?? .sps10 }
      set { setField(4..<7, newValue.rawValue) }
    }
    /// CHS: 0 = channel 1, 1 = channel 2.
    public var channel2: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// I2C_CTRL (0x11): input switches and bus options.
  public struct I2CCtrl: Register8 {
    public static let address: UInt8 = 0x11
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// BGPCP: 1 = bandgap chopper off.
    public var bandgapChopperOff: Bool { get { bit(0) } set { setBit(0, newValue) } }
    /// TS: the temperature sensor drives the PGA.
    public var temperatureSensor: Bool { get { bit(1) } set { setBit(1, newValue) } }
    /// BOPGA: 2.5 µA burn-out current source.
    public var burnoutCurrent: Bool { get { bit(2) } set { setBit(2, newValue) } }
    /// SI: short the inputs.
    public var shortInputs: Bool { get { bit(3) } set { setBit(3, newValue) } }
    /// CRSD: pull SDA low when a conversion is ready.
    public var pullSDAOnReady: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// PGA (0x1B).
  public struct PGA: Register8 {
    public static let address: UInt8 = 0x1B
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// PGACHPDIS: chopper off.
    public var chopperDisabled: Bool { get { bit(0) } set { setBit(0, newValue) } }
    /// BYPASS_EN: PGA bypassed.
    public var bypass: Bool { get { bit(4) } set { setBit(4, newValue) } }
    /// LDOMODE: 1 = improved stability, 0 = low-ESR capacitors.
    public var ldoMode: Bool { get { bit(6) } set { setBit(6, newValue) } }
    /// RD_OTP_SEL: 0x15 reads OTP.
    public var readOTP: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// PWR_CTRL (0x1C).
  public struct PowerCtrl: Register8 {
    public static let address: UInt8 = 0x1C
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// PGA_CAP_EN: the PGA output bypass capacitor (channel 1 only).
    public var pgaCapacitor: Bool { get { bit(7) } set { setBit(7, newValue) } }
  }

  /// GAINS codes.
  public enum Gain: UInt8, Sendable, CaseIterable {
    case x1 = 0, x2, x4, x8, x16, x32, x64, x128
    public var factor: Int { 1 << Int(rawValue) }
    public init?(factor: Int) {
      guard let g = Gain.allCases.first(where: { $0.factor == factor }) else { return nil }
      self = g
    }
  }

  /// VLDO codes: 4.5 V - 0.3 V per step.
  public enum LDOVoltage: UInt8, Sendable, CaseIterable {
    case v4_5 = 0, v4_2, v3_9, v3_6, v3_3, v3_0, v2_7, v2_4
    public var millivolts: Int { 4500 - 300 * Int(rawValue) }
    public init?(millivolts: Int) {
      guard let v = LDOVoltage.allCases.first(where: { $0.millivolts == millivolts }) else { return nil }
      self = v
    }
  }

  /// CRS codes.
  public enum Rate: UInt8, Sendable, CaseIterable {
    case sps10 = 0, sps20 = 1, sps40 = 2, sps80 = 3, sps320 = 7
    public var samplesPerSecond: Int {
      switch self {
      case .sps10: 10
      case .sps20: 20
      case .sps40: 40
      case .sps80: 80
      case .sps320: 320
      }
    }
    public init?(samplesPerSecond: Int) {
      guard let r = Rate.allCases.first(where: { $0.samplesPerSecond == samplesPerSecond }) else { return nil }
      self = r
    }
  }

  /// CALMOD codes.
  public enum CalibrationMode: UInt8, Sendable {
    /// Offset of the chip itself, inputs shorted internally.
    case internalOffset = 0
    /// Offset of the system: whatever the inputs see now is zero.
    case systemOffset = 2
    /// Gain of the system: whatever the inputs see now is full scale.
    case systemGain = 3
  }
}
