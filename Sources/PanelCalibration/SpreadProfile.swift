import PanelFormats
import PanelSimulation

#if canImport(Glibc)
  import Glibc
#endif

/// How a grid overlay shares a press among its cells, learnt from a
/// session rather than assumed: a cell's share of a press as a function of
/// the press's distance from the cell's centre, `g(r)`, normalised over the
/// grid's cells (they carry the whole force):
///
///     load_k = F * g(r_k) / sum_m g(r_m)
///
/// `g` is piecewise linear over knots a quarter pitch apart out to three
/// pitches (0 beyond), non-increasing, `g(0) = 1`. It holds whatever the
/// overlay is (an elastic layer, a soft gel, a stiff skin with long tails):
/// the spreading and the cell's own area are both in it. The calibration
/// fits it together with the cells' gains (alternating least squares,
/// `CalibrationFit.fitGrid`), and the runtime takes from it how much of a
/// press the cells around a peak carry (`capture(radius:)`).
public struct SpreadProfile: Sendable, Equatable {
  public var pitch_mm: Double
  /// g at r = i * step, i = 0 ... knots - 1.
  public var values: [Double]

  /// Knots per pitch, and how far the profile reaches (pitches).
  public static let knotsPerPitch = 4
  public static let reach = 3
  public static var knots: Int { knotsPerPitch * reach + 1 }

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
  static func basis(_ r: Double, step: Double) -> (Int, Double, Double)? {
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
  /// `pitch` (`LoadSharing`'s model): the starting point of the fit.
  public static func boussinesq(depth: Double, pitch: Double) -> SpreadProfile {
    let centre = CellPosition(x_mm: 0, y_mm: 0)
    let zero = LoadSharing.weight(centre, pitch: pitch, kernel: .boussinesq(depth: depth), x: 0, y: 0)
    let step = pitch / Double(knotsPerPitch)
    var values = (0..<knots).map { i in
      LoadSharing.weight(centre, pitch: pitch, kernel: .boussinesq(depth: depth), x: Double(i) * step, y: 0) / max(zero, 1e-300)
    }
    values[knots - 1] = 0
    return SpreadProfile(pitch_mm: pitch, values: values)
  }

  /// The profile that best explains the cells' forces `forces[j][k]` (the
  /// calibrated forces of placement j) for the loads `placements` put on
  /// the panel, given the current profile's normalisation: a linear least
  /// squares fit of the knots, then kept non-negative and non-increasing
  /// (pool adjacent violators) and scaled to `g(0) = 1`. Nil when the
  /// placements do not determine it.
  func refined(
    forces: [[Double]], placements: [CalibrationFit.Placement], cells: [CellPosition], excluded: Set<Int>
  ) -> SpreadProfile? {
    let n = cells.count
    var normal = [[Double]](repeating: [Double](repeating: 0, count: SpreadProfile.knots), count: SpreadProfile.knots)
    var rhs = [Double](repeating: 0, count: SpreadProfile.knots)
    for (j, p) in placements.enumerated() {
      var distances = [Double](repeating: 0, count: n)
      var total = 0.0
      for k in 0..<n {
        let dx = cells[k].x_mm - p.x_mm
        let dy = cells[k].y_mm - p.y_mm
        distances[k] = (dx * dx + dy * dy).squareRoot()
        total += g(distances[k])
      }
      guard total > 0 else { continue }
      let w = CalibrationFit.weight(p)
      let scale = p.force_n / total
      for k in 0..<n where !excluded.contains(k) {
        guard let (i, a, b) = SpreadProfile.basis(distances[k], step: step_mm) else { continue }
        // Row: w * scale * (a e_i + b e_{i+1}); target w * f.
        let ra = w * scale * a
        let rb = w * scale * b
        let t = w * forces[j][k]
        normal[i][i] += ra * ra
        normal[i][i + 1] += ra * rb
        normal[i + 1][i] += ra * rb
        normal[i + 1][i + 1] += rb * rb
        rhs[i] += ra * t
        rhs[i + 1] += rb * t
      }
    }
    // A light ridge toward the current profile keeps knots no placement
    // reached where they were.
    var trace = 0.0
    for i in 0..<SpreadProfile.knots { trace += normal[i][i] }
    let ridge = 1e-6 * trace / Double(SpreadProfile.knots) + 1e-300
    for i in 0..<SpreadProfile.knots {
      normal[i][i] += ridge
      rhs[i] += ridge * values[i]
    }
    guard var x = LeastSquares.solveNormal(normal, rhs) else { return nil }
    x[SpreadProfile.knots - 1] = 0
    x = SpreadProfile.nonIncreasing(x.map { max($0, 0) })
    guard x[0] > 0 else { return nil }
    return SpreadProfile(pitch_mm: pitch_mm, values: x.map { $0 / x[0] })
  }

  /// The closest non-increasing sequence (pool adjacent violators).
  static func nonIncreasing(_ v: [Double]) -> [Double] {
    var blocks: [(sum: Double, count: Int)] = []
    for x in v {
      blocks.append((x, 1))
      while blocks.count > 1,
        blocks[blocks.count - 2].sum / Double(blocks[blocks.count - 2].count)
          < blocks[blocks.count - 1].sum / Double(blocks[blocks.count - 1].count)
      {
        let last = blocks.removeLast()
        blocks[blocks.count - 1].sum += last.sum
        blocks[blocks.count - 1].count += last.count
      }
    }
    return blocks.flatMap { [Double](repeating: $0.sum / Double($0.count), count: $0.count) }
  }
}

extension ContactModel {
  /// The model for a learnt spreading profile, on cells with `noise_n`.
  public static func from(_ profile: SpreadProfile, noise_n: Double) -> ContactModel {
    fit(pitch: profile.pitch_mm, reach: SpreadProfile.reach + 1, noise_n: noise_n) { dx, dy in
      profile.g((dx * dx + dy * dy).squareRoot())
    }
  }
}
