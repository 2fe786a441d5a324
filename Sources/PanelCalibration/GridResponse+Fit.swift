import PanelFormats
import PanelMechanics

/// Learning a grid's two-dimensional response (`GridResponse`) from a
/// session's placements, after the radial profile's fit.
///
/// Two linear least-squares problems in turn, each holding the other: the
/// kernel's knots (the cells' calibrated forces over what each placement
/// puts on the panel), then the cells' coefficients and the capture
/// together (`fitCellsAndCapture`), while the residual falls. The kernel is
/// regularised toward smoothness (second differences along both axes, the
/// lattice's rim held toward zero) and, lightly, toward the radial profile
/// it started from, so knots no placement reaches stay near it; the
/// capture toward smoothness and 1. A session whose placements stand only
/// on cell centres says nothing between them: there the kernel stays the
/// radial profile's.
extension CalibrationFit {
  /// Smoothness of the kernel (a multiple of the data's median weight per
  /// knot), its pull toward the radial profile, and the capture's
  /// smoothness and pull toward 1 (of its mean weight per knot).
  static let kernelSmoothing = 0.005
  static let kernelPrior = 0.0005
  static let captureSmoothing = 0.05
  static let capturePrior = 0.001
  /// Rounds of the alternation at most.
  static let responseRounds = 20

  /// Fits the response from the current gains and radial profile and keeps
  /// its best round (with the gains it gives), also where the radial profile
  /// fits about as well: the contacts are fitted to it, and only the fit
  /// reads a press in the outer band where it is. Returns the residual sum
  /// of squares it ends with (the radial profile's when no round could be
  /// fitted).
  @discardableResult
  mutating func learnResponse(_ placements: [Placement], board: Board, temperature: Bool, sse radial: Double) -> Double {
    guard let profile, board.grid != nil else { return radial }
    let n = board.cellCount
    var response = GridResponse(profile: profile, board: board)
    let prior = response.kernel
    var best: (sse: Double, u: [Double], v: [Double], w: [Double], response: GridResponse)?
    for _ in 0..<CalibrationFit.responseRounds {
      let forces = placements.map { p in (0..<n).map { force($0, p.deltas[$0], p.dT) } }
      guard let kernel = response.refinedKernel(forces: forces, placements: placements, cells: board.cells, excluded: excluded, prior: prior)
      else { break }
      response.kernel = kernel
      guard let cells = response.fitCellsAndCapture(placements, cells: board.cells, temperature: temperature, excluded: excluded)
      else { break }
      response.capture = cells.capture
      (u, v, w) = (cells.u, cells.v, cells.w)
      let improved = best.map { cells.sse < $0.sse * 0.995 } ?? true
      if best.map({ cells.sse < $0.sse }) ?? true { best = (cells.sse, cells.u, cells.v, cells.w, response) }
      if !improved { break }
    }
    guard let best else { return radial }
    (u, v, w) = (best.u, best.v, best.w)
    self.response = best.response
    self.cells = board.cells
    return best.sse
  }
}

extension CalibrationFit {
  /// How contacts take their force, from the response learnt (or the
  /// radial profile): nil on a plate.
  func contactModel(noise_n: Double) -> ContactModel? {
    if let response {
      return ContactModel.fit(pitch: response.pitch_mm, reach: response.reach + 1, noise_n: noise_n) { dx, dy in
        response.kernel(dx, dy)
      }
    }
    return profile.map { ContactModel.from($0, noise_n: noise_n) }
  }

  /// The record's `[response]` table: the grid's learnt response, with the
  /// fit's residual.
  var responseRecord: ResponseRecord? {
    response?.record
  }
}

