import ForceCore
import PanelFormats

extension GridResponse {
  /// The response as the core reads it (`ResponseTable`): the kernel on
  /// eighth pitches (Q15 of its largest knot), and the force scale on knots
  /// a pitch apart over the panel, `N / (c N_table)`: the kernel summed
  /// over every cell (`N`) over the capture and over what the table's
  /// kernel sums to at that point (its reach is 2.5 pitches).
  ///
  /// The core reads the table bilinearly, so its knots are not the kernel's
  /// values there but the bilinear surface nearest to the kernel in least
  /// squares over the whole lattice (`bilinearProjection`): point samples
  /// leave the surface below a peaked kernel between knots and above its
  /// tails everywhere a press lands off the knots, the same way for every
  /// cell (a pitch is a whole number of knots): on sim-grid's noise-free
  /// middle the core read presses 0.12 mm RMS off (0.18 at worst), with
  /// the projection 0.07 (0.11) (`ResponseTableTests`).
  public func coreTable(cells: [CellPosition]) -> ResponseTable {
    var table = ResponseTable()
    let n = ResponseTable.reach
    let step = pitch_mm / Double(ResponseTable.knotsPerPitch)
    let surface = bilinearProjection(step: step, reach: n)
    var values = [Double](repeating: 0, count: ResponseTable.knotCount)
    for j in 0...n {
      for i in -n...n where j > 0 || i >= 0 {
        values[ResponseTable.index(i, j)] = max(surface[(j + n) * (2 * n + 1) + (i + n)], 0)
      }
    }
    let top = values.max() ?? 0
    guard top > 0 else { return table }
    for (i, v) in values.enumerated() { table.kernel[i] = Int16((v / top * 32767).rounded()) }
    // The table's kernel as the core reads it (bilinear), in K's units.
    func tableKernel(_ dx: Double, _ dy: Double) -> Double {
      let u = dx / step
      let v = dy / step
      let i0 = Int(u.rounded(.down))
      let j0 = Int(v.rounded(.down))
      guard i0 >= -n && i0 < n && j0 >= -n && j0 < n else { return 0 }
      let fu = u - Double(i0)
      let fv = v - Double(j0)
      func k(_ i: Int, _ j: Int) -> Double { Double(table.kernel[ResponseTable.index(i, j)]) }
      let a = k(i0, j0) + (k(i0 + 1, j0) - k(i0, j0)) * fu
      let b = k(i0, j0 + 1) + (k(i0 + 1, j0 + 1) - k(i0, j0 + 1)) * fu
      return (a + (b - a) * fv) / 32767 * top
    }
    let columns = captureColumns
    let rows = captureRows
    guard columns * rows <= ResponseTable.scaleCapacity else { return table }
    table.scaleColumns = columns
    table.scaleRows = rows
    for r in 0..<rows {
      for c in 0..<columns {
        let x = Double(c) * width_mm / Double(columns - 1)
        let y = Double(r) * height_mm / Double(rows - 1)
        let full = normalisation(x: x, y: y, cells: cells)
        var sum = 0.0
        for cell in cells { sum += tableKernel(cell.x_mm - x, cell.y_mm - y) }
        let captured = capture(x, y)
        let scale = sum > 0 && captured > 0 ? full / (captured * sum) : 1
        table.scale[r * columns + c] = Int32((min(max(scale, 0.25), 8) * 65536).rounded())
      }
    }
    return table
  }

  /// The knots (i, j), |i|, |j| <= `reach`, `step` mm apart, of the
  /// bilinear surface nearest to the kernel in least squares over the
  /// lattice's square (row-major, j then i): the kernel's integral against
  /// each knot's tent (Gauss-Legendre, four points an interval each way:
  /// exact for the piecewise-cubic kernel), solved by the tents' overlaps
  /// (tridiagonal, the same along each axis).
  func bilinearProjection(step: Double, reach n: Int) -> [Double] {
    let m = 2 * n + 1
    let gauss: [(t: Double, w: Double)] = [
      (0.5 - 0.4305681557970263, 0.1739274225687269), (0.5 - 0.1699905217924281, 0.3260725774312731),
      (0.5 + 0.1699905217924281, 0.3260725774312731), (0.5 + 0.4305681557970263, 0.1739274225687269),
    ]
    // The quadrature points along one axis: knot interval k (from -n), the
    // point's place in it, its weight.
    var points: [(k: Int, t: Double, w: Double)] = []
    for k in -n..<n { for g in gauss { points.append((k, g.t, g.w)) } }
    // Integrals along x, point row by point row, then along y.
    var rowsX = [Double](repeating: 0, count: points.count * m)
    for (q, pv) in points.enumerated() {
      let y = (Double(pv.k) + pv.t) * step
      for pu in points {
        let value = pu.w * kernel((Double(pu.k) + pu.t) * step, y)
        if value == 0 { continue }
        rowsX[q * m + pu.k + n] += value * (1 - pu.t)
        rowsX[q * m + pu.k + n + 1] += value * pu.t
      }
    }
    var surface = [Double](repeating: 0, count: m * m)
    for (q, pv) in points.enumerated() {
      for i in 0..<m {
        let value = pv.w * rowsX[q * m + i]
        surface[(pv.k + n) * m + i] += value * (1 - pv.t)
        surface[(pv.k + n + 1) * m + i] += value * pv.t
      }
    }
    // The tents' overlaps: 2/3 on the diagonal (1/3 at the ends), 1/6 beside.
    func solve(_ x: inout [Double], start: Int, gap: Int) {
      var diagonal = [Double](repeating: 0, count: m)
      for a in 0..<m {
        let d = a == 0 || a == m - 1 ? 1.0 / 3 : 2.0 / 3
        if a == 0 {
          diagonal[a] = d
        } else {
          let f = (1.0 / 6) / diagonal[a - 1]
          diagonal[a] = d - f / 6
          x[start + a * gap] -= f * x[start + (a - 1) * gap]
        }
      }
      for a in stride(from: m - 1, through: 0, by: -1) {
        var v = x[start + a * gap]
        if a < m - 1 { v -= x[start + (a + 1) * gap] / 6 }
        x[start + a * gap] = v / diagonal[a]
      }
    }
    for j in 0..<m { solve(&surface, start: j * m, gap: 1) }
    for i in 0..<m { solve(&surface, start: i, gap: m) }
    return surface
  }
}
