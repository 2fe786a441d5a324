import PanelFormats
import PanelMechanics

/// The per-cell calibration fitted to a session's placements through the
/// panel's load-sharing model.
///
/// Each cell's force is `f = u d + v d^2 + w d dT`, with `d` its delta from
/// the zero in counts and `dT` the temperature from the reference: `1/u` is
/// the gain, `v/u^2` the linearity coefficient, `-w/u` the span's
/// temperature coefficient (to first order). The unknowns enter linearly,
/// so the fit is linear least squares:
///
/// - Plate on supports (rigid-plate statics): the cells' forces must add up
///   to the load and put its centre of pressure where the mass stood,
///   three equations per placement for all cells together. No assumption
///   about how the supports share the load (their stiffness) is needed.
/// - Grid (spreading): each cell must carry its share of the load under the
///   overlay's spreading, one equation per cell and placement. The
///   spreading is learnt with the gains: first the depth of a Boussinesq
///   layer (golden section on the residual), then, from there, a free
///   radial profile (`SpreadProfile`) fitted alternately with the cells'
///   gains; the profile is kept when it explains the session better.
public struct CalibrationFit: Sendable {
  public enum Model: String, Sendable {
    case rigidPlate = "rigid-plate"
    case gridSpreading = "grid-spreading"
  }
  public var model: Model
  /// Grid: the fitted depth of the Boussinesq layer the fit started from, mm.
  public var spread_mm: Double?
  /// Grid: the spreading the fit kept (`SpreadProfile`): the Boussinesq
  /// layer's own profile, or a learnt one.
  public var profile: SpreadProfile?
  /// Grid: whether `profile` was learnt (false: the Boussinesq layer's).
  public var learnt = false
  /// Grid: the two-dimensional response learnt from the profile
  /// (`GridResponse+Fit`).
  public var response: GridResponse?
  /// Grid: the cells the response loads.
  var cells: [CellPosition]?
  public var u: [Double]
  public var v: [Double]
  public var w: [Double]
  /// Cells left out (no response): their coefficients are 0.
  public var excluded: Set<Int>
  /// Plates: the cross-talk correction, when the residuals called for one
  /// (corrected forces = coupling x cell forces).
  public var coupling: [[Double]]?
  /// Weighted RMS residual of the statics before and after the coupling fit.
  public var couplingTest: (before: Double, after: Double)?

  /// Force of `cell` for delta `d` counts at `dT` from the reference, N.
  @inline(__always)
  public func force(_ cell: Int, _ d: Double, _ dT: Double) -> Double {
    u[cell] * d + v[cell] * d * d + w[cell] * d * dT
  }

  /// Every cell's force in a placement, the coupling applied.
  package func forces(_ p: Placement) -> [Double] {
    let f = (0..<p.deltas.count).map { force($0, p.deltas[$0], p.dT) }
    guard let m = coupling else { return f }
    return m.map { row in zip(row, f).reduce(0) { $0 + $1.0 * $1.1 } }
  }

  /// The load the panel measures for a placement: the cells' forces
  /// summed (a plate's, or a grid's without a learnt response), or on a
  /// grid with one the load that best explains them at the placement's
  /// position (least squares over the cells: a press near a framed edge
  /// loads the cells with less than its force, and the response knows how
  /// much less).
  func measuredLoad(_ p: Placement) -> Double {
    let f = forces(p)
    guard let response, let cells else { return f.reduce(0, +) }
    let h = response.loads(force: 1, x: p.x_mm, y: p.y_mm, cells: cells)
    var hf = 0.0
    var hh = 0.0
    for k in f.indices where !excluded.contains(k) {
      hf += h[k] * f[k]
      hh += h[k] * h[k]
    }
    return hh > 0 ? hf / hh : f.reduce(0, +)
  }

