/// The bus as a driver front end uses it: transfers to a chip at a place
/// (its switch channel selected first, and only when it changes), retried
/// up to a limit, every failure and retry counted in `health`.
public struct ChipBus<Bus: I2CBus, Clock: MonotonicClock> {
  public var bus: Bus
  public var clock: Clock
  public let mux: TCA9548A?
  /// Attempts after a failure before the error is passed on.
  public let retries: Int
  public var health = FrontEndHealth()
  /// The switch's control register as last written (nil: unknown).
  public private(set) var selected: UInt8?

  public init(bus: Bus, clock: Clock, mux: TCA9548A?, retries: Int) {
    self.bus = bus
    self.clock = clock
    self.mux = mux
    self.retries = retries
  }

  /// Runs `body` on the chip at `place`, retrying failed transfers.
  @inline(__always)
  public mutating func run<T>(
    _ place: DriverConfiguration.Place, _ body: (inout Bus) throws(I2CError) -> T
  ) throws(I2CError) -> T {
    var attempt = 0
    while true {
      do throws(I2CError) {
        try select(place)
        return try body(&bus)
      } catch {
        health.busErrors += 1
        // A glitch may have hit the switch too: select again next time.
        selected = nil
        if attempt >= retries { throw error }
        attempt += 1
        health.retries += 1
      }
    }
  }

  /// Connects the switch channel of `place` (nothing for the main bus).
  /// A selection is a transfer of its own: it takes effect at its STOP.
  public mutating func select(_ place: DriverConfiguration.Place) throws(I2CError) {
    guard let mux, let channel = place.channel else { return }
    let mask: UInt8 = 1 << UInt8(channel)
    if selected == mask { return }
    selected = nil
    try mux.select(mask: mask, on: &bus)
    selected = mask
  }

  /// Connects several channels at once (broadcast writes to chips that
  /// share an address).
  public mutating func select(mask: UInt8) throws(I2CError) {
    guard let mux else { return }
    selected = nil
    try mux.select(mask: mask, on: &bus)
    selected = mask
  }

  /// Reads the switch's control register (a presence check).
  public mutating func probeMux() throws(I2CError) {
    guard let mux else { return }
    selected = try mux.selection(on: &bus)
  }
}

/// Why a chip is not delivering.
public enum ChipFault: Error, Equatable, Sendable, CustomStringConvertible {
  /// A transfer failed after its retries (NACK: the chip does not answer).
  case bus(I2CError)
  /// NAU7802: PU_CTRL.PUR never set after PUD.
  case powerUpNeverReady
  /// NAU7802: CTRL2.CAL_ERR after an internal calibration.
  case calibrationFailed
  /// NAU7802: CTRL2.CALS still set after the timeout.
  case calibrationTimeout
  /// The chip answers but delivers no conversions (a stuck ready bit).
  case noConversions
  /// The chip is not what the board says (identity or configuration).
  case unexpected(String)
  /// Its results fail their integrity check (CRC) after the retries.
  case corruptData

  public var description: String {
    switch self {
    case .bus(.nack): return "does not answer (no acknowledge)"
    case .bus(let e): return e.description
    case .powerUpNeverReady: return "power-up ready (PU_CTRL.PUR) never set"
    case .calibrationFailed: return "internal calibration failed (CTRL2.CAL_ERR)"
    case .calibrationTimeout: return "internal calibration did not finish (CTRL2.CALS still set)"
    case .noConversions: return "answers but delivers no conversions (stuck)"
    case .unexpected(let why): return why
    case .corruptData: return "results fail their CRC check"
    }
  }
}

/// Where a chip of a driver front end is in its life.
public enum ChipCondition<Step: Equatable & Sendable>: Equatable, Sendable {
  /// Being brought up: `step` is due at `wake_us`.
  case bringingUp(Step, wake_us: Int64)
  case ready
  /// Failed; bring-up is tried again at `retry_us`.
  case failed(ChipFault, retry_us: Int64)

  public var isReady: Bool { self == .ready }
}

/// Something a front end reports to its user while running: a chip failed,
/// reset, or came back.
public struct FrontEndNotice: Sendable, Equatable, CustomStringConvertible {
  public var time_us: Int64
  public var message: String
  public var description: String { message }
}

/// A bounded queue of notices (oldest dropped when full).
public struct NoticeQueue: Sendable {
  var items: [FrontEndNotice] = []
  let capacity = 32
  public init() {}
  public mutating func post(_ notice: FrontEndNotice) {
    if items.count == capacity { items.removeFirst() }
    items.append(notice)
  }
  public mutating func take() -> FrontEndNotice? { items.isEmpty ? nil : items.removeFirst() }
}

/// Back-off and reporting of one chip's failures. A failure is reported
/// once; bring-up is tried again after 0.25 s, then 0.5 s, then every 1 s;
/// the chip counts as recovered, and is reported so, after a second of good
/// results, so a chip that keeps failing and coming back is one report,
/// not one per attempt.
public struct ChipRecovery: Sendable, Equatable {
  var backoff_us: Int64 = 0
  var readySince_us: Int64?
  /// A failure was reported and no recovery yet.
  public private(set) var reported = false
  public static let stable_us: Int64 = 1_000_000
  public static let maximumBackoff_us: Int64 = 1_000_000

  public init() {}

  /// The chip failed at `now`: when to try again, and whether to report.
  public mutating func failed(now: Int64) -> (retry_us: Int64, report: Bool) {
    readySince_us = nil
    backoff_us = backoff_us == 0 ? 250_000 : min(backoff_us * 2, ChipRecovery.maximumBackoff_us)
    let report = !reported
    reported = true
    return (now + backoff_us, report)
  }

  /// The chip is up again at `now` (bring-up finished).
  public mutating func ready(now: Int64) {
    readySince_us = now
  }

  /// A good result at `now`: true when the chip has just become stable
  /// after a reported failure (report it).
  public mutating func good(now: Int64) -> Bool {
    guard backoff_us > 0, let since = readySince_us, now - since >= ChipRecovery.stable_us else { return false }
    backoff_us = 0
    defer { reported = false }
    return reported
  }
}
