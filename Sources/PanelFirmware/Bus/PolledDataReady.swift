#if canImport(Glibc)
  import Glibc
#endif

/// A chip's data-ready status bit, read over the bus: NAU7802 PU_CTRL.CR
/// (0x00 bit 5), ADS122C04 config register 2 DRDY (bit 7). Drivers provide
/// one; `ReadyBitReader` wraps a closure.
public protocol ReadyBit {
  /// Reads the bit once: true when a new conversion is ready.
  mutating func isReady() throws(I2CError) -> Bool
}

/// A `ReadyBit` from a closure (`{ try nau.conversionReady() }`).
public struct ReadyBitReader: ReadyBit {
  let read: () throws(I2CError) -> Bool
  public init(_ read: @escaping () throws(I2CError) -> Bool) { self.read = read }
  public mutating func isReady() throws(I2CError) -> Bool { try read() }
}

/// Time for polling: a monotonic clock and a sleep. Tests use a virtual one.
public protocol PollTimer {
  mutating func now_us() -> Int64
  mutating func sleep(us: Int64)
}

/// CLOCK_MONOTONIC and clock_nanosleep.
public struct MonotonicPollTimer: PollTimer, Sendable {
  public init() {}
  public func now_us() -> Int64 { monotonicMicroseconds() }
  public func sleep(us: Int64) {
    guard us > 0 else { return }
    var ts = timespec(tv_sec: Int(us / 1_000_000), tv_nsec: Int(us % 1_000_000) * 1000)
    var rest = timespec()
    while clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rest) == EINTR { ts = rest }
  }
}

/// Data-ready by polling a chip's ready bit, for boards with no data-ready
/// line wired. Reads the bit at once, then every `interval_us` until it is
/// set or the timeout passes; each poll costs one register read on the bus
/// (a 1-byte status read is 39 bit-times, 98 us at 400 kHz).
public struct PolledDataReady<Bit: ReadyBit, Timer: PollTimer>: DataReady {
  public var bit: Bit
  public var timer: Timer
  /// Time between two reads of the bit.
  public let interval_us: Int64
  /// Reads of the bit so far.
  public private(set) var polls: UInt64 = 0

  public init(bit: Bit, interval_us: Int64, timer: Timer) {
    self.bit = bit
    self.interval_us = max(interval_us, 1)
    self.timer = timer
  }

  /// Polls until the bit is set (true) or `timeout_us` passes (false). A
  /// bus error while polling is thrown as `.bus`, not retried here: the
  /// scan loop counts and retries it.
  public mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    let deadline = timer.now_us() + max(timeout_us, 0)
    while true {
      polls += 1
      do {
        if try bit.isReady() { return true }
      } catch {
        throw .bus(error)
      }
      let now = timer.now_us()
      if now >= deadline { return false }
      timer.sleep(us: min(interval_us, deadline - now))
    }
  }
}

extension PolledDataReady where Timer == MonotonicPollTimer {
  /// Polls `bit` every `interval_us` on the monotonic clock.
  public init(bit: Bit, interval_us: Int64) {
    self.init(bit: bit, interval_us: interval_us, timer: MonotonicPollTimer())
  }

  /// A poll interval for a conversion rate: a quarter of the period, at
  /// least 100 us (the bus time of one status read at 400 kHz).
  public static func interval(rate_hz: Int) -> Int64 {
    max(1_000_000 / Int64(max(rate_hz, 1)) / 4, 100)
  }
}
