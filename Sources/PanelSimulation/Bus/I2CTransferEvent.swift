import PanelHardware

/// One transfer on a simulated bus, as a trace records it. Tests compare a
/// whole trace with `==` (like swift-mmio's tracing interposer), so the
/// exact bus traffic of a driver is part of what it is tested for.
public enum I2CTransferEvent: Equatable, Sendable, CustomStringConvertible {
  /// START, address+W, bytes, STOP.
  case write(I2CAddress, [UInt8])
  /// START, address+R, the bytes read, STOP.
  case read(I2CAddress, [UInt8])
  /// START, address+W, bytes, Sr, address+R, the bytes read, STOP.
  case writeRead(I2CAddress, [UInt8], [UInt8])
  /// The address (or a byte) was not acknowledged; the transfer ended there.
  case nack(I2CAddress)
  /// The transfer timed out (SCL held low).
  case timeout(I2CAddress)
  /// The adapter reported a bus error (an injected fault).
  case busError(I2CAddress)

  public var description: String {
    switch self {
    case .write(let a, let w): return "W \(a) [\(Self.hex(w))]"
    case .read(let a, let r): return "R \(a) -> [\(Self.hex(r))]"
    case .writeRead(let a, let w, let r): return "WR \(a) [\(Self.hex(w))] -> [\(Self.hex(r))]"
    case .nack(let a): return "NACK \(a)"
    case .timeout(let a): return "TIMEOUT \(a)"
    case .busError(let a): return "BUS ERROR \(a)"
    }
  }

  static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return bytes.map { String(digits[Int($0 >> 4)]) + String(digits[Int($0 & 15)]) }
      .joined(separator: " ")
  }
}
