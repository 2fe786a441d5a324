/// Driver of the TI ADS122C04 24-bit ADC, generic over the bus.
public struct ADS122C04: Sendable, Equatable {
  public let address: I2CAddress
}
