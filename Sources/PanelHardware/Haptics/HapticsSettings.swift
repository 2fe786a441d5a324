/// A haptic driver chip that clicks at the force stages, as the board
/// file's `[haptics]` table sets it up (read by PanelFormats).
public struct HapticsSettings: Sendable, Equatable {
  /// The chip: "drv2605l".
  public var kind = "drv2605l"
  /// Where the chip is: an i2c-dev node or a simulated bus.
  public var bus = HapticsBus.simulated
  public var chip = DRV2605LSettings()
  /// ROM library effect played on entering peek (and for the other
  /// peek-level actions: an icon's quick-action menu, a long press).
  /// Default 21, "Medium Click 1 - 100%".
  public var peekEffect: UInt8 = 21
  /// Effect played on entering pop. Default 1, "Strong Click - 100%".
  public var popEffect: UInt8 = 1
  /// Attempts after a failed transfer.
  public var retries = 1
  /// Where `bus` was defined, for errors about the device.
  public var file = ""
  public var busLine: Int?

  public init() {}
}

/// The bus a haptic driver sits on.
public enum HapticsBus: Sendable, Equatable, CustomStringConvertible {
  /// A simulated chip on a simulated bus of its own (`bus = "sim"`).
  case simulated
  /// The i2c-dev node (`/dev/i2c-1`).
  case device(String)

  /// As the board file and messages name it: the node, or "sim".
  public var description: String {
    switch self {
    case .simulated: "sim"
    case .device(let path): path
    }
  }
}

/// What bring-up writes to a DRV2605L haptic driver (`DRV2605L.Settings`).
public struct DRV2605LSettings: Sendable, Equatable {
  public var actuator = Actuator.lra
  /// LIBRARY_SEL: 6 (LRA) for an LRA, 1...5 or 7 (TS2200 A...F) for an ERM.
  public var library: UInt8 = 6
  /// RATED_VOLTAGE code (register 0x16; datasheet 8.5.2.1 gives volts).
  public var ratedVoltage: UInt8 = 0x3E
  /// OD_CLAMP code (register 0x17; datasheet 8.5.2.2).
  public var overdriveClamp: UInt8 = 0x8C
  public init() {}

  /// The actuator the chip drives.
  public enum Actuator: String, Sendable, CaseIterable {
    /// Eccentric rotating mass.
    case erm
    /// Linear resonant actuator.
    case lra
  }
}
