/// Driver of a TCA9548A eight-channel I2C switch (TI SCPS207F), generic over
/// the bus. Its one control register has a bit per downstream channel. A
/// selection takes effect at the STOP of its own transfer, so it is always a
/// transfer of its own, never part of a combined one.
public struct TCA9548A: Sendable, Equatable {
  /// 0x70...0x77 (pins A2..A0).
  public let address: I2CAddress
  public static let addresses: ClosedRange<UInt8> = 0x70...0x77
  public static let channelCount = 8

  public init(address: I2CAddress = 0x70) {
    self.address = address
  }

  /// Connects exactly the channels in `mask` (bit n = channel n; 0 = none):
  /// START, 0x70+W, mask, STOP.
  public func select(mask: UInt8, on bus: inout some I2CBus) throws(I2CError) {
    try RegisterIO.write(byte: mask, at: address, on: &bus)
  }

  /// Connects channel `channel` (0...7) alone.
  public func select(channel: Int, on bus: inout some I2CBus) throws(I2CError) {
    try select(mask: 1 << UInt8(channel & 7), on: &bus)
  }

  /// The control register as the switch reports it: START, 0x70+R, byte, STOP.
  public func selection(on bus: inout some I2CBus) throws(I2CError) -> UInt8 {
    var value: UInt8 = 0
    try withUnsafeMutableBytes(of: &value) { (p) throws(I2CError) in try bus.read(into: p, from: address) }
    return value
  }
}
