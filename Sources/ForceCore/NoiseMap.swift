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
struct ResidualNoise: Sendable {
  var meanAbs_Q26: Int64 = 0
  var observations: Int32 = 0

  /// Starts from a white-noise estimate (sigma, mN Q10), so the first
  /// frames' thresholds are not zero, counted as `prior` observations.
  /// A sample beyond the estimate moves it by its excess over the
  /// observations so far: counted from none, a load rising from the
  /// start-up (every sample at the ceiling, eight times the estimate)
  /// would raise it n^7-fold in n samples, and with it the noise-scaled
  /// thresholds, faster than the load rises (a slow press from start-up
  /// never became a touch; the baselines followed it). Counted from a
  /// quarter of the noise window, it takes a sustained run of samples at
  /// the ceiling to double it (a tenth of a second of a 4 s window), and
  /// a load rising from start-up reaches the touch thresholds first.
  mutating func start(sigma: Int32, prior: Int32 = 0) {
    // mean|f| = sigma * sqrt(2/pi) = 0.7979 sigma (Q12: 3268).
    meanAbs_Q26 = (Int64(max(sigma, 0)) &* 3268) << 4
    observations = max(0, prior)
  }

  /// Adds one untouched frame's force `f` (mN Q10). A running mean over the
  /// first frames (the weight 2^-s grows no faster than 1/n), then an
  /// exponential average of weight 2^-`shift`; a value beyond about six
  /// sigma (a light press building up) counts as six sigma.
  @inline(__always)
  mutating func observe(_ f: Int32, shift: Int) {
    var v = Int64(f) &<< 16
    if v < 0 { v = 0 &- v }
    let ceiling = (meanAbs_Q26 &* 8) &+ (Int64(16) &<< 16)
    if v > ceiling { v = ceiling }
    if observations < Int32.max { observations &+= 1 }
    // log2 of the observations so far (at least 1), capped at `shift`.
    let s = min(shift, 31 &- observations.leadingZeroBitCount)
    meanAbs_Q26 &+= Shift64.right(v &- meanAbs_Q26, s)
  }

  /// One standard deviation, mN Q10: sqrt(pi/2) * mean|f| (Q12: 5134).
  @inline(__always)
  var sigma: Int32 {
    Saturating.int32(((meanAbs_Q26 >> 16) &* 5134 &+ 2048) >> 12)
  }
}
