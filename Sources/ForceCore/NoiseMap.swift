/// What the core knows of its cells' noise, and what the detector derives
/// from it. Thresholds follow what each panel measures: a contact is only
/// as significant as its force against the noise of the cells it sums, and
/// a cell only joins a contact above its own noise.
///
/// Each cell's noise is the spread of its untouched force around the
/// baseline: the white noise and the low-frequency wander the baseline does
/// not follow (thermal lag, 1/f drift), i.e. exactly what the detector sees.
/// For Gaussian noise sigma = sqrt(pi/2) * mean|f|; the mean is a running
/// one over the first frames, then an exponential average (`ResidualNoise`).
/// The panel's total force is followed the same way, which gives the share
/// of the noise the cells have in common (a temperature change, a shared
/// supply): a sum of `n` cells then has the variance
/// `(1 - rho) * sum(s_i^2) + rho * (sum s_i)^2`.
public struct NoiseMap: Sendable {
  /// Each cell's noise (one standard deviation of its untouched force), mN Q10.
  public internal(set) var sigma: CellArray<Int32> = CellArray(repeating: 0)
  /// The least force a cell must carry to be part of a contact's peak:
  /// the board's `cellFloor`, or its noise times `noiseFloor` if larger, mN Q10.
  public internal(set) var floor: CellArray<Int32>
  /// The correlation of the cells' noise, Q16 (0 ... 65536).
  public internal(set) var correlation_Q16: Int64 = 0
  /// The noise of the panel's total force (one standard deviation), mN Q10.
  public internal(set) var total: Int32 = 0

  /// A map with no noise measured yet: every floor at `cellFloor`.
  public init(cellFloor: Force_mN) {
    floor = CellArray(repeating: max(cellFloor.rawValue, 1))
  }

  /// Back to no noise measured (in place: a firmware's static storage).
  public mutating func reset(cellFloor: Force_mN) {
    for k in 0..<Capacity.cells {
      sigma[k] = 0
      floor[k] = max(cellFloor.rawValue, 1)
    }
    correlation_Q16 = 0
    total = 0
  }

  /// The standard deviation of the sum of cells whose noises sum to
  /// `sum` (mN Q10) and whose squares sum to `sumOfSquares` (mN^2 Q20).
  @inline(__always)
  public func sumNoise(sum: Int64, sumOfSquares: Int64) -> Int32 {
    NoiseMap.sumNoise(sum: sum, sumOfSquares: sumOfSquares, correlation_Q16: correlation_Q16)
  }

  /// `sumNoise` for a correlation of `correlation_Q16` (the frame path:
  /// a call on a borrowed map may copy its per-cell tables).
  @inline(__always)
  static func sumNoise(sum: Int64, sumOfSquares: Int64, correlation_Q16: Int64) -> Int32 {
    let common = Saturating.subtract(Saturating.multiply(sum, sum), sumOfSquares)
    let variance = Saturating.add(sumOfSquares, Saturating.multiplyShift(max(common, 0), correlation_Q16, 16))
    return Saturating.int32(FixedMath.squareRoot(variance))
  }
}

/// One cell's (or the total's) residual noise estimate: mean |force| of
/// untouched frames, mN Q26 (Q10 << 16).
///
/// On a plate, for its first noise window (`young`, until the pipeline
/// calls `mature`), the thresholds come from a second estimate judged on
/// differences, not on the force's distance from the seeded zero: a load
/// may be rising from start-up, every cell of a plate carries it, and a
/// rise, however slow, is a trend, not noise. Judged on distance, a ramp
/// that stayed within a few noises for a second was taken in, and the
/// noise-scaled thresholds rose faster than it did: a slow press from
/// start-up was not reported, the baselines followed it. The change
/// between successive observations (over sqrt 2) carries the white noise
/// and nothing of a trend; that estimate never goes below its start (the
/// seed's white noise of the raw samples). The distance estimate runs
/// beside it all the while, and takes over when the window ends: it holds
/// the wander the baseline leaves, which differences cannot see. A load
/// rising from start-up is a touch by then, its cells held and no longer
/// observed. (A grid is never young: there a press loads a few cells and
/// outruns their noise, and thresholds held at the white noise let a
/// grid's wander make contacts that froze the cells under them.)
struct ResidualNoise: Sendable {
  var meanAbs_Q26: Int64 = 0
  var observations: Int32 = 0
  /// The young estimate (on differences) and its observations.
  var youngMeanAbs_Q26: Int64 = 0
  var youngObservations: Int32 = 0
  /// Whether `sigma` is the young estimate's.
  var young = false
  /// The last observed force, mN Q10 (while young).
  var last: Int32 = 0
  /// The start's mean |force|, Q26: the young estimate's least value.
  var least_Q26: Int64 = 0

  /// Starts from a white-noise estimate (sigma, mN Q10), so the first
  /// frames' thresholds are not zero, counted as `prior` observations
  /// (the running mean's weight then starts there); `young` starts the
  /// estimate on differences beside it.
  mutating func start(sigma: Int32, prior: Int32 = 0, young: Bool = false) {
    // mean|f| = sigma * sqrt(2/pi) = 0.7979 sigma (Q12: 3268).
    meanAbs_Q26 = (Int64(max(sigma, 0)) &* 3268) << 4
    observations = max(0, prior)
    youngMeanAbs_Q26 = meanAbs_Q26
    youngObservations = observations
    self.young = young
    last = 0
    least_Q26 = meanAbs_Q26
  }

  /// The window is over: the distance estimate sets the thresholds.
  mutating func mature() { young = false }

  /// Adds one untouched frame's force `f` (mN Q10). A running mean over the
  /// first frames (the weight 2^-s grows no faster than 1/n), then an
  /// exponential average of weight 2^-`shift`; a value beyond about six
  /// sigma (a light press building up) counts as six sigma.
  @inline(__always)
  mutating func observe(_ f: Int32, shift: Int) {
    var v = Int64(f) &<< 16
    if v < 0 { v = 0 &- v }
    ResidualNoise.add(v, to: &meanAbs_Q26, &observations, shift: shift)
    if young { observeYoung(f, shift: shift) }
  }

  /// The young estimate's sample: the change since the last observation,
  /// over sqrt 2 (Q12: 2896); never below its start.
  @inline(never)
  mutating func observeYoung(_ f: Int32, shift: Int) {
    var d = Int64(f) &- Int64(last)
    last = f
    if d < 0 { d = 0 &- d }
    ResidualNoise.add((d &* 2896) &<< 4, to: &youngMeanAbs_Q26, &youngObservations, shift: shift)
    if youngMeanAbs_Q26 < least_Q26 { youngMeanAbs_Q26 = least_Q26 }
  }

  @inline(__always)
  static func add(_ value: Int64, to mean: inout Int64, _ count: inout Int32, shift: Int) {
    let ceiling = (mean &* 8) &+ (Int64(16) &<< 16)
    let v = value > ceiling ? ceiling : value
    if count < Int32.max { count &+= 1 }
    // log2 of the observations so far (at least 1), capped at `shift`.
    let s = min(shift, 31 &- count.leadingZeroBitCount)
    mean &+= Shift64.right(v &- mean, s)
  }

  /// One standard deviation, mN Q10: sqrt(pi/2) * mean|f| (Q12: 5134).
  @inline(__always)
  var sigma: Int32 {
    Saturating.int32((((young ? youngMeanAbs_Q26 : meanAbs_Q26) >> 16) &* 5134 &+ 2048) >> 12)
  }
}