extension GridResponse {
  /// The kernel that best explains the cells' forces `forces[j][k]` for
  /// the placements, given the capture and the current kernel's
  /// normalisation; scaled to K(0, 0) = 1. Nil when singular.
  func refinedKernel(
    forces: [[Double]], placements: [CalibrationFit.Placement], cells: [CellPosition], excluded: Set<Int>,
    prior: [Double]
  ) -> [Double]? {
    let size = kernel.count
    var normal = SymmetricSystem(size: size)
    var basis: [(Int, Double)] = []
    basis.reserveCapacity(16)
    let limit = Double(reach) * pitch_mm + step_mm
    for (j, p) in placements.enumerated() {
      let total = normalisation(x: p.x_mm, y: p.y_mm, cells: cells)
      guard total > 0 else { continue }
      let wt = CalibrationFit.weight(p)
      let level = wt * p.force_n * capture(p.x_mm, p.y_mm) / total
      for k in cells.indices where !excluded.contains(k) {
        let dx = cells[k].x_mm - p.x_mm
        let dy = cells[k].y_mm - p.y_mm
        guard abs(dx) < limit && abs(dy) < limit else { continue }
        kernelBasis(dx, dy, into: &basis)
        normal.addRow(basis, scale: level, target: wt * forces[j][k])
      }
    }
    // Relative to the median knot's data: the knots a whole pitch apart
    // are seen by every placement on a cell centre, some fifty times the
    // others, and a mean led by them smoothed a peaked kernel's knots
    // between cells (eval-grid-boussinesq-035 learnt 0.193 of the peak
    // at the diagonal half pitch where its panel has 0.258).
    let mean = normal.medianDiagonal
    guard mean > 0 else { return nil }
    // Second differences along both axes over the whole lattice, knots
    // beyond it zero (the rim pulled toward zero with them).
    let n = self.n
    let smooth = (CalibrationFit.kernelSmoothing * mean).squareRoot()
    for j in -n...n {
      for i in -n...n {
        for (di, dj) in [(1, 0), (0, 1)] {
          var row: [(Int, Double)] = []
          for (s, w) in [(-1, 1.0), (0, -2.0), (1, 1.0)] {
            let a = i + s * di
            let b = j + s * dj
            if a >= -n && a <= n && b >= -n && b <= n { row.append((GridResponse.index(a, b, n: n), w)) }
          }
          normal.addRow(row, scale: smooth, target: 0)
        }
      }
    }
    let pull = (CalibrationFit.kernelPrior * mean).squareRoot()
    for k in 0..<size { normal.addRow([(k, 1)], scale: pull, target: pull * prior[k]) }
    guard let x = normal.solve(), x[0] > 0 else { return nil }
    return x.map { $0 / x[0] }
  }
}

extension GridResponse {
  /// The cells' coefficients and the capture together, for the kernel
  /// as it is: each cell's force `u d + v d^2 + w d dT` must be its load
  /// `F c(x, y) K / N`, linear in both. (Fitted in turn, a cell's gain and
  /// the capture where it stands trade against each other: a framed
  /// edge's presses read low, and the edge cells' gains rose to explain
  /// it before the capture could fall, round after round.) The cells'
  /// blocks are eliminated (Schur complement), the capture solved with its
  /// smoothness and its pull toward 1, held to 1 at the panel's centre,
  /// then each cell's coefficients from it. Returns them with the
  /// weighted residual sum of squares; nil when singular.
  func fitCellsAndCapture(
    _ placements: [CalibrationFit.Placement], cells: [CellPosition], temperature: Bool, excluded: Set<Int>
  ) -> (u: [Double], v: [Double], w: [Double], capture: [Double], sse: Double)? {
    let n = cells.count
    let terms = temperature ? 3 : 2
    let size = capture.count
    // Unit-capture loads and each placement's capture basis.
    var unit: [[Double]] = []
    var basis: [[(Int, Double)]] = []
    for p in placements {
      var shares = cells.map { kernel($0.x_mm - p.x_mm, $0.y_mm - p.y_mm) }
      let total = shares.reduce(0, +)
      let scale = total > 0 ? p.force_n / total : 0
      for k in shares.indices { shares[k] *= scale }
      unit.append(shares)
      var row: [(Int, Double)] = []
      captureBasis(p.x_mm, p.y_mm) { row.append(($0, $1)) }
      basis.append(row)
    }
    func features(_ p: CalibrationFit.Placement, _ k: Int) -> [Double] {
      let d = p.deltas[k]
      return temperature ? [d, d * d, d * p.dT] : [d, d * d]
    }
    var system = SymmetricSystem(size: size)
    // Per cell: A (terms^2), B (terms x size), the capture's own block.
    var solved: [(k: Int, a: [[Double]], b: [[Double]])] = []
    for k in 0..<n where !excluded.contains(k) {
      var a = [[Double]](repeating: [Double](repeating: 0, count: terms), count: terms)
      var b = [[Double]](repeating: [Double](repeating: 0, count: size), count: terms)
      for (j, p) in placements.enumerated() {
        let wt = CalibrationFit.weight(p)
        let f = features(p, k).map { $0 * wt }
        let h = unit[j][k] * wt
        for r in 0..<terms {
          for c in 0..<terms { a[r][c] += f[r] * f[c] }
        }
        guard h != 0 else { continue }
        for (i, phi) in basis[j] {
          for r in 0..<terms { b[r][i] -= f[r] * h * phi }
        }
        system.addRow(basis[j], scale: h, target: 0)
      }
      solved.append((k, a, b))
    }
    let mean = system.meanDiagonal
    guard mean > 0 else { return nil }
    // Less each cell's block: D - B^T A^-1 B.
    var gainsFrom: [(k: Int, x: [[Double]])] = []  // A^-1 B (terms x size)
    for block in solved {
      // Scaled columns: counts and counts squared differ by orders of magnitude.
      let s = (0..<terms).map { block.a[$0][$0] > 0 ? block.a[$0][$0].squareRoot() : 1 }
      let scaled = (0..<terms).map { r in (0..<terms).map { c in block.a[r][c] / (s[r] * s[c]) } }
      var x = [[Double]](repeating: [Double](repeating: 0, count: size), count: terms)
      let reached = (0..<size).filter { i in block.b.contains { $0[i] != 0 } }
      for i in reached {
        guard let y = LeastSquares.solveNormal(scaled, (0..<terms).map { block.b[$0][i] / s[$0] }) else { return nil }
        for r in 0..<terms { x[r][i] = y[r] / s[r] }
      }
      gainsFrom.append((block.k, x))
      for i in reached {
        for j in reached {
          var v = 0.0
          for r in 0..<terms { v += block.b[r][i] * x[r][j] }
          system.a[i * size + j] -= v
        }
      }
    }
    let smooth = (CalibrationFit.captureSmoothing * mean).squareRoot()
    for j in 0..<captureRows {
      for i in 0..<captureColumns {
        if i > 0 && i + 1 < captureColumns {
          system.addRow([(j * captureColumns + i - 1, 1), (j * captureColumns + i, -2), (j * captureColumns + i + 1, 1)], scale: smooth, target: 0)
        }
        if j > 0 && j + 1 < captureRows {
          system.addRow(
            [((j - 1) * captureColumns + i, 1), (j * captureColumns + i, -2), ((j + 1) * captureColumns + i, 1)], scale: smooth,
            target: 0)
        }
      }
    }
    let pull = (CalibrationFit.capturePrior * mean).squareRoot()
    for k in 0..<size { system.addRow([(k, 1)], scale: pull, target: pull) }
    // Held to 1 at the centre (the gains take the panel's scale).
    var centre: [(Int, Double)] = []
    captureBasis(width_mm / 2, height_mm / 2) { centre.append(($0, $1)) }
    let hold = (1e3 * mean).squareRoot()
    system.addRow(centre, scale: hold, target: hold)
    guard let c = system.solve() else { return nil }
    var u = [Double](repeating: 0, count: n)
    var v = u
    var w = u
    var sse = 0.0
    for (k, x) in gainsFrom {
      var theta = [Double](repeating: 0, count: terms)
      for r in 0..<terms { for i in 0..<size { theta[r] -= x[r][i] * c[i] } }
      u[k] = theta[0]
      v[k] = theta[1]
      if temperature { w[k] = theta[2] }
      for (j, p) in placements.enumerated() {
        let wt = CalibrationFit.weight(p)
        var level = 0.0
        for (i, phi) in basis[j] { level += phi * c[i] }
        var e = -unit[j][k] * level
        for (r, f) in features(p, k).enumerated() { e += theta[r] * f }
        sse += wt * wt * e * e
      }
    }
    return (u, v, w, c, sse)
  }
}

