import PanelFiles

/// Data-ready from a clock: a simulated panel converts at its frame rate, so
/// its "line" fires every `period_us` (scaled by `speed`; 2 = twice as fast).
/// Waits sleep until an absolute deadline (clock_nanosleep, TIMER_ABSTIME),
/// so pacing does not drift.
public struct ClockDataReady: DataReady, Sendable {
  public let period_ns: Int64
  var next_ns: Int64 = 0
  var started = false

  public init(rate_hz: Int, speed: Double = 1) {
    let s = speed > 0 ? speed : 1
    period_ns = max(1, Int64(saturating: (1e9 / Double(max(rate_hz, 1)) / s).rounded()))
  }

  public mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    let now = ClockDataReady.now_ns()
    if !started {
      started = true
      next_ns = now
    }
    let deadline = next_ns
    if deadline - now > timeout_us * 1000 {
      ClockDataReady.sleep(until: now + timeout_us * 1000)
      return false
    }
    ClockDataReady.sleep(until: deadline)
    next_ns += period_ns
    return true
  }

  // The names other files use for the clocks of SystemClocks.swift.
  @inline(__always) package static func now_ns() -> Int64 { monotonicNanoseconds() }
  @inline(__always) package static func sleep(until ns: Int64) { sleepUntilMonotonic(nanoseconds: ns) }
}
