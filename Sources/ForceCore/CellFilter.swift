/// Per-cell input conditioning: a median-of-three filter that removes
/// single-frame spikes, and a running estimate of the cell's noise.
///
/// The noise estimate is the mean absolute first difference of the raw
/// samples (exponential average, weight 2^-6, steps far above the estimate
/// clipped), which ignores slow drift; for white Gaussian noise
/// sigma = 0.886 * mean|x[n] - x[n-1]|.
public struct CellFilter: Sendable {
  var older: Int32 = 0
  var old: Int32 = 0
  var primed = false
  /// |raw - previous raw| of the last sample, Q47.16.
  var step: Int64 = 0
  /// Mean |first difference| in counts, Q47.16.
  var meanAbsDifference: Int64 = 0

  public init() {}

  /// The filtered sample for `raw`, and whether `raw` was a spike.
  @inline(__always)
  public mutating func filter(_ raw: Int32, medianOfThree: Bool) -> (value: Int32, spike: Bool) {
    if !primed {
      older = raw
      old = raw
      primed = true
    }
    step = (Int64(raw) - Int64(old)).magnitude.asInt64 << 16
    let value: Int32
    if medianOfThree {
      let a = older
      let b = old
      let c = raw
      value = max(min(a, b), min(max(a, b), c))
    } else {
      value = raw
    }
    older = old
    old = raw
    let jump = Int64(raw) - Int64(value)
    let limit = ((8 * meanAbsDifference) >> 16) + 16
    return (value, jump > limit || -jump > limit)
  }

  /// Adds the last sample's step to the noise estimate (call only while
  /// untouched). Steps far beyond the estimate are clipped, so a spike or
  /// the edge of a press does not inflate it.
  @inline(__always)
  public mutating func observeNoise() {
    let ceiling = meanAbsDifference * 8 + (64 << 16)
    let difference = step > ceiling ? ceiling : step
    meanAbsDifference += (difference - meanAbsDifference) >> 6
  }

  /// Estimated noise (one standard deviation) in counts, Q47.16.
  public var noise: Counts_Q16 {
    Counts_Q16(rawValue: (meanAbsDifference * 3629) >> 12)  // x 0.886
  }
}

extension UInt64 {
  @inline(__always) var asInt64: Int64 { self > UInt64(Int64.max) ? Int64.max : Int64(self) }
}
