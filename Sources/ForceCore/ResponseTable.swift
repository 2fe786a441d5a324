/// A grid's learnt response as the core reads it (the calibration's
/// two-dimensional response, resampled for integer arithmetic): the kernel
/// `K`, what a cell carries of a press at an offset from its centre, on a
/// lattice of eighth pitches out to 2.5 pitches each way (Q15, read
/// bilinearly, point-symmetric: half of it stored), and the force scale
/// over the panel (Q16 on knots a pitch apart spanning it, read
/// bilinearly): the force of a press whose cells' loads are `G K` is `G`
/// times the kernel summed over the cells times the scale there (the
/// kernel's tails beyond the table and the capture the calibration learnt).
///
/// Empty (`kernel[0] == 0`): no response learnt; contacts then take their
/// force from the cells around their peak (`CoreConfiguration.captureScale_Q16`).
public struct ResponseTable: Sendable {
  /// Knots a pitch, and each way from the centre.
  public static let knotsPerPitch = 8
  public static let reach = 20
  /// The stored knots: (i, j) with j > 0, or j = 0 and i >= 0.
  public static let knotCount = 2 * reach * reach + 2 * reach + 1
  /// The scale's knots at most: (columns + 1) x (rows + 1) of a grid of
  /// at most `Capacity.cells` cells.
  public static let scaleCapacity = 514

  public var kernel: InlineArray<841, Int16> = InlineArray(repeating: 0)
  public var scale: InlineArray<514, Int32> = InlineArray(repeating: 65536)
  public var scaleColumns = 0
  public var scaleRows = 0

  public init() {}

  public var isEmpty: Bool { kernel[0] <= 0 }

  /// Where knot (i, j), or its mirror (-i, -j), is stored; |i|, |j| <= reach.
  @inline(__always)
  public static func index(_ i: Int, _ j: Int) -> Int {
    let n = reach
    let flip = j < 0 || (j == 0 && i < 0)
    let a = flip ? -i : i
    let b = flip ? -j : j
    return b == 0 ? a : n + 1 + (b - 1) * (2 * n + 1) + (a + n)
  }
}
