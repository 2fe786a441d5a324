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
/// asymmetric drift 4 s up (as fast as 0.25 s where a cell wanders) /
/// 1 s down, a 2 s hold after release, negative
/// re-seed after 8 frames beyond half the touch threshold, a 20 s maximum
/// on-time.
public struct CoreConfiguration: Sendable {
  public var frameRate_hz: Int = 320

  /// A contact is confirmed at or above `touchOn` ...
  public var touchOn: Force_mN = Force_mN(newtons: 0.08)
  /// ... and released at or below `touchOff`.
  public var touchOff: Force_mN = Force_mN(newtons: 0.05)
  /// Consecutive frames above `touchOn` before the panel counts as touched.
  public var debounceOn: Int = 2
  /// Consecutive frames below `touchOff` before it counts as released.
  public var debounceOff: Int = 2

  /// The same thresholds against the panel's measured noise, in standard
  /// deviations of the force a contact is detected by (Q8: 256 = 1): a
  /// contact is confirmed only at or above `noiseOn` and released at or
  /// below `noiseOff` (and the absolute thresholds above stay the floors).
  public var noiseOn_Q8: Int32 = 1152  // 4.5
  public var noiseOff_Q8: Int32 = 768  // 3
  /// A grid cell joins a contact's peak only above its noise times this ...
  public var noiseFloor_Q8: Int32 = 896  // 3.5
  /// ... and is re-seeded only below minus its noise times this.
  public var noiseReseed_Q8: Int32 = 1280  // 5
  /// How long the cells' noise is averaged over.
  public var noiseWindow_ms: Int = 4000

  /// Frames averaged to seed the baselines at start.
  public var seedFrames: Int = 16
  /// Time constant of the baseline drifting toward a larger force: the
  /// slowest a cell's baseline follows at ...
  public var driftUp_ms: Int = 4000
  /// ... and the fastest it may take where its measured wander needs it
  /// (`driftUp_ms` / 4^j candidates down to this; `driftUp_ms` or more:
  /// one fixed rate).
  public var driftMin_ms: Int = 250
  /// Time constant of the baseline drifting toward a smaller force.
  public var driftDown_ms: Int = 1000
  /// Baselines stay frozen this long after the last contact ends.
  public var holdAfterRelease_ms: Int = 2000
  /// A cell whose force stays below minus this level ...
  public var reseedLevel: Force_mN = Force_mN(newtons: 0.04)
  /// ... for this many frames while untouched is re-seeded at once.
  public var reseedFrames: Int = 8
  /// A load that stays still this long (no finger's tremor or change of
  /// press: `LoadLiveness`) is taken as a parked object: the baselines
  /// absorb it and the touch is cancelled. A finger is never still that
  /// long, however long it is held. 0 = never.
  public var maxOn_ms: Int = 20_000

  /// Median-of-three filter against single-frame spikes (one frame of delay).
  public var spikeFilter: Bool = true
  /// A cell's force cannot change by more than this in one frame (no
  /// press is that fast): a larger step is held off for up to two frames,
  /// which removes the two-frame spikes a median of three passes; a step
  /// that stays is taken. 0 = no limit.
  public var maxStep: Force_mN = Force_mN(newtons: 20)
  /// Grid cells below this force are not part of any contact.
  public var cellFloor: Force_mN = Force_mN(newtons: 0.01)
  /// Two peaks two cells apart are one contact when one press could have
  /// made them: the dip seen between them, plus how far below the cell
  /// between one press at the stronger peak's position would have left the
  /// weaker one (from `spreading`), stays within `mergeDipNoise` deviations
  /// of the two cells' noise plus the cells' gain tolerance (1 -
  /// `mergeSaddle`, Q8, of the weaker peak).
  public var mergeSaddle_Q8: Int32 = 248
  /// The dip's noise allowance, in deviations (Q8).
  public var mergeDipNoise_Q8: Int32 = 3 * 256
  /// The grid's spreading: the share of a press a cell takes at 0, 1/4,
  /// ..., 3 pitches from it, relative to a cell under it (Q16, the first
  /// 65536); all 0 when not learnt (`ContactModel`).
  public var spreading_Q16: InlineArray<13, Int32> = InlineArray(repeating: 0)
  public var interpolation: PeakInterpolation = .gaussian
  /// The sub-cell offset a press at `k / 32` of a pitch from its peak
  /// cell's centre gives `interpolation` (Q16 pitches, k = 0...16, rising):
  /// the estimator's bias on this panel's spreading, which the finder
  /// undoes by inverting it. Identity unless the calibration learnt the
  /// spreading (`InterpolationBias`).
  public var interpolationBias: InlineArray<17, Int32> = InterpolationBias.identity
  /// Grid: cells within this many cells of a peak (along either axis)
  /// carry its force ...
  public var contactRadius: Int = 2
  /// ... scaled by this, Q16 (65536 = 1): the inverse of the share of a
  /// press those cells carry, from the calibration's spreading model.
  public var captureScale_Q16: Int32 = 65536
  /// ... plus this, Q16, times the squared distance (in pitches) from the
  /// peak cell's centre to the contact's position: a press near a cell's
  /// edge leaves more of itself outside the window.
  public var captureSlope_Q16: Int32 = 0
  /// Grid: the learnt response (empty: none); when present, each contact's
  /// position and force are fitted to it (`ContactFinder+Response`) instead
  /// of the window sum, the capture scale and the interpolation.
  public var response = ResponseTable()
  /// Most contacts reported in a frame (at most `Capacity.contacts`).
  public var maxContacts: Int = Capacity.contacts

  public init() {}

  /// `milliseconds` as a frame count at the configured rate (at least 1).
  public func frames(_ milliseconds: Int) -> Int {
    max(1, (milliseconds * max(frameRate_hz, 1) + 500) / 1000)
  }
}
