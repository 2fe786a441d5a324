import PanelFormats

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
///   cells carry the whole force. The overlay may spread further along x
///   than along y (`aspect`), and a frame around the cells may carry what
///   spreads beyond them (`frame`): then the cells carry less than the whole
///   force near an edge, and an edge press's response is cut on that side.
public struct LoadSharing: Sendable {
  package enum Model: Sendable {
    case plate(coefficients: [(Double, Double, Double)])
    case grid(cells: [CellPosition], pitch: Double, kernel: SpreadingKernel)
  }
  package let model: Model
  /// Grids: width along x over width along y (1: alike).
  package var aspect = 1.0
  /// Grids: the frame's share (0: none) and where it bears, a ring of
  /// cell-sized squares two pitches wide around the cells.
  package var frame = 0.0
  var frameCells: [CellPosition] = []

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

  /// A grid of cells with `pitch` under an overlay spreading as `kernel`,
  /// `aspect` times as wide along x as along y, with a frame around the
  /// cells taking `frame` of what a ring of cells there would.
  public init(grid cells: [CellPosition], pitch: Double, kernel: SpreadingKernel, aspect: Double = 1, frame: Double = 0) {
    model = .grid(cells: cells, pitch: pitch, kernel: kernel)
    self.aspect = aspect
    self.frame = frame
    if frame > 0 { frameCells = LoadSharing.ring(around: cells, pitch: pitch, width: 2) }
  }

  /// Cell-sized squares `width` pitches deep around the cells' rectangle.
  static func ring(around cells: [CellPosition], pitch: Double, width: Int) -> [CellPosition] {
    guard let x0 = cells.map(\.x_mm).min(), let x1 = cells.map(\.x_mm).max(),
      let y0 = cells.map(\.y_mm).min(), let y1 = cells.map(\.y_mm).max()
    else { return [] }
    let columns = Int(((x1 - x0) / pitch).rounded()) + 1
    let rows = Int(((y1 - y0) / pitch).rounded()) + 1
    var ring: [CellPosition] = []
    for r in -width..<(rows + width) {
      for c in -width..<(columns + width) where r < 0 || r >= rows || c < 0 || c >= columns {
        ring.append(CellPosition(x_mm: x0 + Double(c) * pitch, y_mm: y0 + Double(r) * pitch))
      }
    }
    return ring
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
      guard aspect == 1 && frame == 0 else {
        shaped(force: force, x: x, y: y, cells: cells, pitch: pitch, kernel: kernel, to: &loads)
        return
      }
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

  /// `add` on an anisotropic overlay or one with a frame: the frame's ring
  /// takes its share of the normalisation, not of the loads.
  func shaped(
    force: Double, x: Double, y: Double, cells: [CellPosition], pitch: Double, kernel: SpreadingKernel,
    to loads: inout [Double]
  ) {
    var total = 0.0
    for i in 0..<cells.count { total += kernel.cellWeight(cells[i], pitch: pitch, x: x, y: y, aspect: aspect) }
    var beyond = 0.0
    for c in frameCells { beyond += kernel.cellWeight(c, pitch: pitch, x: x, y: y, aspect: aspect) }
    total += frame * beyond
    guard total > 0 else { return }
    let scale = force / total
    for i in 0..<cells.count {
      loads[i] += scale * kernel.cellWeight(cells[i], pitch: pitch, x: x, y: y, aspect: aspect)
    }
  }

  /// The coefficients of a plate's shares, `share_i = a + b x + c y`
  /// (nil on a grid).
  package var plateCoefficients: [(Double, Double, Double)]? {
    if case .plate(let c) = model { return c }
    return nil
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
