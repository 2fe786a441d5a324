/// Driver of the Nuvoton NAU7802 24-bit bridge ADC, generic over the bus.
public struct NAU7802: Sendable, Equatable {
  /// The NAU7802's only address.
  public static let address: I2CAddress = 0x2A
}
