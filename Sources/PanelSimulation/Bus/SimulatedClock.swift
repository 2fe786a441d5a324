import PanelHardware

/// The time of a simulated board, in nanoseconds from power-on. Bus
/// transfers advance it by their modelled duration, driver waits by what
/// they wait, and simulated chips convert on it; nothing reads the wall
/// clock, so a simulated run is deterministic.
///
/// With `speed > 0` waits are also paced against the wall clock (1 = real
/// time), so a simulated board can be watched live; with 0 it runs as fast
/// as the host can.
public final class SimulatedClock: MonotonicClock {
  public private(set) var now_ns: Int64 = 0
  /// Simulated time per wall time at waits: 0 = no pacing.
  public var speed: Double
  var origin: (wall_ns: Int64, simulated_ns: Int64)?

  public init(speed: Double = 0) {
    self.speed = speed
  }

  /// Moves time forward by `ns` (never backwards).
  public func advance(by ns: Int64) {
    if ns > 0 { now_ns += ns }
  }

  /// Moves time forward to `ns` if that is later.
  public func advance(to ns: Int64) {
    if ns > now_ns { now_ns = ns }
  }

  public func now_us() -> Int64 { now_ns / 1000 }

  /// Advances by `us` and, when pacing, lets the wall clock catch up.
  public func sleep(us: Int64) {
    advance(by: us * 1000)
    pace()
  }

  /// With `speed > 0`, sleeps until the wall clock has caught up with the
  /// simulated time (scaled). A host slower than real time never sleeps.
  public func pace() {
    guard speed > 0 else { return }
    let wall = ClockDataReady.now_ns()
    guard let origin else {
      self.origin = (wall, now_ns)
      return
    }
    let target = origin.wall_ns + Int64(Double(now_ns - origin.simulated_ns) / speed)
    if target > wall { ClockDataReady.sleep(until: target) }
  }
}
