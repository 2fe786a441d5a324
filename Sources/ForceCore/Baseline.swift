/// One cell's baseline: the count the cell would read with no load, at the
/// calibration's reference temperature (the temperature's zero shift is
/// added on top, so temperature changes are absorbed even while frozen).
///
/// Tracking follows touch controllers (QTouch, CapSense, CapTIvate):
/// - untouched, the baseline follows the delta slowly, and faster down
///   where the cell's recent mean is clearly (one noise) below it (both
///   first-order, 2^-shift per frame), so temperature and creep are
///   followed but a press is not absorbed, and noise leaves no bias;
/// - a delta below minus the re-seed level for a run of frames moves the
///   baseline at once, by the run's mean delta (the panel was seeded or
///   parked with a load on it);
/// - while touched, and for a hold after release, nothing drifts.
///
/// Unlike capacitive controllers there is no band above which upward drift
/// stops: a force panel's thermal drift can outrun any such band, and a
/// force held below the touch threshold for seconds is drift, not a touch.
public struct Baseline: Sendable {
  /// The baseline at the reference temperature, Q47.16 counts.
  public var level: Counts_Q16
  /// Frames the delta has stayed below minus the re-seed level ...
  var negativeRun: Int32 = 0
  /// ... and the deltas of those frames summed, Q16 counts.
  var runSum: Int64 = 0

  public init(level: Counts_Q16 = Counts_Q16(rawValue: 0)) { self.level = level }
}

/// The baseline rules in frame units, derived from `CoreConfiguration`.
public struct BaselineRules: Sendable {
  public var upShift: Int
  public var downShift: Int
  public var reseedLevel: Int32
  public var reseedFrames: Int32

  public init(_ c: CoreConfiguration) {
    upShift = BaselineRules.shift(frames: c.frames(c.driftUp_ms))
    downShift = BaselineRules.shift(frames: c.frames(c.driftDown_ms))
    reseedLevel = c.reseedLevel.rawValue
    reseedFrames = Int32(max(1, c.reseedFrames))
  }

  /// The shift whose first-order time constant is closest to `frames`.
  static func shift(frames: Int) -> Int {
    var s = 0
    while s < 30 && (1 << (s + 1)) <= frames + (frames >> 1) { s += 1 }
    return s
  }
}

extension Baseline {
  /// One untouched frame: `delta` is the filtered sample minus the
  /// effective baseline (Q16 counts), `force` its calibrated force;
  /// `falling` says the cell's recent mean is clearly below the baseline
  /// (it then drifts at the fast downward rate, otherwise at the slow one).
  /// `drift` is false while the cell is held (during the hold after a
  /// release, unless it reads within its noise); `reseedLevel` (mN
  /// Q10) is this cell's (the board's, or its noise's multiple if larger).
  /// Returns true when the baseline was re-seeded.
  @inline(__always)
  public mutating func track(
    delta: Counts_Q16, force: Force_mN, falling: Bool, drift: Bool, rules: BaselineRules, reseedLevel: Int32
  ) -> Bool {
    if force.rawValue < -reseedLevel {
      // Far below the baseline: only a sustained run re-seeds it, by the
      // run's mean (one noisy sample would leave its noise in the
      // baseline); a sample that slipped past the spike filter must not
      // drag it down.
      negativeRun &+= 1
      runSum &+= delta.rawValue
      if negativeRun >= rules.reseedFrames {
        level.rawValue &+= runSum / Int64(negativeRun)
        negativeRun = 0
        runSum = 0
        return true
      }
      return false
    }
    negativeRun = 0
    runSum = 0
    guard drift else { return false }
    // Deltas are bounded by the 24-bit counts (Q16): no overflow.
    let shift = falling ? rules.downShift : rules.upShift
    level.rawValue &+= delta.rawValue &>> Int64(shift)  // shift is 0...30
    return false
  }

  /// A touched frame: nothing drifts, runs restart.
  @inline(__always)
  public mutating func freeze() {
    negativeRun = 0
    runSum = 0
  }
}
