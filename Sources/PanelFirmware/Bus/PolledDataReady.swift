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

/// Data-ready by polling a chip's ready bit, for boards with no data-ready
/// line wired. Reads the bit at once, then every `interval_us` until it is
/// set or the timeout passes; each poll costs one register read on the bus
/// (a 1-byte status read is 39 bit-times, 98 us at 400 kHz).
public struct PolledDataReady<Bit: ReadyBit, Clock: MonotonicClock>: DataReady {
  public var bit: Bit
  public var clock: Clock
  /// Time between two reads of the bit.
  public let interval_us: Int64
  /// Reads of the bit so far.
  public private(set) var polls: UInt64 = 0

  public init(bit: Bit, interval_us: Int64, clock: Clock) {
    self.bit = bit
    self.interval_us = max(interval_us, 1)
    self.clock = clock
  }

  /// Polls until the bit is set (true) or `timeout_us` passes (false). A
  /// bus error while polling is thrown as `.bus`, not retried here: the
  /// scan loop counts and retries it.
  public mutating func wait(timeout_us: Int64) throws(DataReadyError) -> Bool {
    let deadline = clock.now_us() + max(timeout_us, 0)
    while true {
      polls += 1
      do {
        if try bit.isReady() { return true }
      } catch {
        throw .bus(error)
      }
      let now = clock.now_us()
      if now >= deadline { return false }
      clock.sleep(us: min(interval_us, deadline - now))
    }
  }
}

extension PolledDataReady where Clock == SystemClock {
  /// Polls `bit` every `interval_us` on the monotonic clock.
  public init(bit: Bit, interval_us: Int64) {
    self.init(bit: bit, interval_us: interval_us, clock: SystemClock())
  }

  /// A poll interval for a conversion rate: a quarter of the period, at
  /// least 100 us (the bus time of one status read at 400 kHz).
  public static func interval(rate_hz: Int) -> Int64 {
    max(1_000_000 / Int64(max(rate_hz, 1)) / 4, 100)
  }
}
