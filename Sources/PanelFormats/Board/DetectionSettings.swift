import ForceCore

/// The board file's optional `[detection]` table: thresholds and timing of
/// touch detection and baseline tracking, in newtons and seconds.
public struct DetectionSettings: Sendable, Equatable {
  public var touchOn_n = 0.08
  public var touchOff_n = 0.05
  /// Frames a contact must last to become a touch, and stay below the
  /// thresholds to be released; `nil` (the default): the frames that span
  /// `debounceWindow_s` at the board's rate.
  public var debounceFrames: Int? = nil
  /// The shortest debounce without `debounce_frames`: two frames at 500
  /// frames/s, one at 200, four at 1000 (`debounce(rate_hz:)`).
  public static let debounceWindow_s = 0.004
  /// The touch thresholds against the panel's measured noise, in standard
  /// deviations of a contact's force (the absolute ones stay the floors).
  public var noiseOn = 4.5
  public var noiseOff = 3.0
  public var maxOn_s = 20.0
  public var holdAfterRelease_s = 2.0
  public var driftUp_s = 4.0
  /// The fastest baseline a wandering cell may take (`drift_up_s` or more:
  /// one fixed rate).
  public var driftMin_s = 0.25
  public var driftDown_s = 1.0
  public var cellFloor_n = 0.01
  public var spikeFilter = true
  public var interpolation = PeakInterpolation.gaussian

  public init() {}

  /// The keys `[detection]` may hold.
  public static let keys = [
    "touch_on_n", "touch_off_n", "debounce_frames", "max_on_s", "hold_s", "drift_up_s",
    "drift_min_s", "drift_down_s", "cell_floor_n", "spike_filter", "interpolation", "noise_on", "noise_off",
  ]

  /// - Parameter maxForce_n: the panel's maximumPossibleForce in newtons: a
  ///   cell's force cannot change by twice that in one frame (`maxStep`).
  func coreConfiguration(rate_hz: Int, maxTouches: Int, maxForce_n: Double) -> CoreConfiguration {
    var c = CoreConfiguration()
    c.maxStep = Force_mN(newtons: 2 * maxForce_n)
    c.frameRate_hz = rate_hz
    c.touchOn = Force_mN(newtons: touchOn_n)
    c.touchOff = Force_mN(newtons: touchOff_n)
    c.debounceOn = debounce(rate_hz: rate_hz)
    c.debounceOff = debounce(rate_hz: rate_hz)
    c.noiseOn_Q8 = Int32((noiseOn * 256).rounded())
    c.noiseOff_Q8 = Int32((noiseOff * 256).rounded())
    c.maxOn_ms = DetectionSettings.milliseconds(maxOn_s)
    c.holdAfterRelease_ms = DetectionSettings.milliseconds(holdAfterRelease_s)
    c.driftUp_ms = DetectionSettings.milliseconds(driftUp_s)
    c.driftMin_ms = DetectionSettings.milliseconds(driftMin_s)
    c.driftDown_ms = DetectionSettings.milliseconds(driftDown_s)
    c.reseedLevel = Force_mN(newtons: touchOn_n / 2)
    c.cellFloor = Force_mN(newtons: cellFloor_n)
    c.spikeFilter = spikeFilter
    c.interpolation = interpolation
    // The core finds every contact; the tracker reports at most
    // `maxTouches` touches. (Capping contacts at the core lets the
    // strongest-N set change from frame to frame with equal fingers, and
    // touches in progress lose their contacts.)
    c.maxContacts = maxTouches <= 1 ? 1 : Capacity.contacts
    return c
  }

  /// The debounce in frames at `rate_hz`: `debounce_frames`, or the
  /// fewest whole frames that span `debounceWindow_s` (at least one), so
  /// that a slow board does not wait two long frames and a fast one does
  /// not debounce over a shorter time than a 500 frames/s board.
  public func debounce(rate_hz: Int) -> Int {
    if let debounceFrames { return max(1, debounceFrames) }
    let frames = (DetectionSettings.debounceWindow_s * Double(max(1, rate_hz)) - 1e-9).rounded(.up)
    return max(1, Int(frames))
  }

  /// `seconds` in whole milliseconds, held to 0 and the longest time a board file
  /// accepts (`ValueBound.maxOn_s`, a day) so that frame counts at any rate
  /// fit an `Int`: settings built in code are as safe as loaded ones.
  static func milliseconds(_ seconds: Double) -> Int {
    Int(saturating: (max(0, min(seconds, ValueBound.maxOn_s.upper)) * 1000).rounded())
  }
}
