#if canImport(Glibc)
  import Glibc
#endif
import ForceCore
import PanelFormats

/// What the contact finder takes from a learnt spreading.
extension SpreadProfile {
  /// The profile as the finder reads it (`CoreConfiguration.spreading_Q16`):
  /// g at 0, 1/4, ..., 3 pitches, Q16 of g(0) (the knots beyond are not
  /// the finder's); nil unless it has those knots.
  public var finderTable: InlineArray<13, Int32>? {
    guard values.count >= 13, let first = values.first, first > 0 else { return nil }
    var table = InlineArray<13, Int32>(repeating: 0)
    for i in 0..<13 { table[i] = Int32((min(max(values[i] / first, 0), 1) * 65536).rounded()) }
    return table
  }

  /// What `interpolation` reads for presses at 0, 1/32, ..., 1/2 pitch from
  /// a cell's centre along one axis, on this spreading (each averaged over
  /// where across the other axis the press lands): the table the finder
  /// inverts (`CoreConfiguration.interpolationBias`). Nil for the centroid,
  /// or when the readings do not rise with the offset (no inverse).
  public func interpolationBias(_ interpolation: PeakInterpolation) -> InlineArray<17, Int32>? {
    SpreadProfile.interpolationBias(interpolation, pitch: pitch_mm) { dx, dy in g((dx * dx + dy * dy).squareRoot()) }
  }

  /// The same for any spreading: `load(dx, dy)` is what a cell takes of a
  /// press `dx`, `dy` mm from its centre.
  public static func interpolationBias(
    _ interpolation: PeakInterpolation, pitch: Double, load: (Double, Double) -> Double
  ) -> InlineArray<17, Int32>? {
    guard interpolation != .centroid, pitch > 0 else { return nil }
    let across = 8
    var table = InterpolationBias.identity
    var previous = -1.0
    for k in 0..<InterpolationBias.entries {
      let u = Double(k) / 32
      var sum = 0.0
      for j in 0..<across {
        let v = ((Double(j) + 0.5) / Double(across) - 0.5) * pitch
        sum += reading(load((-1 - u) * pitch, v), load(-u * pitch, v), load((1 - u) * pitch, v), interpolation)
      }
      let reading = sum / Double(across)
      guard reading > previous || k == 0 else { return nil }
      previous = reading
      table[k] = Int32((min(max(reading, 0), 0.5) * 65536).rounded())
    }
    return table
  }

  /// The sub-cell offset (pitches) a parabola through `minus`, `peak`,
  /// `plus` (or through their logarithms) puts its vertex at, within +-1/2:
  /// as the finder computes it.
  static func reading(_ minus: Double, _ peak: Double, _ plus: Double, _ interpolation: PeakInterpolation) -> Double {
    var (a, b, c) = (minus, peak, plus)
    if interpolation == .gaussian && a > 0 && b > 0 && c > 0 {
      (a, b, c) = (log(a), log(b), log(c))
    }
    let curvature = 2 * b - a - c
    guard curvature > 0 else { return 0 }
    return min(max((c - a) / (2 * curvature), -0.5), 0.5)
  }
}
