/// A 7-bit I2C target address (0x00...0x7F).
public struct I2CAddress: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: UInt8
  public init?(rawValue: UInt8) {
    guard rawValue < 0x80 else { return nil }
    self.rawValue = rawValue
  }
  public init(_ value: UInt8) { self.rawValue = value & 0x7F }
  public var description: String {
    let digits = Array("0123456789abcdef")
    return "0x" + String(digits[Int(rawValue >> 4)]) + String(digits[Int(rawValue & 15)])
  }
}

/// Why a bus transfer failed. Every case names the target address so a
/// message can say which chip did not answer.
public enum I2CError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The target did not acknowledge its address or a byte (EREMOTEIO, ENXIO).
  case nack(I2CAddress)
  /// The transfer did not complete in time (ETIMEDOUT).
  case timeout(I2CAddress)
  /// The adapter reported a bus error, lost arbitration or another errno.
  case bus(I2CAddress, errno: Int32)
  /// The adapter cannot do this transfer shape (EOPNOTSUPP).
  case unsupported(I2CAddress)
  /// A kernel driver owns the address (i2c-dev's I2C_SLAVE fails with
  /// EBUSY), so user space may not address it through SMBus calls.
  case claimed(I2CAddress)

  public var address: I2CAddress {
    switch self {
    case .nack(let a), .timeout(let a), .bus(let a, _), .unsupported(let a), .claimed(let a): return a
    }
  }

  public var description: String {
    switch self {
    case .nack(let a): return "no acknowledge from \(a)"
    case .timeout(let a): return "transfer to \(a) timed out"
    case .bus(let a, let e): return "bus error talking to \(a) (errno \(e))"
    case .unsupported(let a): return "the adapter cannot do this transfer to \(a)"
    case .claimed(let a):
      return "address \(a) is claimed by a kernel driver (ioctl I2C_SLAVE: EBUSY); unbind the driver to use it here"
    }
  }
}

/// An I2C bus, with one method per transfer shape. Drivers are generic over
/// it; the Linux i2c-dev bus and the simulated bus both conform, so the same
/// driver code runs against real and simulated chips.
public protocol I2CBus {
  /// START, address+W, `bytes`, STOP.
  mutating func write(_ bytes: UnsafeRawBufferPointer, to address: I2CAddress) throws(I2CError)
  /// START, address+R, `buffer.count` bytes, STOP.
  mutating func read(into buffer: UnsafeMutableRawBufferPointer, from address: I2CAddress) throws(I2CError)
  /// START, address+W, `bytes`, repeated START, address+R, `buffer.count`
  /// bytes, STOP: one combined transfer (a register read).
  mutating func writeRead(
    _ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer,
    address: I2CAddress
  ) throws(I2CError)
  /// The timing a simulated bus charges for its transfers (what a front
  /// end's description shows); nil for a real bus, whose timing is the
  /// configured clock's.
  var modelledTiming: I2CBusTiming? { get }
}

extension I2CBus {
  public var modelledTiming: I2CBusTiming? { nil }
}