  /// One placement: every cell's delta, the load and where it stood.
  package struct Placement {
    package var deltas: [Double]
    package var force_n: Double
    package var x_mm: Double
    package var y_mm: Double
    package var dT: Double

    package init(deltas: [Double], force_n: Double, x_mm: Double, y_mm: Double, dT: Double) {
      self.deltas = deltas
      self.force_n = force_n
      self.x_mm = x_mm
      self.y_mm = y_mm
      self.dT = dT
    }
  }

  /// Fits `placements` on `board`; nil when they do not determine the
  /// unknowns (too few or degenerate placements).
  package static func fit(
    _ placements: [Placement], board: Board, temperature: Bool, excluded: Set<Int>
  ) -> CalibrationFit? {
    if let grid = board.grid {
      return fitGrid(placements, board: board, pitch: grid.pitch_mm, temperature: temperature, excluded: excluded)
    }
    return fitPlate(placements, board: board, temperature: temperature, excluded: excluded)
  }

  /// Least-squares weight of a placement: errors relative to the load.
  static func weight(_ p: Placement) -> Double { 1 / max(p.force_n, 0.5) }

  /// The panel's centre and the half diagonal (moments are divided by it).
  static func plateFrame(_ board: Board) -> (cx: Double, cy: Double, r: Double) {
    let cx = board.width_mm / 2
    let cy = board.height_mm / 2
    return (cx, cy, max((cx * cx + cy * cy).squareRoot(), 1))
  }

  static func fitPlate(_ placements: [Placement], board: Board, temperature: Bool, excluded: Set<Int>)
    -> CalibrationFit?
  {
    let n = board.cellCount
    let terms = temperature ? 3 : 2
    let (cx, cy, r) = plateFrame(board)
    var rows: [[Double]] = []
    var rhs: [Double] = []
    for p in placements {
      let wt = weight(p)
      var rf = [Double](repeating: 0, count: n * terms)
      var rx = rf
      var ry = rf
      for k in 0..<n where !excluded.contains(k) {
        let d = p.deltas[k]
        let basis = temperature ? [d, d * d, d * p.dT] : [d, d * d]
        let ax = (board.cells[k].x_mm - cx) / r
        let ay = (board.cells[k].y_mm - cy) / r
        for t in 0..<terms {
          rf[k * terms + t] = wt * basis[t]
          rx[k * terms + t] = wt * basis[t] * ax
          ry[k * terms + t] = wt * basis[t] * ay
        }
      }
      rows += [rf, rx, ry]
      rhs += [wt * p.force_n, wt * p.force_n * (p.x_mm - cx) / r, wt * p.force_n * (p.y_mm - cy) / r]
    }
    plateRidge(&rows, &rhs, cells: (0..<n).filter { !excluded.contains($0) }, terms: terms)
    guard let x = LeastSquares.solve(rows, rhs) else { return nil }
    var fit = CalibrationFit(
      model: .rigidPlate, spread_mm: nil, u: [Double](repeating: 0, count: n), v: [Double](repeating: 0, count: n),
      w: [Double](repeating: 0, count: n), excluded: excluded, coupling: nil)
    for k in 0..<n {
      fit.u[k] = x[k * terms]
      fit.v[k] = x[k * terms + 1]
      if temperature { fit.w[k] = x[k * terms + 2] }
    }
    return fit
  }

  /// How strongly a plate's gains are held alike, and its other terms to
  /// zero, against the data (a fraction of a column's length).
  static let plateRidge = 0.01

