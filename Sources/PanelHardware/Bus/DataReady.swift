/// Why waiting for data-ready failed.
public enum DataReadyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The line or chip could not be opened or requested.
  case unavailable(String)
  /// Reading the event or the level failed with this errno.
  case io(errno: Int32)

  public var description: String {
    switch self {
    case .unavailable(let why): return "data-ready line unavailable: \(why)"
    case .io(let e): return "data-ready line read failed (errno \(e))"
    }
  }
}

/// Whatever tells the scan loop a new conversion is ready: a GPIO edge, or
/// the clock of a simulated panel. Every wait has a timeout, so a dead chip
/// is reported instead of hanging the loop. (Boards without a line poll
/// their chips' ready bits in the front end instead.)
public protocol DataReady {
  /// Waits until the next frame is ready (an edge since the previous
  /// wait) or `timeout_us` passes. Returns false on timeout.
  mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool
  /// Whether the line is at its active level now; nil when the source
  /// cannot tell. A line that is already asserted gives no edge until it
  /// has been released (a NAU7802's DRDY may stay high between
  /// conversions above 40 SPS), so a front end then asks the chip.
  mutating func isAsserted() throws(DataReadyError) -> Bool?
}

extension DataReady {
  public mutating func isAsserted() throws(DataReadyError) -> Bool? { nil }
}
