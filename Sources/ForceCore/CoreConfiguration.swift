/// How contacts on a grid are placed between cell centres.
public enum PeakInterpolation: Equatable, Sendable {
  /// Force-weighted mean of the 3x3 cells around the peak, floor removed.
  case centroid
  /// A parabola through the peak and its two neighbours, per axis.
  case parabolic
  /// A parabola through the logarithms (exact for a Gaussian spread).
  case gaussian
}

/// The tunable behaviour of the core. Times are in milliseconds and are
/// turned into frame counts for the frame rate once, at setup.
///
/// Defaults follow touch-controller practice (see docs/algorithms.md):
/// asymmetric drift 4 s up / 1 s down, a 2 s hold after release, negative
/// re-seed after 8 frames beyond half the touch threshold, a 20 s maximum
/// on-time.
public struct CoreConfiguration: Sendable {
  public var frameRate_hz: Int = 320

  /// A contact is confirmed at or above `touchOn` ...
  public var touchOn: Force_mN = Force_mN(newtons: 0.08)
  /// ... and released at or below `touchOff`.
  public var touchOff: Force_mN = Force_mN(newtons: 0.05)
  /// Consecutive frames above `touchOn` before the panel counts as touched.
  public var debounceOn: Int = 3
  /// Consecutive frames below `touchOff` before it counts as released.
  public var debounceOff: Int = 3

  /// Frames averaged to seed the baselines at start.
  public var seedFrames: Int = 16
  /// Time constant of the baseline drifting toward a larger force.
  public var driftUp_ms: Int = 4000
  /// Time constant of the baseline drifting toward a smaller force.
  public var driftDown_ms: Int = 1000
  /// Baselines stay frozen this long after the last contact ends.
  public var holdAfterRelease_ms: Int = 2000
  /// A cell whose force stays below minus this level ...
  public var reseedLevel: Force_mN = Force_mN(newtons: 0.04)
  /// ... for this many frames while untouched is re-seeded at once.
  public var reseedFrames: Int = 8
  /// A touch held longer than this is taken as a parked load: the baselines
  /// absorb it and the touch is cancelled. 0 = never.
  public var maxOn_ms: Int = 20_000

  /// Median-of-three filter against single-frame spikes (one frame of delay).
  public var spikeFilter: Bool = true
  /// Grid cells below this force are not part of any contact.
  public var cellFloor: Force_mN = Force_mN(newtons: 0.01)
  /// Neighbouring peaks whose saddle is at least this fraction (Q8, 256 = 1)
  /// of the smaller peak are one contact.
  public var mergeSaddle_Q8: Int32 = 179
  public var interpolation: PeakInterpolation = .gaussian
  /// Most contacts reported in a frame (at most `Capacity.contacts`).
  public var maxContacts: Int = Capacity.contacts

  public init() {}

  /// `milliseconds` as a frame count at the configured rate (at least 1).
  public func frames(_ milliseconds: Int) -> Int {
    max(1, (milliseconds * max(frameRate_hz, 1) + 500) / 1000)
  }
}
