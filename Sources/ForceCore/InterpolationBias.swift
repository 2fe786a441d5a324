/// The bias of a grid's sub-cell interpolation, and its inverse.
///
/// A parabola (or a Gaussian, through the logarithms) through a peak and its
/// two neighbours is exact only for a spreading of that shape: on a narrow
/// or long-tailed one, a press a quarter pitch off a cell's centre reads
/// 0.1–0.2 pitch off. The calibration, which learns the spreading, tabulates
/// what the estimator reads for presses at known offsets
/// (`CoreConfiguration.interpolationBias`); the finder reads the table
/// backwards. The table is odd-symmetric: only offsets 0 ... 1/2 are kept.
public enum InterpolationBias {
  /// Entries: offsets 0, 1/32, ..., 16/32 of a pitch.
  public static let entries = 17

  /// The estimator reads the truth: k / 32 pitch, Q16.
  public static let identity: InlineArray<17, Int32> = [
    0, 2048, 4096, 6144, 8192, 10240, 12288, 14336, 16384,
    18432, 20480, 22528, 24576, 26624, 28672, 30720, 32768,
  ]

  /// The true offset (Q16 pitches) that `table` says reads `estimate`:
  /// the table inverted, linear between entries; the sign is kept, and a
  /// table that does not rise leaves the estimate as it is.
  @inline(__always)
  public static func correct(_ estimate: Int64, _ table: inout InlineArray<17, Int32>) -> Int64 {
    let magnitude = estimate < 0 ? 0 &- estimate : estimate
    var k = 1
    while k < entries - 1 && Int64(table[k]) < magnitude { k += 1 }
    let lo = Int64(table[k - 1])
    let hi = Int64(table[k])
    guard hi > lo else { return estimate }
    let step: Int64 = 2048
    let fraction = min(max(magnitude - lo, 0), hi - lo)
    let truth = Int64(k - 1) * step + FixedMath.divide(fraction * step, hi - lo)
    return estimate < 0 ? 0 &- truth : truth
  }
}