  /// Adds the rows that settle what a plate's statics leave open: on more
  /// than three supports the cells' deltas span only the load and its two
  /// moments (the plate stays flat), so the force and centre of pressure
  /// hold along other directions of the gains whatever they are, and
  /// noise alone decided them (a 300 x 200 mm plate on six supports had
  /// gains of -315 000, 18 000 and 118 000 counts/N). Light rows pull each
  /// cell's `u` toward the cells' mean and `v`, `w` toward zero: along the
  /// directions the statics see they move the fit by about `plateRidge`
  /// squared; along the rest they decide it, the gains as alike as the
  /// statics allow.
  static func plateRidge(_ rows: inout [[Double]], _ rhs: inout [Double], cells: [Int], terms: Int) {
    guard cells.count > 1, let width = rows.first?.count else { return }
    var length = [Double](repeating: 0, count: terms)
    for k in cells {
      for t in 0..<terms {
        var s = 0.0
        for row in rows { s += row[k * terms + t] * row[k * terms + t] }
        length[t] += s.squareRoot() / Double(cells.count)
      }
    }
    let m = Double(cells.count)
    for k in cells {
      for t in 0..<terms where length[t] > 0 {
        var row = [Double](repeating: 0, count: width)
        let scale = plateRidge * length[t]
        row[k * terms + t] = scale
        if t == 0 { for j in cells { row[j * terms] -= scale / m } }
        rows.append(row)
        rhs.append(0)
      }
    }
  }

  /// Each cell's share of every placement under spreading `depth` deep.
  static func gridLoads(_ placements: [Placement], board: Board, pitch: Double, depth: Double) -> [[Double]] {
    let sharing = LoadSharing(grid: board.cells, pitch: pitch, depth: depth)
    return placements.map { p in
      var loads = [Double](repeating: 0, count: board.cellCount)
      sharing.add(force: p.force_n, x: p.x_mm, y: p.y_mm, to: &loads)
      return loads
    }
  }

  /// Per-cell fits for spreading `depth`; returns the fit and its weighted
  /// squared residual.
  static func fitGridCells(
    _ placements: [Placement], loads: [[Double]], n: Int, temperature: Bool, excluded: Set<Int>
  ) -> (u: [Double], v: [Double], w: [Double], sse: Double)? {
    var u = [Double](repeating: 0, count: n)
    var v = u
    var w = u
    var sse = 0.0
    for k in 0..<n where !excluded.contains(k) {
      var rows: [[Double]] = []
      var rhs: [Double] = []
      for (i, p) in placements.enumerated() {
        let wt = weight(p)
        let d = p.deltas[k]
        rows.append(temperature ? [wt * d, wt * d * d, wt * d * p.dT] : [wt * d, wt * d * d])
        rhs.append(wt * loads[i][k])
      }
      guard let x = LeastSquares.solve(rows, rhs) else { return nil }
      u[k] = x[0]
      v[k] = x[1]
      if temperature { w[k] = x[2] }
      for (row, target) in zip(rows, rhs) {
        var e = -target
        for (a, b) in zip(row, x) { e += a * b }
        sse += e * e
      }
    }
    return (u, v, w, sse)
  }

  static func fitGrid(
    _ placements: [Placement], board: Board, pitch: Double, temperature: Bool, excluded: Set<Int>
  ) -> CalibrationFit? {
    let n = board.cellCount
    func sse(_ depth: Double) -> Double {
      let loads = gridLoads(placements, board: board, pitch: pitch, depth: depth)
      return fitGridCells(placements, loads: loads, n: n, temperature: temperature, excluded: excluded)?.sse
        ?? .infinity
    }
    // Golden-section search for the depth over a wide bracket.
    var a = 0.2 * pitch
    var b = 2.5 * pitch
    let g = (5.0.squareRoot() - 1) / 2
    var c = b - g * (b - a)
    var d = a + g * (b - a)
    var fc = sse(c)
    var fd = sse(d)
    for _ in 0..<36 {
      if fc < fd {
        b = d
        d = c
        fd = fc
        c = b - g * (b - a)
        fc = sse(c)
      } else {
        a = c
        c = d
        fc = fd
        d = a + g * (b - a)
        fd = sse(d)
      }
    }
    let depth = (a + b) / 2
    let loads = gridLoads(placements, board: board, pitch: pitch, depth: depth)
    guard let cells = fitGridCells(placements, loads: loads, n: n, temperature: temperature, excluded: excluded)
    else { return nil }
    let start = CalibrationFit(
      model: .gridSpreading, spread_mm: depth, u: cells.u, v: cells.v, w: cells.w, excluded: excluded, coupling: nil)
    var fit = start
    fit.profile = SpreadProfile.boussinesq(depth: depth, pitch: pitch)
    let sse = fit.learnProfile(placements, board: board, temperature: temperature, sse: cells.sse)
    // A profile out to five pitches is kept only where the session shows a
    // long tail: it must halve the residual's square. (Its far knots fit
    // whatever the placements leave there, wander and noise included, and a
    // contact then sums more cells.)
    var long = start
    long.profile = SpreadProfile.boussinesq(depth: depth, pitch: pitch, reach: SpreadProfile.longReach)
    let longSSE = long.learnProfile(placements, board: board, temperature: temperature, sse: cells.sse)
    let useLong = long.learnt && longSSE < 0.5 * sse
    if useLong { fit = long }
    fit.learnResponse(placements, board: board, temperature: temperature, sse: useLong ? longSSE : sse)
    return fit
  }

