import PanelFormats

/// How a grid overlay shares a press among its cells, learnt from a
/// session rather than assumed: a cell's share of a press as a function of
/// the press's distance from the cell's centre, `g(r)`, normalised over the
/// grid's cells (they carry the whole force):
///
///     load_k = F * g(r_k) / sum_m g(r_m)
///
/// `g` is piecewise linear over knots a quarter pitch apart out to three
/// pitches, or five for a long-tailed spreading (0 beyond), non-increasing,
/// `g(0) = 1`. It holds whatever the overlay is (an elastic layer, a soft gel, a stiff skin with long tails):
/// the spreading and the cell's own area are both in it. The calibration
/// fits it together with the cells' gains (alternating least squares,
/// `CalibrationFit.fitGrid`), and the runtime takes from it how much of a
/// press the cells around a peak carry (`capture(radius:)`).
public struct SpreadProfile: Sendable, Equatable {
  public var pitch_mm: Double
  /// g at r = i * step, i = 0 ... knots - 1.
  public var values: [Double]

  /// Knots per pitch, and how far a profile reaches (pitches): three, or
  /// five where the session shows a long tail (`CalibrationFit`).
  public static let knotsPerPitch = 4
  public static let shortReach = 3
  public static let longReach = 5
  public static func knots(reach: Int) -> Int { knotsPerPitch * reach + 1 }
  /// The knots a record's profile may have.
  public static var knotCounts: ClosedRange<Int> { knots(reach: shortReach)...knots(reach: longReach) }

  /// How far this profile reaches (pitches).
  public var reach: Int { (values.count - 1) / SpreadProfile.knotsPerPitch }

  public var step_mm: Double { pitch_mm / Double(SpreadProfile.knotsPerPitch) }

  public init(pitch_mm: Double, values: [Double]) {
    self.pitch_mm = pitch_mm
    self.values = values
  }

  /// g at distance `r` (mm).
  @inline(__always)
  public func g(_ r: Double) -> Double {
    let t = r / step_mm
    let i = Int(t)
    guard i + 1 < values.count else { return 0 }
    let f = t - Double(i)
    return values[i] + (values[i + 1] - values[i]) * f
  }

  /// The hat functions' weights at `r`: (knot, weight) for the two knots
  /// around it (the linear fit's basis).
  @inline(__always)
  package static func basis(_ r: Double, step: Double, knots: Int) -> (Int, Double, Double)? {
    let t = r / step
    let i = Int(t)
    guard i + 1 < knots else { return nil }
    let f = t - Double(i)
    return (i, 1 - f, f)
  }

  /// Each cell's load for a press of `force` at (`x`, `y`).
  public func loads(force: Double, x: Double, y: Double, cells: [CellPosition]) -> [Double] {
    var shares = cells.map { c -> Double in
      let dx = c.x_mm - x
      let dy = c.y_mm - y
      return g((dx * dx + dy * dy).squareRoot())
    }
    let total = shares.reduce(0, +)
    guard total > 0 else { return shares.map { _ in 0 } }
    for k in shares.indices { shares[k] *= force / total }
    return shares
  }

  /// The profile of Boussinesq spreading `depth` deep over square cells of
  /// `pitch` (the simulator's model, `SpreadingKernel.cellWeight`) out to
  /// `reach` pitches: the starting point of the fit.
  public static func boussinesq(depth: Double, pitch: Double, reach: Int = shortReach) -> SpreadProfile {
    let centre = CellPosition(x_mm: 0, y_mm: 0)
    let kernel = SpreadingKernel.boussinesq(depth: depth)
    let zero = kernel.cellWeight(centre, pitch: pitch, x: 0, y: 0)
    let step = pitch / Double(knotsPerPitch)
    let count = knots(reach: reach)
    var values = (0..<count).map { i in
      kernel.cellWeight(centre, pitch: pitch, x: Double(i) * step, y: 0) / max(zero, 1e-300)
    }
    values[count - 1] = 0
    return SpreadProfile(pitch_mm: pitch, values: values)
  }
}
