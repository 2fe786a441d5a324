import PanelFormats
import PanelMechanics
import PanelSimulation

/// The Cramér–Rao bound on a plate's press position (reference:
/// models-web-factory.md §1.3, §1.7): how closely any unbiased estimator
/// could place a press from the cells' white noise, for that panel's
/// supports, stiffness, gains and noise and the press's own force.
///
/// A rigid plate shares a press of force F at (x, y) as
/// `mu_i = F (a_i + b_i x + c_i y)`. One frame's Fisher information on
/// (x, y, F) is `sum_i (1/sigma_i^2) grad mu_i grad mu_i^T`; eliminating
/// that frame's own force (a finger's force changes every frame) leaves
/// `F^2 K(x, y)` for the position, with `K = B - u u^T / S`, `B = sum w
/// (b, c)(b, c)^T`, `u = sum w s (b, c)`, `S = sum w s^2`, `w = 1/sigma^2`,
/// `s` the shares at (x, y). A still press seen for frames 1..n has
/// `K sum F_t^2`, and the bound on its distance from the truth is
/// `sqrt(trace((K sum F_t^2)^-1))`. A reported position at time t can use
/// the frames since the press began (a causal estimator), so the bound of
/// a scenario is the RMS of that over its presses' plateaus, frame by
/// frame: the figure its position RMS is compared with. Wander, drift and
/// the calibration's error come on top: the bound is a floor.
struct PlateBound {
  let coefficients: [(Double, Double, Double)]
  /// 1 / sigma_i^2, sigma_i the cell's white noise in newtons.
  let weights: [Double]
  let rate_hz: Int

  init?(physics: PanelPhysics, rate_hz: Int) {
    guard let coefficients = physics.sharing.plateCoefficients else { return nil }
    self.coefficients = coefficients
    weights = physics.cells.indices.map { i in
      let sigma = physics.noise_counts(cell: i) / max(physics.cells[i].gain_counts_per_n, 1)
      return sigma > 0 ? 1 / (sigma * sigma) : 0
    }
    self.rate_hz = rate_hz
  }

  /// The position information of one frame per newton squared at (x, y):
  /// (kxx, kxy, kyy).
  func information(x: Double, y: Double) -> (Double, Double, Double) {
    var bxx = 0.0, bxy = 0.0, byy = 0.0, ux = 0.0, uy = 0.0, ss = 0.0
    for (i, c) in coefficients.enumerated() {
      let w = weights[i]
      let s = c.0 + c.1 * x + c.2 * y
      bxx += w * c.1 * c.1
      bxy += w * c.1 * c.2
      byy += w * c.2 * c.2
      ux += w * s * c.1
      uy += w * s * c.2
      ss += w * s * s
    }
    guard ss > 0 else { return (bxx, bxy, byy) }
    return (bxx - ux * ux / ss, bxy - ux * uy / ss, byy - uy * uy / ss)
  }

  /// The RMS over the still plateaus of `presses`, frame by frame, of the
  /// bound for a causal estimate (mm); nil when none has a plateau.
  func rms(_ presses: [TruthPress]) -> Double? {
    let dt = 1 / Double(rate_hz)
    var sum = 0.0
    var count = 0
    for press in presses {
      guard press.role != .object, let plateau = press.plateau() else { continue }
      let at = press.position(at: plateau.start)
      let k = information(x: at.x, y: at.y)
      var energy = 0.0  // sum of F_t^2 since the press began
      var t = press.touch.start_s
      while t <= plateau.end {
        let f = press.touch.state(at: t)?.force ?? 0
        energy += f * f
        if t >= plateau.start {
          let (a, b, c) = (k.0 * energy, k.1 * energy, k.2 * energy)
          let det = a * c - b * b
          if det > 0 {
            sum += (a + c) / det
            count += 1
          }
        }
        t += dt
      }
    }
    return count > 0 ? (sum / Double(count)).squareRoot() : nil
  }
}
