import PanelHardware

/// A chip on a simulated I2C bus, in the manner of Zephyr's I2C emulators: a
/// register file with behaviour, driven byte by byte by the bus as the wire
/// would drive it. Devices are reference types so that a test, a data-ready
/// line and the bus can all see the same chip.
///
/// The bus calls, for one transfer: `start` (address matched; false = NACK),
/// `write` for each byte the controller sends (false = NACK), a second
/// `start` for a repeated START, `read` for each byte the device drives, and
/// `stop` at the STOP condition. `ns` is the simulated time of each event.
public protocol SimulatedI2CDevice: AnyObject {
  /// The 7-bit address the device answers at (its pin strapping).
  var address: I2CAddress { get }
  /// Whether a transfer to `address` is meant for this device (its own
  /// address; the general call 0x00 for chips that take it).
  func answers(_ address: I2CAddress) -> Bool
  /// START or repeated START with a matching address. False leaves the
  /// address unacknowledged (busy, powered down).
  func start(_ address: I2CAddress, reading: Bool, at ns: Int64) -> Bool
  /// A byte from the controller; false = NACK.
  func write(_ byte: UInt8, at ns: Int64) -> Bool
  /// The byte the device drives during a read.
  func read(at ns: Int64) -> UInt8
  /// The STOP condition (also sent after a NACK ends a transfer).
  func stop(at ns: Int64)
  /// For a switch: each downstream segment whose channel is enabled.
  func forEachEnabledSegment(_ body: (SimulatedI2CSegment) -> Void)
}

extension SimulatedI2CDevice {
  public func answers(_ address: I2CAddress) -> Bool { address == self.address }
  public func forEachEnabledSegment(_ body: (SimulatedI2CSegment) -> Void) {}
}

/// One electrical segment of a simulated bus: the main bus, or a channel
/// downstream of a switch, with the devices wired to it.
public final class SimulatedI2CSegment {
  /// How messages name the segment: "sim", "sim mux 0x70 channel 2".
  public let name: String
  public private(set) var devices: [any SimulatedI2CDevice] = []

  public init(name: String) {
    self.name = name
  }

  /// Wires `device` to this segment.
  public func attach(_ device: any SimulatedI2CDevice) {
    devices.append(device)
  }

  /// Unwires every device at `address` (a chip that fell off the bus).
  public func detach(_ address: I2CAddress) {
    devices.removeAll { $0.address == address }
  }
}

/// Something with a data-ready output (a DRDY pin) a simulated GPIO line
/// can follow: its level, and its edges (the times it went from released
/// to asserted), which is what an edge-triggered line sees.
public protocol SimulatedDataReadySource: AnyObject {
  /// Whether the output is asserted at `ns`.
  func isDataReady(at ns: Int64) -> Bool
  /// How often the output has gone from released to asserted up to `ns`.
  func dataReadyEdges(at ns: Int64) -> Int
  /// When the output will next go from released to asserted after `ns`,
  /// if it will without the host doing anything (nil: it will not, e.g.
  /// powered down, or already asserted and held until the host reads).
  func nextDataReady(after ns: Int64) -> Int64?
}
