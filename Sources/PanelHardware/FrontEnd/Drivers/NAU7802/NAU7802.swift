/// Driver of the Nuvoton NAU7802 24-bit bridge ADC, generic over the bus.
/// Each method is one or a few transfers and never waits: the power-up
/// sequence, the calibration and conversions are paced by the caller (the
/// front end's bring-up state machine), so a slow chip never blocks the
/// scan loop. Register accesses use the types of `NAU7802Registers.swift`.
///
/// Power-up (datasheet 9.1; Linux nau7802.c; SparkFun):
/// 1. `resetRegisters`: PU_CTRL.RR = 1, then RR = 0 with PUD = 1.
/// 2. wait about 200 µs, `isPowerUpReady` until PU_CTRL.PUR.
/// 3. `configure`: LDO voltage, gain, rate, channel first, so the LDO
///    starts at its configured voltage (CTRL1.VLDO resets to 4.5 V); then
///    PUD, PUA, AVDDS; 0x15 = 0x30 (clock chopper off); PGA LDOMODE; PGA
///    output capacitor; then CS.
/// 4. wait for the LDO and analog front end (hundreds of ms).
/// 5. `startCalibration(.internalOffset)`; `calibrationStatus` until CALS
///    clears (about 344 ms); CAL_ERR means the calibration failed.
/// 6. drop the first conversions after any configuration change.
public struct NAU7802: Sendable, Equatable {
  /// The NAU7802's only address.
  public static let address: I2CAddress = 0x2A
  /// REV_ID's low nibble.
  public static let revisionNibble: UInt8 = 0x0F
  public var address: I2CAddress { NAU7802.address }

  public init() {}

  /// How a calibration ended.
  public enum CalibrationStatus: Sendable, Equatable {
    case running
    case done
    /// CAL_ERR: the calibration registers are not valid.
    case failed
  }

  // MARK: Registers

  /// Reads one register as its type: START 0x2a+W reg Sr 0x2a+R value STOP.
  public func read<R: Register8>(_ type: R.Type, on bus: inout some I2CBus) throws(I2CError) -> R {
    R(rawValue: try RegisterIO.read(R.address, at: address, on: &bus))
  }

  /// Writes one register: START 0x2a+W reg value STOP.
  public func write<R: Register8>(_ value: R, on bus: inout some I2CBus) throws(I2CError) {
    try RegisterIO.write(R.address, value.rawValue, at: address, on: &bus)
  }

  /// Read-modify-write of one register.
  public func modify<R: Register8>(
    _ type: R.Type, on bus: inout some I2CBus, _ change: (inout R) -> Void
  ) throws(I2CError) {
    var value = try read(type, on: &bus)
    change(&value)
    try write(value, on: &bus)
  }

  /// Reads `buffer.count` registers from `first` in one burst (for dumps).
  public func readRegisters(from first: UInt8, into buffer: UnsafeMutableRawBufferPointer, on bus: inout some I2CBus)
    throws(I2CError)
  {
    try RegisterIO.read(first, into: buffer, at: address, on: &bus)
  }

  // MARK: Power-up

  /// Step 1: PU_CTRL = RR, then PU_CTRL = PUD (two writes).
  public func resetRegisters(on bus: inout some I2CBus) throws(I2CError) {
    var reset = PUCtrl()
    reset.registerReset = true
    try write(reset, on: &bus)
    var up = PUCtrl()
    up.powerUpDigital = true
    try write(up, on: &bus)
  }

  /// Step 2: PU_CTRL.PUR.
  public func isPowerUpReady(on bus: inout some I2CBus) throws(I2CError) -> Bool {
    try read(PUCtrl.self, on: &bus).powerUpReady
  }

  /// The PU_CTRL value of a running chip with these settings.
  public static func runningPUCtrl(_ settings: NAU7802Settings) -> PUCtrl {
    var p = PUCtrl()
    p.powerUpDigital = true
    p.powerUpAnalog = true
    p.internalLDO = settings.ldo != nil
    p.cycleStart = true
    return p
  }

  /// The CTRL1 value for these settings (DRDY pin = conversion ready, active high).
  public static func ctrl1(_ settings: NAU7802Settings) -> Ctrl1 {
    var c = Ctrl1()
    c.gain = settings.gain
    c.ldo = settings.ldo ?? .v4_5
    return c
  }

  /// The CTRL2 value for these settings (no calibration running).
  public static func ctrl2(_ settings: NAU7802Settings) -> Ctrl2 {
    var c = Ctrl2()
    c.rate = settings.rate
    c.channel2 = settings.channel2
    c.calibrationMode = .internalOffset
    return c
  }

  /// Step 3, six writes: CTRL1 and CTRL2 in one burst (VLDO before the
  /// LDO is switched on, so AVDD never sees the 4.5 V reset value); PU_CTRL
  /// (PUD, PUA, AVDDS); ADC (0x15) = 0x30; PGA = 0 (LDOMODE for low-ESR
  /// capacitors); PWR_CTRL with the PGA output capacitor on channel 1;
  /// PU_CTRL with CS.
  public func configure(_ settings: NAU7802Settings, on bus: inout some I2CBus) throws(I2CError) {
    var bytes: (UInt8, UInt8, UInt8) = (
      Ctrl1.address, NAU7802.ctrl1(settings).rawValue, NAU7802.ctrl2(settings).rawValue
    )
    try withUnsafeBytes(of: &bytes) { (p) throws(I2CError) in try bus.write(p, to: address) }
    var running = NAU7802.runningPUCtrl(settings)
    running.cycleStart = false
    try write(running, on: &bus)
    try RegisterIO.write(Register.adc.rawValue, 0x30, at: address, on: &bus)
    try write(PGA(), on: &bus)
    var power = PowerCtrl()
    power.pgaCapacitor = !settings.channel2
    try write(power, on: &bus)
    running.cycleStart = true
    try write(running, on: &bus)
  }

  /// Step 5: CTRL2 with CALMOD = `mode` and CALS = 1 (one write).
  public func startCalibration(_ mode: CalibrationMode, settings: NAU7802Settings, on bus: inout some I2CBus)
    throws(I2CError)
  {
    var c = NAU7802.ctrl2(settings)
    c.calibrationMode = mode
    c.calibrationStart = true
    try write(c, on: &bus)
  }

  /// CTRL2.CALS and CAL_ERR (one read).
  public func calibrationStatus(on bus: inout some I2CBus) throws(I2CError) -> CalibrationStatus {
    let c = try read(Ctrl2.self, on: &bus)
    if c.calibrationStart { return .running }
    return c.calibrationError ? .failed : .done
  }

  // MARK: Conversions

  /// PU_CTRL.CR: a conversion is ready (one read).
  public func isConversionReady(on bus: inout some I2CBus) throws(I2CError) -> Bool {
    try read(PUCtrl.self, on: &bus).conversionReady
  }

  /// The latest conversion: one 3-byte burst from ADCO_B2 (0x12), so the
  /// three bytes belong to one result, sign-extended from 24 bits.
  public func readConversion(on bus: inout some I2CBus) throws(I2CError) -> Int32 {
    var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
    try withUnsafeMutableBytes(of: &bytes) { (p) throws(I2CError) in
      try RegisterIO.read(Register.adco.rawValue, into: p, at: address, on: &bus)
    }
    return NAU7802.signExtend(bytes.0, bytes.1, bytes.2)
  }

  /// A 24-bit two's-complement value, most significant byte first.
  @inline(__always)
  public static func signExtend(_ b2: UInt8, _ b1: UInt8, _ b0: UInt8) -> Int32 {
    RegisterIO.signExtend24(b2, b1, b0)
  }
}