  /// Alternating least squares from the Boussinesq layer's profile: the
  /// profile that best explains the cells' calibrated forces, then the
  /// gains for its loads, and again, while the residual falls by more than
  /// half a percent; the result is kept when its residual is below the
  /// Boussinesq fit's. Returns the residual sum of squares it ends with.
  @discardableResult
  mutating func learnProfile(_ placements: [Placement], board: Board, temperature: Bool, sse boussinesq: Double)
    -> Double
  {
    guard var profile else { return boussinesq }
    let n = board.cellCount
    var best = (sse: boussinesq, u: u, v: v, w: w, profile: profile)
    for _ in 0..<12 {
      let forces = placements.map { p in (0..<n).map { force($0, p.deltas[$0], p.dT) } }
      guard let next = profile.refined(forces: forces, placements: placements, cells: board.cells, excluded: excluded)
      else { break }
      profile = next
      let loads = placements.map { next.loads(force: $0.force_n, x: $0.x_mm, y: $0.y_mm, cells: board.cells) }
      guard let cells = CalibrationFit.fitGridCells(
        placements, loads: loads, n: n, temperature: temperature, excluded: excluded)
      else { break }
      (u, v, w) = (cells.u, cells.v, cells.w)
      let improved = cells.sse < best.sse * 0.995
      if cells.sse < best.sse { best = (cells.sse, cells.u, cells.v, cells.w, next) }
      if !improved { break }
    }
    (u, v, w) = (best.u, best.v, best.w)
    self.profile = best.profile
    learnt = best.sse < boussinesq
    return best.sse
  }

  /// Each cell's modelled load in every placement: the spreading model on a
  /// grid; on a plate, each cell's share fitted as a plane over the press
  /// position (exact for a rigid plate on springs) to the calibrated forces.
  func modelLoads(_ placements: [Placement], board: Board) -> [[Double]] {
    let n = board.cellCount
    if board.grid != nil, let response {
      return placements.map { response.loads(force: $0.force_n, x: $0.x_mm, y: $0.y_mm, cells: board.cells) }
    }
    if board.grid != nil, learnt, let profile {
      return placements.map { profile.loads(force: $0.force_n, x: $0.x_mm, y: $0.y_mm, cells: board.cells) }
    }
    if let grid = board.grid, let depth = spread_mm {
      return CalibrationFit.gridLoads(placements, board: board, pitch: grid.pitch_mm, depth: depth)
    }
    var loads = [[Double]](repeating: [Double](repeating: 0, count: n), count: placements.count)
    let (cx, cy, r) = CalibrationFit.plateFrame(board)
    for k in 0..<n {
      let rows = placements.map { [1, ($0.x_mm - cx) / r, ($0.y_mm - cy) / r] }
      let shares = placements.map { forces($0)[k] / $0.force_n }
      guard let s = LeastSquares.solve(rows, shares) else { continue }
      for (i, p) in placements.enumerated() {
        loads[i][k] = p.force_n * (s[0] + s[1] * rows[i][1] + s[2] * rows[i][2])
      }
    }
    return loads
  }
}

