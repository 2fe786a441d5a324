/// The few one-byte transfers a bus scan makes.
enum ScanIO {
  /// START, address+R, one byte, STOP.
  static func readByte<Bus: I2CBus>(at address: I2CAddress, on bus: inout Bus) throws(I2CError) -> UInt8 {
    var value: UInt8 = 0
    try withUnsafeMutableBytes(of: &value) { (p) throws(I2CError) in try bus.read(into: p, from: address) }
    return value
  }

  /// START, address+W, one byte, STOP.
  static func writeByte<Bus: I2CBus>(_ byte: UInt8, at address: I2CAddress, on bus: inout Bus) throws(I2CError) {
    var value = byte
    try withUnsafeBytes(of: &value) { (p) throws(I2CError) in try bus.write(p, to: address) }
  }

  /// START, address+W, no data, STOP (SMBus quick write).
  static func quickWrite<Bus: I2CBus>(at address: I2CAddress, on bus: inout Bus) throws(I2CError) {
    try bus.write(UnsafeRawBufferPointer(start: nil, count: 0), to: address)
  }

  /// One register: pointer write, repeated START, one byte read.
  static func register<Bus: I2CBus>(_ register: UInt8, at address: I2CAddress, on bus: inout Bus) throws(I2CError)
    -> UInt8
  {
    var pointer = register
    var value: UInt8 = 0
    try withUnsafeBytes(of: &pointer) { (w) throws(I2CError) in
      try withUnsafeMutableBytes(of: &value) { (r) throws(I2CError) in try bus.writeRead(w, into: r, address: address) }
    }
    return value
  }
}
