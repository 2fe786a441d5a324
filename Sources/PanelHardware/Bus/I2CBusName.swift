/// Which I2C bus a board's chips are on (`[frontend] bus` of a driver
/// board): a Linux i2c-dev node, or the simulated bus of a twin.
public enum I2CBusName: Sendable, Equatable, CustomStringConvertible {
  /// An i2c-dev node (`bus = "/dev/i2c-1"`).
  case device(String)
  /// The simulated bus of a twin (`bus = "sim"`).
  case simulated

  /// How messages name it: the node's path, or "sim".
  public var description: String {
    switch self {
    case .device(let path): return path
    case .simulated: return "sim"
    }
  }
}
