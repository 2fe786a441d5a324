/// The DRV2605L's register map (TI DRV2605L datasheet SLOS854, section 8.6;
/// application note SLOA189): one type per register the driver uses, bit
/// fields as properties. Multi-byte writes and reads auto-increment the
/// register address.
extension DRV2605L {
  /// Register addresses.
  public enum Register: UInt8, Sendable, CaseIterable {
    case status = 0x00
    case mode = 0x01
    case rtpInput = 0x02
    case librarySelection = 0x03
    /// WAV_FRM_SEQ1...8: 0x04...0x0B.
    case waveformSequence1 = 0x04
    case go = 0x0C
    case overdriveTimeOffset = 0x0D
    case sustainPositive = 0x0E
    case sustainNegative = 0x0F
    case brakeTimeOffset = 0x10
    case audioToVibeControl = 0x11
    case ratedVoltage = 0x16
    case overdriveClamp = 0x17
    case autoCalibrationCompensation = 0x18
    case autoCalibrationBackEMF = 0x19
    case feedbackControl = 0x1A
    case control1 = 0x1B
    case control2 = 0x1C
    case control3 = 0x1D
    case control4 = 0x1E
    case control5 = 0x1F
    case lraOpenLoopPeriod = 0x20
    case vbat = 0x21
    case lraResonancePeriod = 0x22
  }

  /// STATUS (0x00, read only).
  public struct Status: Register8 {
    public static let address: UInt8 = 0x00
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// DEVICE_ID [7:5]: 3 = DRV2605, 4 = DRV2604, 6 = DRV2604L, 7 = DRV2605L.
    public var deviceID: UInt8 { field(5..<8) }
    /// DIAG_RESULT: the last diagnostic or auto-calibration failed.
    public var diagnosticFailed: Bool { bit(3) }
    /// OVER_TEMP: the thermal limit was exceeded.
    public var overTemperature: Bool { bit(1) }
    /// OC_DETECT: an overcurrent was detected.
    public var overcurrent: Bool { bit(0) }
  }

  /// MODE (0x01); resets to 0x40 (standby, internal trigger).
  public struct Mode: Register8 {
    public static let address: UInt8 = 0x01
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// DEV_RESET: resets every register; clears itself when done.
    public var deviceReset: Bool { get { bit(7) } set { setBit(7, newValue) } }
    /// STANDBY: low-power standby; nothing plays.
    public var standby: Bool { get { bit(6) } set { setBit(6, newValue) } }
    /// MODE [2:0].
    public var mode: OperatingMode {
      get { OperatingMode(rawValue: field(0..<3)) ?? .internalTrigger }
      set { setField(0..<3, newValue.rawValue) }
    }
  }

  /// MODE[2:0].
  public enum OperatingMode: UInt8, Sendable {
    /// The GO bit fires the waveform sequencer.
    case internalTrigger = 0
    case externalEdge = 1
    case externalLevel = 2
    case pwmOrAnalog = 3
    case audioToVibe = 4
    case realTimePlayback = 5
    case diagnostics = 6
    case autoCalibration = 7
  }

  /// LIBRARY_SEL (0x03); resets to 0x01 (TS2200 library A).
  public struct LibrarySelection: Register8 {
    public static let address: UInt8 = 0x03
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// HI_Z: output in high impedance.
    public var highImpedance: Bool { get { bit(4) } set { setBit(4, newValue) } }
    /// LIBRARY_SEL [2:0]: 0 empty, 1...5 TS2200 A...E (ERM), 6 LRA, 7 TS2200 F.
    public var library: UInt8 { get { field(0..<3) } set { setField(0..<3, newValue) } }
  }

  /// WAV_FRM_SEQn (0x04...0x0B): an effect of the ROM library (1...123) or,
  /// with WAIT, a pause of `effect` x 10 ms; 0 ends the sequence.
  public struct WaveformSequence: Register8 {
    public static let address: UInt8 = 0x04
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(effect: UInt8) { self.rawValue = effect & 0x7F }
    /// WAIT: the low seven bits are a pause, 10 ms each.
    public var isWait: Bool { get { bit(7) } set { setBit(7, newValue) } }
    /// WAV_FRM_SEQ [6:0].
    public var effect: UInt8 { get { field(0..<7) } set { setField(0..<7, newValue) } }
    /// The end of a sequence.
    public static let end = WaveformSequence(rawValue: 0)
  }

  /// GO (0x0C).
  public struct Go: Register8 {
    public static let address: UInt8 = 0x0C
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// GO: write 1 to play the sequence; reads 1 until it has played;
    /// writing 0 cancels it.
    public var go: Bool { get { bit(0) } set { setBit(0, newValue) } }
  }

  /// FEEDBACK_CONTROL (0x1A); resets to 0x36 (ERM).
  public struct FeedbackControl: Register8 {
    public static let address: UInt8 = 0x1A
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// N_ERM_LRA: 1 = LRA, 0 = ERM.
    public var lra: Bool { get { bit(7) } set { setBit(7, newValue) } }
    /// FB_BRAKE_FACTOR [6:4].
    public var brakeFactor: UInt8 { get { field(4..<7) } set { setField(4..<7, newValue) } }
    /// LOOP_GAIN [3:2].
    public var loopGain: UInt8 { get { field(2..<4) } set { setField(2..<4, newValue) } }
    /// BEMF_GAIN [1:0].
    public var backEMFGain: UInt8 { get { field(0..<2) } set { setField(0..<2, newValue) } }
  }

  /// CONTROL3 (0x1D); resets to 0xA0 (ERM open loop).
  public struct Control3: Register8 {
    public static let address: UInt8 = 0x1D
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// ERM_OPEN_LOOP: drive an ERM open loop.
    public var ermOpenLoop: Bool { get { bit(5) } set { setBit(5, newValue) } }
    /// LRA_OPEN_LOOP: drive an LRA open loop (no auto-resonance).
    public var lraOpenLoop: Bool { get { bit(0) } set { setBit(0, newValue) } }
  }

  /// The reset value of every register 0x00...0x22 (datasheet 8.6 register
  /// map; STATUS with a DRV2605L's device ID).
  public static let resetValues: [UInt8] = [
    0xE0, 0x40, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 0x00
    0x00, 0x05, 0x19, 0xFF, 0x19, 0xFF, 0x3E, 0x8C, 0x0C, 0x6C, 0x36, 0x93, 0xF5, 0xA0, 0x20, 0x80,  // 0x10
    0x33, 0x00, 0x00,  // 0x20
  ]
}
