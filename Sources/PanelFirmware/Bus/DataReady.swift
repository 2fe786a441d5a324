/// Why waiting for data-ready failed.
public enum DataReadyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The line or chip could not be opened or requested.
  case unavailable(String)
  /// Reading the event failed with this errno.
  case io(errno: Int32)
  /// Polling a chip's ready bit failed on the bus.
  case bus(I2CError)

  public var description: String {
    switch self {
    case .unavailable(let why): return "data-ready line unavailable: \(why)"
    case .io(let e): return "data-ready line read failed (errno \(e))"
    case .bus(let e): return "polling the ready bit failed: \(e)"
    }
  }
}

/// Whatever tells the scan loop a new conversion is ready: a GPIO edge, a
/// polled status bit, or the clock of a simulated panel. Every wait has a
/// timeout, so a dead chip is reported instead of hanging the loop.
public protocol DataReady {
  /// Waits until the next frame is ready or `timeout_us` passes.
  /// Returns false on timeout.
  mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool
}
