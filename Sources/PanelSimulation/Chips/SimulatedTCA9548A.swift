import PanelHardware

/// A simulated TCA9548A eight-channel I2C switch (TI SCPS207F).
///
/// One control register, bit n enabling downstream channel n; several may
/// be enabled at once. A written byte becomes active only at the STOP that
/// ends the transfer (so a select cannot share a combined transfer with
/// what it selects); when several bytes are written the last one wins.
/// Reads return the active register. Power-on and RESET: 0x00, nothing
/// connected.
public final class SimulatedTCA9548A: SimulatedI2CDevice {
  public let address: I2CAddress
  /// The downstream segments, channel 0...7.
  public let channels: [SimulatedI2CSegment]
  /// The active control register.
  public private(set) var control: UInt8 = 0
  var pending: UInt8?
  /// False: the switch does not answer (unpowered, absent).
  public var isPresent = true

  /// A switch at `address` (0x70...0x77) on a bus named `busName`.
  public init(address: I2CAddress = 0x70, busName: String = "sim") {
    self.address = address
    channels = (0..<8).map { SimulatedI2CSegment(name: "\(busName) mux \(address) channel \($0)") }
  }

  /// Wires `device` to downstream channel `channel`.
  public func attach(_ device: any SimulatedI2CDevice, channel: Int) {
    channels[channel].attach(device)
  }

  /// The RESET pin, or a power cycle: every channel off.
  public func reset() {
    control = 0
    pending = nil
  }

  public func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool { isPresent }

  public func write(_ byte: UInt8, at ns: Int64) -> Bool {
    pending = byte
    return true
  }

  public func read(at ns: Int64) -> UInt8 { control }

  public func stop(at ns: Int64) {
    if let pending { control = pending }
    pending = nil
  }

  public func forEachEnabledSegment(_ body: (SimulatedI2CSegment) -> Void) {
    guard isPresent else { return }
    for channel in 0..<8 where control & (1 << channel) != 0 { body(channels[channel]) }
  }
}