/// Normal equations `A^T A x = A^T b` built row by row from sparse rows,
/// solved by Cholesky.
struct SymmetricSystem {
  let size: Int
  var a: [Double]
  var b: [Double]

  init(size: Int) {
    self.size = size
    a = [Double](repeating: 0, count: size * size)
    b = [Double](repeating: 0, count: size)
  }

  /// Adds the row `scale * sum(w_i x_i) = target` (repeated indices add up).
  mutating func addRow(_ row: [(Int, Double)], scale: Double, target: Double) {
    for (i, wi) in row {
      let ri = scale * wi
      b[i] += ri * target
      for (j, wj) in row { a[i * size + j] += ri * scale * wj }
    }
  }

  /// The median of the diagonal over the unknowns the rows reached.
  var medianDiagonal: Double {
    let reached = (0..<size).map { a[$0 * size + $0] }.filter { $0 > 0 }.sorted()
    return reached.isEmpty ? 0 : reached[reached.count / 2]
  }

  /// The mean of the diagonal over the unknowns the rows reached.
  var meanDiagonal: Double {
    var sum = 0.0
    var count = 0
    for i in 0..<size where a[i * size + i] > 0 {
      sum += a[i * size + i]
      count += 1
    }
    return count > 0 ? sum / Double(count) : 0
  }

  /// The solution, nil when the system is not positive definite.
  func solve() -> [Double]? {
    var l = a
    let n = size
    for j in 0..<n {
      var d = l[j * n + j]
      for k in 0..<j { d -= l[j * n + k] * l[j * n + k] }
      guard d > 1e-300 else { return nil }
      let root = d.squareRoot()
      l[j * n + j] = root
      for i in (j + 1)..<max(n, j + 1) {
        var s = l[i * n + j]
        for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
        l[i * n + j] = s / root
      }
    }
    var y = b
    for i in 0..<n {
      var s = y[i]
      for k in 0..<i { s -= l[i * n + k] * y[k] }
      y[i] = s / l[i * n + i]
    }
    for i in stride(from: n - 1, through: 0, by: -1) {
      var s = y[i]
      for k in (i + 1)..<max(n, i + 1) { s -= l[k * n + i] * y[k] }
      y[i] = s / l[i * n + i]
    }
    return y
  }
}
