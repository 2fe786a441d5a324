import PanelFormats

/// A grid's learnt response: what each cell carries of a press at any
/// point (x, y) of the panel,
///
///     load_k = F * c(x, y) * K(x_k - x, y_k - y) / sum_m K(x_m - x, y_m - y)
///
/// - `K` is the kernel: a cell's load for a press at an offset from the
///   cell's centre, the same for every cell, in two dimensions (it may be
///   wider along x than along y, or any shape an overlay gives it), on a
///   lattice of knots a quarter pitch apart out to `reach` pitches each way
///   and zero beyond, read between knots by a Catmull-Rom cubic (its value
///   and slopes continuous). It is point-symmetric, `K(-d) = K(d)` (what a
///   uniform overlay does), so half the lattice is stored.
/// - `c` is the capture: the share of a press the cells carry, relative to
///   a press at the panel's centre (a frame or a bezel that bears part of
///   an edge press makes it fall toward the edges), a smooth field over the
///   panel on knots about a pitch apart, read by the same cubic.
///
/// The normalisation over the cells makes the grid's edges right whatever
/// the kernel: a press near an edge loads fewer cells, and each of them
/// more. The calibration fits it (`GridResponse+Fit`), its record keeps it
/// (`ResponseRecord`, format `grid-response` 1), the contacts read it.
public struct GridResponse: Sendable, Equatable {
  public static let format = "grid-response"
  public static let version = 1
  public static let knotsPerPitch = 4

  public let pitch_mm: Double
  public let reach: Int
  /// Kernel knots (`ResponseRecord.kernelCount`), K(0, 0) = 1.
  public var kernel: [Double]
  /// The panel, and the capture's knots spanning it.
  public let width_mm: Double
  public let height_mm: Double
  public let captureColumns: Int
  public let captureRows: Int
  public var capture: [Double]

  /// Knots each way from the centre.
  public var n: Int { reach * GridResponse.knotsPerPitch }
  public var step_mm: Double { pitch_mm / Double(GridResponse.knotsPerPitch) }
  var captureStepX: Double { width_mm / Double(captureColumns - 1) }
  var captureStepY: Double { height_mm / Double(captureRows - 1) }

  public init(
    pitch_mm: Double, reach: Int, kernel: [Double], width_mm: Double, height_mm: Double, captureColumns: Int,
    captureRows: Int, capture: [Double]
  ) {
    self.pitch_mm = pitch_mm
    self.reach = reach
    self.kernel = kernel
    self.width_mm = width_mm
    self.height_mm = height_mm
    self.captureColumns = captureColumns
    self.captureRows = captureRows
    self.capture = capture
  }

  /// A response for `board`'s grid from a radial profile (capture 1
  /// everywhere): the starting point of the fit, and what a record without
  /// a response had.
  public init(profile: SpreadProfile, board: Board) {
    let reach = profile.reach
    let n = reach * GridResponse.knotsPerPitch
    let step = profile.pitch_mm / Double(GridResponse.knotsPerPitch)
    var kernel = [Double](repeating: 0, count: ResponseRecord.kernelCount(reach: reach, knotsPerPitch: GridResponse.knotsPerPitch))
    for j in 0...n {
      for i in -n...n where j > 0 || i >= 0 {
        let r = (Double(i * i + j * j)).squareRoot() * step
        kernel[GridResponse.index(i, j, n: n)] = profile.g(r)
      }
    }
    let (columns, rows) = GridResponse.captureKnots(board: board, pitch: profile.pitch_mm)
    self.init(
      pitch_mm: profile.pitch_mm, reach: reach, kernel: kernel, width_mm: board.width_mm, height_mm: board.height_mm,
      captureColumns: columns, captureRows: rows, capture: [Double](repeating: 1, count: columns * rows))
  }

  /// The capture's knots for a panel: about one a pitch each way, at least two.
  public static func captureKnots(board: Board, pitch: Double) -> (Int, Int) {
    (max(2, Int((board.width_mm / pitch).rounded()) + 1), max(2, Int((board.height_mm / pitch).rounded()) + 1))
  }

  // MARK: The kernel's lattice

