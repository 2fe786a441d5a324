/// A fault at a simulated bridge ADC's input that drives every conversion
/// to a rail of the 24-bit range, as the real chips report it: the result
/// is a valid transfer carrying a code that is no measurement.
public enum SimulatedInputFault: Sendable, Equatable {
  /// A bridge wire open: the input floats to positive full scale, 0x7FFFFF.
  case openBridge
  /// The input driven below the range (overload, a shorted excitation):
  /// negative full scale, 0x800000.
  case negativeOverload

  /// The code every conversion reads.
  public var code: Int32 {
    switch self {
    case .openBridge: return 8_388_607
    case .negativeOverload: return -8_388_608
    }
  }
}
