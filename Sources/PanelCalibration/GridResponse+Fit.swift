import PanelFormats
import PanelMechanics

/// Learning a grid's two-dimensional response (`GridResponse`) from a
/// session's placements, after the radial profile's fit.
///
/// Three linear least-squares problems in turn, each holding the others:
/// the kernel's knots (the cells' calibrated forces over what each placement
/// puts on the panel), the capture's knots (each placement's level), and the
/// cells' gains (for the loads the response gives), while the residual
/// falls. The kernel is regularised toward smoothness (second differences
/// along both axes, the lattice's rim held toward zero) and, lightly, toward
/// the radial profile it started from, so knots no placement reaches stay
/// near it; the capture toward smoothness and 1. A session whose placements
/// stand only on cell centres says nothing between them: there the kernel
/// stays the radial profile's.
extension CalibrationFit {
  /// Smoothness of the kernel (a multiple of the data's mean weight per
  /// knot), its pull toward the radial profile, and the capture's
  /// smoothness and pull toward 1.
  static let kernelSmoothing = 0.005
  static let kernelPrior = 0.0005
  static let captureSmoothing = 0.05
  static let capturePrior = 0.001

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
    for _ in 0..<10 {
      let forces = placements.map { p in (0..<n).map { force($0, p.deltas[$0], p.dT) } }
      guard let kernel = response.refinedKernel(forces: forces, placements: placements, cells: board.cells, excluded: excluded, prior: prior)
      else { break }
      response.kernel = kernel
      guard let capture = response.refinedCapture(forces: forces, placements: placements, cells: board.cells, excluded: excluded)
      else { break }
      response.capture = capture
      let loads = placements.map { response.loads(force: $0.force_n, x: $0.x_mm, y: $0.y_mm, cells: board.cells) }
      guard let cells = CalibrationFit.fitGridCells(placements, loads: loads, n: n, temperature: temperature, excluded: excluded)
      else { break }
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
    let mean = normal.meanDiagonal
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

  /// The capture that best explains each placement's level given the
  /// kernel, scaled to 1 at the panel's centre. Nil when singular.
  func refinedCapture(
    forces: [[Double]], placements: [CalibrationFit.Placement], cells: [CellPosition], excluded: Set<Int>
  ) -> [Double]? {
    let size = capture.count
    var normal = SymmetricSystem(size: size)
    for (j, p) in placements.enumerated() {
      var shares = cells.map { kernel($0.x_mm - p.x_mm, $0.y_mm - p.y_mm) }
      let total = shares.reduce(0, +)
      guard total > 0 else { continue }
      let wt = CalibrationFit.weight(p)
      // Sum over the cells of (a c - f)^2 with a = w F K / N: one row
      // a-weighted per placement.
      var aa = 0.0
      var af = 0.0
      for k in cells.indices where !excluded.contains(k) {
        shares[k] *= wt * p.force_n / total
        aa += shares[k] * shares[k]
        af += shares[k] * wt * forces[j][k]
      }
      guard aa > 0 else { continue }
      var row: [(Int, Double)] = []
      captureBasis(p.x_mm, p.y_mm) { row.append(($0, $1)) }
      let norm = aa.squareRoot()
      normal.addRow(row, scale: norm, target: af / norm)
    }
    let mean = normal.meanDiagonal
    guard mean > 0 else { return nil }
    let smooth = (CalibrationFit.captureSmoothing * mean).squareRoot()
    for j in 0..<captureRows {
      for i in 0..<captureColumns {
        if i > 0 && i + 1 < captureColumns {
          normal.addRow([(j * captureColumns + i - 1, 1), (j * captureColumns + i, -2), (j * captureColumns + i + 1, 1)], scale: smooth, target: 0)
        }
        if j > 0 && j + 1 < captureRows {
          normal.addRow(
            [((j - 1) * captureColumns + i, 1), (j * captureColumns + i, -2), ((j + 1) * captureColumns + i, 1)], scale: smooth,
            target: 0)
        }
      }
    }
    let pull = (CalibrationFit.capturePrior * mean).squareRoot()
    for k in 0..<size { normal.addRow([(k, 1)], scale: pull, target: pull) }
    guard let x = normal.solve() else { return nil }
    var scaled = self
    scaled.capture = x
    let centre = scaled.capture(width_mm / 2, height_mm / 2)
    guard centre > 0 else { return nil }
    return x.map { $0 / centre }
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
