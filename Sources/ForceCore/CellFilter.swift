/// Per-cell input conditioning: a median-of-three filter that removes
/// single-frame spikes (`CellFilter`, what every frame reads), and a
/// running estimate of the cell's noise (`StepNoise`, what a tick reads).
///
/// The noise estimate is the mean absolute first difference of the raw
/// samples (exponential average, weight 2^-6, steps far above the estimate
/// clipped), which ignores slow drift; for white Gaussian noise
/// sigma = 0.886 * mean|x[n] - x[n-1]|. The pipeline observes every frame
/// while seeding, then one a tick.
public struct CellFilter: Sendable {
  var older: Int32 = 0
  var old: Int32 = 0
  /// What a frame compares a jump with: the larger of the noise's spike
  /// limit and floor (`StepNoise`).
  var countLimit: UInt32 = 16
  var primed = false

  public init() {}

  /// The filtered sample for `raw`, and whether the median removed a
  /// spike: the previous sample, when it stood out of both its neighbours
  /// (it is the median's outlier) beyond `countLimit`. A step, however
  /// steep, is never one: its middle sample is the median.
  @inline(__always)
  public mutating func filter(_ raw: Int32, medianOfThree: Bool) -> (value: Int32, spike: Bool) {
    if !primed { prime(raw) }
    return filterPrimed(raw, medianOfThree: medianOfThree)
  }

  /// Starts the median's history at `raw` (the first sample).
  @inline(__always)
  mutating func prime(_ raw: Int32) {
    older = raw
    old = raw
    primed = true
  }

  /// `filter` once primed.
  @inline(__always)
  mutating func filterPrimed(_ raw: Int32, medianOfThree: Bool) -> (value: Int32, spike: Bool) {
    let value: Int32
    let spike: Bool
    if medianOfThree {
      let a = older
      let b = old
      let c = raw
      value = max(min(a, b), min(max(a, b), c))
      spike = CellFilter.distance(b, value) > countLimit
    } else {
      value = raw
      spike = false
    }
    older = old
    old = raw
    return (value, spike)
  }

  /// |a - b|, exact in 32 bits (under 2^32 for any two `Int32`s).
  @inline(__always)
  static func distance(_ a: Int32, _ b: Int32) -> UInt32 {
    a >= b ? UInt32(bitPattern: a &- b) : UInt32(bitPattern: b &- a)
  }
}

/// A cell's noise from the steps of its raw samples (the median's
/// history, `CellFilter`), and the spike limit it sets the filter.
public struct StepNoise: Sendable {
  /// Mean |first difference| in counts, Q47.16.
  var meanAbsDifference: Int64 = 0
  /// How far a sample may jump from the median before it counts as a
  /// spike: 8 mean differences and 16 counts (kept with
  /// `meanAbsDifference`, in 32 bits).
  var spikeLimit: UInt32 = 16
  /// The smallest jump counted as a spike: a touch's force on this cell
  /// (`touchOn` through its gain), so neither the noise estimate's first
  /// frames nor a press's fine structure count.
  var spikeFloor: UInt32 = 0

  public init() {}

  /// Adds `filter`'s last sample's step to the noise estimate (call only
  /// while untouched) and sets its `countLimit`. Steps far beyond the
  /// estimate are clipped, so a spike or the edge of a press does not
  /// inflate it.
  /// `shift` is the average's weight (2^-shift): 6 once running; while
  /// seeding, log2 of the steps so far, so that the seed's estimate is
  /// the mean of its steps (from zero at 2^-6, 16 frames reach a fifth of
  /// it, and the residual noise started from it took seconds to catch up
  /// once it no longer counted from nothing).
  @inline(__always)
  public mutating func observe(_ filter: inout CellFilter, shift: Int = 6) {
    // The last step of the raw samples (`old` is the latest, `older` the one before).
    var step = (Int64(filter.old) &- Int64(filter.older)) &<< 16
    if step < 0 { step = 0 &- step }
    let ceiling = (meanAbsDifference &* 8) &+ (64 << 16)
    let difference = step > ceiling ? ceiling : step
    meanAbsDifference &+= (difference &- meanAbsDifference) &>> Int64(max(0, min(shift, 6)))
    // (mad * 8) >> 16 + 16 (the estimate is under 2^49: mad * 8 cannot
    // overflow), saturated: no two counts are further apart.
    let limit = (meanAbsDifference &>> 13) &+ 16
    spikeLimit = limit >= 0xFFFF_FFFF ? UInt32.max : UInt32(truncatingIfNeeded: limit)
    filter.countLimit = max(spikeLimit, spikeFloor)
  }

  /// Sets `spikeFloor` (counts), and `filter`'s `countLimit` with it.
  public mutating func setSpikeFloor(_ counts: UInt32, _ filter: inout CellFilter) {
    spikeFloor = counts
    filter.countLimit = max(spikeLimit, spikeFloor)
  }

  /// Estimated noise (one standard deviation) in counts, Q47.16.
  public var noise: Counts_Q16 {
    Counts_Q16(rawValue: (meanAbsDifference * 3629) >> 12)  // x 0.886
  }
}
