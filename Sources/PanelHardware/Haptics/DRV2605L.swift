import PanelFiles

/// Driver of the TI DRV2605L haptic driver (ERM or LRA actuator, licensed
/// ROM effect library), generic over the bus. Register accesses use the
/// types of `DRV2605LRegisters.swift`.
///
/// Bring-up (datasheet 9.2 "Typical application", SLOA189):
/// 1. read STATUS: DEVICE_ID must be 7 (DRV2605L) or 3 (DRV2605);
/// 2. FEEDBACK_CONTROL.N_ERM_LRA for the actuator;
/// 3. RATED_VOLTAGE and OD_CLAMP (one burst from 0x16);
/// 4. LIBRARY_SEL;
/// 5. MODE = internal trigger, out of standby (last: nothing plays before
///    the chip is configured).
///
/// A click is one write: WAV_FRM_SEQ1 = effect, WAV_FRM_SEQ2...8 = 0 (the
/// sequence ends after the effect) and GO = 1, one burst from 0x04 through
/// 0x0C (the register address auto-increments). GO only fires on a 0 -> 1
/// write, so while an earlier effect may still be playing the click is
/// preceded by GO = 0, which cancels it. MODE read back tells whether the
/// chip is still configured (a chip reset since bring-up sits in standby
/// and ignores GO).
public struct DRV2605L: Sendable, Equatable {
  /// The DRV2605L's only address.
  public static let address: I2CAddress = 0x5A
  public var address: I2CAddress { DRV2605L.address }
  /// STATUS.DEVICE_ID values this driver runs.
  public static let deviceIDs: [UInt8] = [7, 3]

  public init() {}

  /// The actuator the chip drives (PanelFormats: a board file names it).
  public typealias Actuator = DRV2605LSettings.Actuator
  /// What bring-up writes (PanelFormats: a board file sets it).
  public typealias Settings = DRV2605LSettings

  // MARK: Registers

  /// Reads one register as its type: START 0x5a+W reg Sr 0x5a+R value STOP.
  public func read<R: Register8>(_ type: R.Type, on bus: inout some I2CBus) throws(I2CError) -> R {
    R(rawValue: try RegisterIO.read(R.address, at: address, on: &bus))
  }

  /// Writes one register: START 0x5a+W reg value STOP.
  public func write<R: Register8>(_ value: R, on bus: inout some I2CBus) throws(I2CError) {
    try RegisterIO.write(R.address, value.rawValue, at: address, on: &bus)
  }

  // MARK: Bring-up

  /// The chip's STATUS (one read).
  public func status(on bus: inout some I2CBus) throws(I2CError) -> Status {
    try read(Status.self, on: &bus)
  }

  /// Configures a chip whose STATUS has been checked (four writes), and
  /// takes it out of standby.
  public func configure(_ s: Settings, on bus: inout some I2CBus) throws(I2CError) {
    var feedback = FeedbackControl(rawValue: DRV2605L.resetValues[Int(FeedbackControl.address)])
    feedback.lra = s.actuator == .lra
    try write(feedback, on: &bus)
    var voltages: (UInt8, UInt8, UInt8) = (Register.ratedVoltage.rawValue, s.ratedVoltage, s.overdriveClamp)
    try withUnsafeBytes(of: &voltages) { (p) throws(I2CError) in try bus.write(p, to: address) }
    var library = LibrarySelection()
    library.library = s.library
    try write(library, on: &bus)
    var mode = Mode()
    mode.mode = .internalTrigger
    mode.standby = false
    try write(mode, on: &bus)
  }

  // MARK: Playing

  /// Plays one effect of the ROM library now: one write of 10 bytes from
  /// WAV_FRM_SEQ1 (0x04) through GO (0x0C); with `cancelling`, GO = 0 first
  /// (an earlier effect may still be playing).
  public func play(effect: UInt8, cancelling: Bool, on bus: inout some I2CBus) throws(I2CError) {
    if cancelling { try stop(on: &bus) }
    var burst: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
      WaveformSequence.address, WaveformSequence(effect: effect).rawValue, 0, 0, 0, 0, 0, 0, 0, 1
    )
    try withUnsafeBytes(of: &burst) { (p) throws(I2CError) in try bus.write(p, to: address) }
  }

  /// MODE: whether the chip is out of standby in internal-trigger mode, as
  /// bring-up left it (one read).
  public func isConfigured(on bus: inout some I2CBus) throws(I2CError) -> Bool {
    let mode = try read(Mode.self, on: &bus)
    return !mode.standby && mode.mode == .internalTrigger
  }

  /// Cancels what is playing (one write).
  public func stop(on bus: inout some I2CBus) throws(I2CError) {
    try write(Go(), on: &bus)
  }
}
