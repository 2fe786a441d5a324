#if canImport(Glibc)
  import Glibc
#endif

// The system's clocks, read here and nowhere else (clock_gettime).

/// Monotonic time, nanoseconds (CLOCK_MONOTONIC, any origin).
public func monotonicNanoseconds() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Monotonic time, microseconds (CLOCK_MONOTONIC, any origin).
public func monotonicMicroseconds() -> Int64 { monotonicNanoseconds() / 1000 }

/// Unix time, microseconds (CLOCK_REALTIME): for stamps a host compares
/// with its own wall clock (TUIO time tags).
public func unixMicroseconds() -> Int64 {
  var ts = timespec()
  clock_gettime(CLOCK_REALTIME, &ts)
  return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
}

/// Sleeps until CLOCK_MONOTONIC reads `ns` (an absolute deadline, so
/// pacing does not drift; resumed after a signal), or not at all once a
/// stop is requested (`StopRequest`).
public func sleepUntilMonotonic(nanoseconds ns: Int64) {
  var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
  while !StopRequest.isRequested && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}
