/// `0x2A` where an address is expected (board defaults, tests, traces).
/// Literals above 0x7F keep their low seven bits, like `I2CAddress(_:)`.
extension I2CAddress: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: UInt8) { self.init(value) }
}
