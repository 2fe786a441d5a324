import PanelFormats

#if canImport(Glibc)
  import Glibc
#endif

/// How a press at one point of the panel loads each cell.
///
/// - Supports: a rigid plate on springs (the load cells, stiffness `k_i`).
///   The plate stays flat, so cell deflections form a plane
///   `w = a + b x + c y`; force and moment balance give three equations
///   `sum k_i w_i (1, x_i, y_i) = F (1, px, py)`. Solving once gives each
///   cell's share as a linear function of the press position. It holds for
///   any number of supports and superposes for several presses.
/// - Grid: a flexible overlay spreads a point load as its kernel says
///   (`SpreadingKernel`; by default an elastic layer of depth `z`, whose
///   vertical stress falls as `(1 + (r/z)^2)^(-5/2)`, Boussinesq),
///   integrated over each cell's square (3x3 samples) and normalised so the
///   cells carry the whole force.
public struct LoadSharing: Sendable {
  package enum Model: Sendable {
    case plate(coefficients: [(Double, Double, Double)])
    case grid(cells: [CellPosition], pitch: Double, kernel: SpreadingKernel)
  }
  package let model: Model

  /// A rigid plate on supports at `cells` with relative stiffness `stiffness`.
  public init(supports cells: [CellPosition], stiffness: [Double]) {
    var m = [[Double]](repeating: [0, 0, 0], count: 3)
    for (c, k) in zip(cells, stiffness) {
      let v = [1, c.x_mm, c.y_mm]
      for i in 0..<3 { for j in 0..<3 { m[i][j] += k * v[i] * v[j] } }
    }
    let inv = LoadSharing.invert3(m)
    var coefficients: [(Double, Double, Double)] = []
    for (c, k) in zip(cells, stiffness) {
      let v = [1, c.x_mm, c.y_mm]
      var r = [0.0, 0, 0]
      for j in 0..<3 { for i in 0..<3 { r[j] += k * v[i] * inv[i][j] } }
      coefficients.append((r[0], r[1], r[2]))
    }
    model = .plate(coefficients: coefficients)
  }

  /// A grid of cells with `pitch` under an elastic layer `depth` deep.
  public init(grid cells: [CellPosition], pitch: Double, depth: Double) {
    model = .grid(cells: cells, pitch: pitch, kernel: .boussinesq(depth: depth))
  }

  /// A grid of cells with `pitch` under an overlay spreading as `kernel`.
  public init(grid cells: [CellPosition], pitch: Double, kernel: SpreadingKernel) {
    model = .grid(cells: cells, pitch: pitch, kernel: kernel)
  }

  /// Adds the loads of a press of `force` newtons at (`x`, `y`) mm to `loads`.
  public func add(force: Double, x: Double, y: Double, to loads: inout [Double]) {
    switch model {
    case .plate(let coefficients):
      for i in 0..<coefficients.count {
        let c = coefficients[i]
        loads[i] += force * (c.0 + c.1 * x + c.2 * y)
      }
    case .grid(let cells, let pitch, let kernel):
      // Two passes (normalise, then add) so nothing is allocated per frame.
      var total = 0.0
      for i in 0..<cells.count {
        total += LoadSharing.weight(cells[i], pitch: pitch, kernel: kernel, x: x, y: y)
      }
      guard total > 0 else { return }
      let scale = force / total
      for i in 0..<cells.count {
        loads[i] += scale * LoadSharing.weight(cells[i], pitch: pitch, kernel: kernel, x: x, y: y)
      }
    }
  }

  /// The stress of a unit point load at (`x`, `y`) over one cell.
  @inline(__always)
  package static func weight(_ cell: CellPosition, pitch: Double, kernel: SpreadingKernel, x: Double, y: Double) -> Double {
    kernel.cellWeight(cell, pitch: pitch, x: x, y: y)
  }

  package static func invert3(_ m: [[Double]]) -> [[Double]] {
    let a = m[0][0], b = m[0][1], c = m[0][2]
    let d = m[1][0], e = m[1][1], f = m[1][2]
    let g = m[2][0], h = m[2][1], i = m[2][2]
    let A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g
    let det = a * A + b * B + c * C
    guard abs(det) > 1e-300 else { return [[0, 0, 0], [0, 0, 0], [0, 0, 0]] }
    let D = -(b * i - c * h), E = a * i - c * g, F = -(a * h - b * g)
    let G = b * f - c * e, H = -(a * f - c * d), I = a * e - b * d
    return [[A / det, D / det, G / det], [B / det, E / det, H / det], [C / det, F / det, I / det]]
  }
}