  /// Where knot (i, j) (or its mirror (-i, -j)) is stored; |i|, |j| <= n.
  @inline(__always)
  public static func index(_ i: Int, _ j: Int, n: Int) -> Int {
    let (a, b) = j < 0 || (j == 0 && i < 0) ? (-i, -j) : (i, j)
    return b == 0 ? a : n + 1 + (b - 1) * (2 * n + 1) + (a + n)
  }

  /// Knot (i, j), 0 beyond the lattice.
  @inline(__always)
  public func knot(_ i: Int, _ j: Int) -> Double {
    let n = self.n
    guard i >= -n && i <= n && j >= -n && j <= n else { return 0 }
    return kernel[GridResponse.index(i, j, n: n)]
  }

  /// The Catmull-Rom weights of the four knots around `t` in [0, 1), and
  /// their derivatives.
  @inline(__always)
  public static func weights(_ t: Double) -> (w: (Double, Double, Double, Double), d: (Double, Double, Double, Double)) {
    let t2 = t * t
    let t3 = t2 * t
    let w = ((-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2)
    let d = ((-3 * t2 + 4 * t - 1) / 2, (9 * t2 - 10 * t) / 2, (-9 * t2 + 8 * t + 1) / 2, (3 * t2 - 2 * t) / 2)
    return (w, d)
  }

  @inline(__always)
  static func tuple(_ v: (Double, Double, Double, Double), _ i: Int) -> Double {
    switch i {
    case 0: return v.0
    case 1: return v.1
    case 2: return v.2
    default: return v.3
    }
  }

  /// K at offset (`dx`, `dy`) mm of the press from the cell's centre... or
  /// of the cell from the press: K is point-symmetric.
  public func kernel(_ dx: Double, _ dy: Double) -> Double {
    kernelGradient(dx, dy).value
  }

  /// K and its slopes along x and y (per mm) at (`dx`, `dy`) mm.
  public func kernelGradient(_ dx: Double, _ dy: Double) -> (value: Double, dx: Double, dy: Double) {
    let u = dx / step_mm
    let v = dy / step_mm
    let n = Double(self.n)
    guard abs(u) < n + 1, abs(v) < n + 1 else { return (0, 0, 0) }
    let i0 = Int(u.rounded(.down))
    let j0 = Int(v.rounded(.down))
    let (wu, du) = GridResponse.weights(u - Double(i0))
    let (wv, dv) = GridResponse.weights(v - Double(j0))
    var value = 0.0
    var gx = 0.0
    var gy = 0.0
    for b in 0..<4 {
      let wb = GridResponse.tuple(wv, b)
      let db = GridResponse.tuple(dv, b)
      for a in 0..<4 {
        let k = knot(i0 - 1 + a, j0 - 1 + b)
        if k == 0 { continue }
        let wa = GridResponse.tuple(wu, a)
        value += wa * wb * k
        gx += GridResponse.tuple(du, a) * wb * k
        gy += wa * db * k
      }
    }
    return (value, gx / step_mm, gy / step_mm)
  }

  /// The knots K at (`dx`, `dy`) is made of and their weights (stored
  /// indices; a knot may appear twice, from both halves): the linear fit's
  /// basis.
  public func kernelBasis(_ dx: Double, _ dy: Double, into basis: inout [(Int, Double)]) {
    basis.removeAll(keepingCapacity: true)
    let u = dx / step_mm
    let v = dy / step_mm
    let n = self.n
    guard abs(u) < Double(n + 1), abs(v) < Double(n + 1) else { return }
    let i0 = Int(u.rounded(.down))
    let j0 = Int(v.rounded(.down))
    let (wu, _) = GridResponse.weights(u - Double(i0))
    let (wv, _) = GridResponse.weights(v - Double(j0))
    for b in 0..<4 {
      let j = j0 - 1 + b
      guard j >= -n && j <= n else { continue }
      for a in 0..<4 {
        let i = i0 - 1 + a
        guard i >= -n && i <= n else { continue }
        let w = GridResponse.tuple(wu, a) * GridResponse.tuple(wv, b)
        if w != 0 { basis.append((GridResponse.index(i, j, n: n), w)) }
      }
    }
  }

  // MARK: The capture

  /// The capture at (`x`, `y`) mm (knots beyond the panel's edge continue
  /// the last two in a straight line).
  public func capture(_ x: Double, _ y: Double) -> Double {
    var value = 0.0
    captureBasis(x, y) { k, w in value += w * capture[k] }
    return value
  }

  /// Calls `body(knot, weight)` for the capture knots at (`x`, `y`).
  public func captureBasis(_ x: Double, _ y: Double, _ body: (Int, Double) -> Void) {
    let u = min(max(x / captureStepX, 0), Double(captureColumns - 1))
    let v = min(max(y / captureStepY, 0), Double(captureRows - 1))
    let i0 = min(Int(u), captureColumns - 2)
    let j0 = min(Int(v), captureRows - 2)
    let (wu, _) = GridResponse.weights(u - Double(i0))
    let (wv, _) = GridResponse.weights(v - Double(j0))
    for b in 0..<4 {
      let wb = GridResponse.tuple(wv, b)
      for a in 0..<4 {
        let w = GridResponse.tuple(wu, a) * wb
        if w == 0 { continue }
        // Beyond the knots: k(-1) = 2 k(0) - k(1), likewise at the far end.
        for (i, fi) in GridResponse.clamped(i0 - 1 + a, captureColumns) {
          for (j, fj) in GridResponse.clamped(j0 - 1 + b, captureRows) {
            body(j * captureColumns + i, w * fi * fj)
          }
        }
      }
    }
  }

  /// Knot `i` of `count` as knots within the range: itself, or a straight
  /// line's continuation of the two nearest.
  @inline(__always)
  static func clamped(_ i: Int, _ count: Int) -> [(Int, Double)] {
    if i < 0 { return [(0, 2), (1, -1)] }
    if i >= count { return [(count - 1, 2), (count - 2, -1)] }
    return [(i, 1)]
  }

  // MARK: Loads

  /// Each cell's load for a press of `force` at (`x`, `y`).
  public func loads(force: Double, x: Double, y: Double, cells: [CellPosition]) -> [Double] {
    var shares = cells.map { kernel($0.x_mm - x, $0.y_mm - y) }
    let total = shares.reduce(0, +)
    guard total > 0 else { return shares.map { _ in 0 } }
    let scale = force * capture(x, y) / total
    for k in shares.indices { shares[k] *= scale }
    return shares
  }

  /// The sum of the kernel over `cells` for a press at (`x`, `y`).
  public func normalisation(x: Double, y: Double, cells: [CellPosition]) -> Double {
    var total = 0.0
    for c in cells { total += kernel(c.x_mm - x, c.y_mm - y) }
    return total
  }

  // MARK: The record

  /// The record's `[response]` table (numbers to 7 significant digits).
  public var record: ResponseRecord {
    ResponseRecord(
      format: GridResponse.format, version: GridResponse.version, pitch_mm: pitch_mm,
      knotsPerPitch: GridResponse.knotsPerPitch, reach: reach, kernel: kernel.map(GridResponse.rounded),
      captureColumns: captureColumns, captureRows: captureRows, capture: capture.map(GridResponse.rounded))
  }

  /// `v` to 7 significant digits (written shorter, read back the same).
  static func rounded(_ v: Double) -> Double {
    guard v != 0, v.isFinite else { return 0 }
    var scale = 1.0
    var a = abs(v)
    while a >= 1 {
      a /= 10
      scale /= 10
    }
    while a < 0.1 {
      a *= 10
      scale *= 10
    }
    let s = scale * 1e7
    return (v * s).rounded() / s
  }

  /// The response a record keeps for `board`, nil when it has none of this
  /// format or it does not fit the board.
  public init?(record r: ResponseRecord, board: Board) {
    guard r.format == GridResponse.format, let grid = board.grid, let pitch = r.pitch_mm,
      abs(pitch - grid.pitch_mm) < 1e-6 * grid.pitch_mm, r.knotsPerPitch == GridResponse.knotsPerPitch,
      let reach = r.reach, let kernel = r.kernel,
      kernel.count == ResponseRecord.kernelCount(reach: reach, knotsPerPitch: GridResponse.knotsPerPitch),
      let columns = r.captureColumns, let rows = r.captureRows, let capture = r.capture, capture.count == columns * rows
    else { return nil }
    self.init(
      pitch_mm: pitch, reach: reach, kernel: kernel, width_mm: board.width_mm, height_mm: board.height_mm,
      captureColumns: columns, captureRows: rows, capture: capture)
  }
}
