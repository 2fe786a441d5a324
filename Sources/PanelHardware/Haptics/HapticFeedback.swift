import ForceCore
import PanelFiles
import PanelTouch

/// Something that answers a frame's events with a haptic click, called in
/// the same frame as the report, before the next frame is read. (`inout`
/// only so that the report is read in place; it is not modified.)
public protocol HapticOutput {
  mutating func respond(to report: inout FrameReport)
}

/// No haptics (the board has no `[haptics]`).
public struct NoHaptics: HapticOutput {
  public init() {}
  @inline(__always) public mutating func respond(to report: inout FrameReport) {}
}

/// Counters of the haptic chip; they only grow.
public struct HapticsHealth: Sendable, Equatable {
  /// Clicks written to the chip (a replay after a reset counts again).
  public var clicks: UInt64 = 0
  public var retries: UInt64 = 0
  /// Clicks lost after their retries.
  public var failures: UInt64 = 0
  /// Bring-ups run (the first, and after failures).
  public var bringUps: UInt64 = 0
  /// Chips found reset (in standby after a click) and brought up again.
  public var reinitialisations: UInt64 = 0
  public init() {}
}

/// Why the haptic chip is not clicking.
public enum HapticsError: Error, Equatable, Sendable, CustomStringConvertible {
  case bus(I2CError)
  /// STATUS.DEVICE_ID is not a DRV2605(L).
  case unexpectedDevice(I2CAddress, deviceID: UInt8)

  public var description: String {
    switch self {
    case .bus(let e): return "haptics: DRV2605L: \(e)"
    case .unexpectedDevice(let a, let id):
      return "haptics: the chip at \(a) reports DEVICE_ID \(id), not a DRV2605L (7) or DRV2605 (3)"
    }
  }
}

/// The force stages' clicks on a DRV2605L: entering pop plays the pop
/// effect; entering peek (and the other peek-level actions: an icon's
/// quick-action menu, a long press) plays the peek effect. At most one
/// click per frame, the strongest.
///
/// In the event's frame the click is one write (`DRV2605L.play`), preceded
/// by GO = 0 when the last click was less than a second ago (it may still
/// be playing). In the next frame MODE is read back: a chip reset since
/// bring-up (in standby: it ignored GO) is brought up again and the click
/// replayed, one frame late. Failed transfers are retried, counted and
/// survived; a chip that stops answering is brought up again before the
/// next click. Allocation-free.
public struct HapticFeedback<Bus: I2CBus>: HapticOutput {
  public var bus: Bus
  public let settings: HapticsSettings
  public let driver = DRV2605L()
  public private(set) var health = HapticsHealth()
  /// The frame and effect of the last click played.
  public private(set) var lastClick: (frame: UInt64, effect: UInt8)?
  /// The last failure, for the user.
  public private(set) var lastError: HapticsError?
  /// A click since which an earlier one may still be playing, in frame time.
  public static var playingWindow_us: Int64 { 1_000_000 }
  var ready = false
  var lastClick_us: Int64?
  /// The click to check in the next frame.
  var unchecked: UInt8?

  public init(bus: Bus, settings: HapticsSettings) {
    self.bus = bus
    self.settings = settings
  }

  /// Checks the chip and configures it. On failure the next click tries
  /// again.
  public mutating func start() throws(HapticsError) {
    health.bringUps += 1
    ready = false
    let status: DRV2605L.Status
    do throws(I2CError) {
      status = try attempt { (bus) throws(I2CError) in try DRV2605L().status(on: &bus) }
    } catch {
      lastError = .bus(error)
      throw .bus(error)
    }
    guard DRV2605L.deviceIDs.contains(status.deviceID) else {
      let e = HapticsError.unexpectedDevice(driver.address, deviceID: status.deviceID)
      lastError = e
      throw e
    }
    let chip = settings.chip
    do throws(I2CError) {
      try attempt { (bus) throws(I2CError) in try DRV2605L().configure(chip, on: &bus) }
    } catch {
      lastError = .bus(error)
      throw .bus(error)
    }
    ready = true
  }

  /// The effect this frame's events call for, if any.
  public func effect(for report: inout FrameReport) -> UInt8? {
    var effect: UInt8?
    for i in 0..<report.eventCount {
      let e = report[event: i]
      switch e.kind {
      case .pop:
        return settings.popEffect
      case .peek, .longPress:
        effect = settings.peekEffect
      case .quickActions where e.origin == .press:
        effect = settings.peekEffect
      default:
        break
      }
    }
    return effect
  }

  public mutating func respond(to report: inout FrameReport) {
    let now = report.time.rawValue
    let effect = effect(for: &report)
    if let previous = unchecked {
      unchecked = nil
      // Last frame's click: is the chip still configured? A newer click
      // this frame makes the replay unnecessary.
      check(replaying: effect == nil ? previous : nil, frame: report.frame, now: now)
    }
    guard let effect else { return }
    click(effect, frame: report.frame, now: now)
  }

  /// One click now.
  mutating func click(_ effect: UInt8, frame: UInt64, now: Int64) {
    if !ready {
      do { try start() } catch {
        health.failures += 1
        return
      }
    }
    let cancelling = lastClick_us.map { now >= $0 && Saturating.subtract(now, $0) < HapticFeedback.playingWindow_us } ?? false
    do throws(I2CError) {
      try attempt { (bus) throws(I2CError) in try DRV2605L().play(effect: effect, cancelling: cancelling, on: &bus) }
      health.clicks += 1
      lastClick = (frame, effect)
      lastClick_us = now
      unchecked = effect
    } catch {
      health.failures += 1
      lastError = .bus(error)
      ready = false
    }
  }

  /// Reads MODE back; a chip found reset is brought up again and, if
  /// `replaying`, the click played again.
  mutating func check(replaying effect: UInt8?, frame: UInt64, now: Int64) {
    do throws(I2CError) {
      if try attempt({ (bus) throws(I2CError) in try DRV2605L().isConfigured(on: &bus) }) { return }
    } catch {
      health.failures += 1
      lastError = .bus(error)
      ready = false
      return
    }
    health.reinitialisations += 1
    ready = false
    if let effect {
      lastClick_us = nil
      click(effect, frame: frame, now: now)
      unchecked = nil
    }
  }

  /// `body` with up to `settings.retries` retries.
  mutating func attempt<T>(_ body: (inout Bus) throws(I2CError) -> T) throws(I2CError) -> T {
    var tries = 0
    while true {
      do throws(I2CError) {
        return try body(&bus)
      } catch {
        if tries >= settings.retries { throw error }
        tries += 1
        health.retries += 1
      }
    }
  }
}
