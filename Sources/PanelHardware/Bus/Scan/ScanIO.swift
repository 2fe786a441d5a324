/// The transfers a bus scan makes beyond the drivers' register helpers.
enum ScanIO {
  /// START, address+R, one byte, STOP: i2cdetect's read probe.
  static func readByte<Bus: I2CBus>(at address: I2CAddress, on bus: inout Bus) throws(I2CError) -> UInt8 {
    var value: UInt8 = 0
    try withUnsafeMutableBytes(of: &value) { (p) throws(I2CError) in try bus.read(into: p, from: address) }
    return value
  }

  /// START, address+W, no data, STOP (SMBus quick write).
  static func quickWrite<Bus: I2CBus>(at address: I2CAddress, on bus: inout Bus) throws(I2CError) {
    try bus.write(UnsafeRawBufferPointer(start: nil, count: 0), to: address)
  }
}
