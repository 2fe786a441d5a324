import PanelHardware

/// A fault a test injects into a simulated bus, on the transfers to one
/// address (or to any).
public enum I2CFault: Equatable, Sendable {
  /// The address is not acknowledged (a glitch, a chip that is not there).
  case nack
  /// SCL is held low until the adapter gives up (`I2CError.timeout`).
  case timeout
  /// The adapter reports this errno (EIO a bus error, EAGAIN lost arbitration).
  case busError(errno: Int32)
  /// Byte `index` of what is read comes back XORed with `mask` (noise on
  /// SDA): the transfer itself succeeds.
  case corruptRead(index: Int, mask: UInt8)
}

/// An injected fault and which transfers it hits.
struct I2CFaultRule {
  var fault: I2CFault
  var address: I2CAddress?
  /// Matching transfers to let through first.
  var skip: Int
  /// Matching transfers still to hit (Int.max: every one).
  var remaining: Int

  mutating func take(_ target: I2CAddress) -> I2CFault? {
    guard remaining > 0, address == nil || address == target else { return nil }
    if skip > 0 {
      skip -= 1
      return nil
    }
    if remaining != Int.max { remaining -= 1 }
    return fault
  }
}
