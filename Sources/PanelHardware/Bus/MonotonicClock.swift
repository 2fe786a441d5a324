#if canImport(Glibc)
  import Glibc
#endif

/// Time as drivers see it: a monotonic microsecond count and a way to wait.
/// Every driver wait (power-up, calibration, write cycles, polling) goes
/// through it, so the same driver runs on the system clock against real
/// chips and on a simulated clock against simulated ones.
public protocol MonotonicClock {
  /// Monotonic time, microseconds (any origin).
  mutating func now_us() -> Int64
  /// Waits `us` microseconds (at least; a real clock may oversleep).
  mutating func sleep(us: Int64)
}

/// The system's monotonic clock: `clock_gettime(CLOCK_MONOTONIC)` and
/// `clock_nanosleep` (EINTR resumed with the remaining time).
public struct SystemClock: MonotonicClock, Sendable {
  public init() {}

  public mutating func now_us() -> Int64 { monotonicMicroseconds() }

  public mutating func sleep(us: Int64) {
    guard us > 0 else { return }
    var request = timespec(tv_sec: Int(us / 1_000_000), tv_nsec: Int(us % 1_000_000) * 1000)
    var remaining = timespec()
    while clock_nanosleep(CLOCK_MONOTONIC, 0, &request, &remaining) == EINTR {
      request = remaining
    }
  }
}
