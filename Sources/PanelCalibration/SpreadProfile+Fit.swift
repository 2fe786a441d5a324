import PanelFormats
import PanelMechanics

/// Fitting the learnt spreading (`SpreadProfile`) and what the contacts
/// take from it.
extension SpreadProfile {
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
    let knots = values.count
    var normal = [[Double]](repeating: [Double](repeating: 0, count: knots), count: knots)
    var rhs = [Double](repeating: 0, count: knots)
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
        guard let (i, a, b) = SpreadProfile.basis(distances[k], step: step_mm, knots: knots) else { continue }
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
    for i in 0..<knots { trace += normal[i][i] }
    let ridge = 1e-6 * trace / Double(knots) + 1e-300
    for i in 0..<knots {
      normal[i][i] += ridge
      rhs[i] += ridge * values[i]
    }
    guard var x = LeastSquares.solveNormal(normal, rhs) else { return nil }
    x[knots - 1] = 0
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
    fit(pitch: profile.pitch_mm, reach: profile.reach + 1, noise_n: noise_n) { dx, dy in
      profile.g((dx * dx + dy * dy).squareRoot())
    }
  }
}