extension CalibrationFit {
  /// How much of the statics residual a coupling must remove to be used:
  /// cross-talk leaves a residual that a full matrix removes; noise and
  /// creep leave one it barely touches.
  static let couplingGain = 0.5

  /// Plates: fits a full map from the cells' forces to the load and its
  /// moments (3 x n) and, when it removes at least half the residual of
  /// the per-cell fit, the cell-by-cell correction `M = I + A+ (K - A)`
  /// that makes the statics `A M` equal to it (A: the supports' statics,
  /// A+ its pseudo-inverse: M is the smallest change from no correction).
  mutating func fitCoupling(_ placements: [Placement], board: Board) {
    let n = board.cellCount
    guard board.grid == nil, n <= 8, excluded.isEmpty, placements.count >= 2 * n else { return }
    let (cx, cy, r) = CalibrationFit.plateFrame(board)
    let a: [[Double]] = [
      [Double](repeating: 1, count: n), board.cells.map { ($0.x_mm - cx) / r }, board.cells.map { ($0.y_mm - cy) / r },
    ]
    let f = placements.map { forces($0) }
    let targets = placements.map { [$0.force_n, $0.force_n * ($0.x_mm - cx) / r, $0.force_n * ($0.y_mm - cy) / r] }
    var k: [[Double]] = []
    var before = 0.0
    var after = 0.0
    // The cells' forces on a rigid plate span only three directions (load
    // and moments), so K is pinned towards A along the rest by a light
    // ridge (1e-3 of the data's weight): that direction never changes a
    // placement's sums, and it must not amplify noise either.
    let weighted = zip(placements, f).map { p, f in f.map { $0 * CalibrationFit.weight(p) } }
    var energy = 0.0
    for r in weighted { for v in r { energy += v * v } }
    let ridge = (1e-3 * energy / Double(n)).squareRoot()
    for row in 0..<3 {
      var rows = weighted
      var rhs = zip(placements, targets).map { p, t in t[row] * CalibrationFit.weight(p) }
      for j in 0..<n {
        var e = [Double](repeating: 0, count: n)
        e[j] = ridge
        rows.append(e)
        rhs.append(ridge * a[row][j])
      }
      guard let x = LeastSquares.solve(rows, rhs) else { return }
      k.append(x)
      for (i, p) in placements.enumerated() {
        let w = CalibrationFit.weight(p)
        var diagonal = -targets[i][row]
        var coupled = -targets[i][row]
        for j in 0..<n {
          diagonal += a[row][j] * f[i][j]
          coupled += x[j] * f[i][j]
        }
        before += w * w * diagonal * diagonal
        after += w * w * coupled * coupled
      }
    }
    let count = Double(3 * placements.count)
    couplingTest = ((before / count).squareRoot(), (after / count).squareRoot())
    guard after < CalibrationFit.couplingGain * CalibrationFit.couplingGain * before else { return }
    // A+ = A^T (A A^T)^-1.
    var aat = [[Double]](repeating: [0, 0, 0], count: 3)
    for i in 0..<3 { for j in 0..<3 { for c in 0..<n { aat[i][j] += a[i][c] * a[j][c] } } }
    let inverse = LoadSharing.invert3(aat)
    var m = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    for i in 0..<n {
      for j in 0..<n {
        var s = i == j ? 1.0 : 0
        for row in 0..<3 {
          var pseudo = 0.0
          for c in 0..<3 { pseudo += a[c][i] * inverse[c][row] }
          s += pseudo * (k[row][j] - a[row][j])
        }
        m[i][j] = s
      }
    }
    // The correction applies on top of any earlier one.
    if let old = coupling {
      m = m.map { row in (0..<n).map { j in (0..<n).reduce(0) { $0 + row[$1] * old[$1][j] } } }
    }
    coupling = m
  }
}
