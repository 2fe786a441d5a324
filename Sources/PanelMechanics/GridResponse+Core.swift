import ForceCore
import PanelFormats

extension GridResponse {
  /// The response as the core reads it (`ResponseTable`): the kernel on
  /// eighth pitches (Q15 of its largest knot), and the force scale on knots
  /// a pitch apart over the panel, `N / (c N_table)`: the kernel summed
  /// over every cell (`N`) over the capture and over what the table's
  /// kernel sums to at that point (its reach is 2.5 pitches).
  ///
  /// The core reads the table bilinearly, so its knots are the bilinear
  /// surface nearest to the kernel in least squares (`bilinearProjection`),
  /// held to the kernel's own values on every half pitch (every fourth
  /// knot each way). Point samples leave the surface below a peaked kernel
  /// between knots and above its tails, the same way for every cell of a
  /// press (a pitch is a whole number of knots): on sim-grid's noise-free
  /// middle the core read presses 0.12 mm RMS off (0.18 at worst), the
  /// projection 0.07 (0.11). Unheld, though, the projection also lowers a
  /// peaked kernel's top and lifts its shoulders at the offsets every press
  /// at a cell's centre or corner reads (whole and half pitches): the fit's
  /// amplitude then no longer matches the scale, which assumes the kernel's
  /// values there, and a Boussinesq overlay 0.35 pitch deep read
  /// every force 4-5 % high. Held on half pitches, those presses read
  /// the kernel itself, and the knots between keep the projection's
  /// positions (`ResponseTableTests`).
  public func coreTable(cells: [CellPosition]) -> ResponseTable {
    coreTable(cells: cells, pinned: ResponseTable.knotsPerPitch / 2)
  }

  /// `coreTable` with the kernel's own values held on every `pinned`-th
  /// knot (`bilinearProjection`).
  func coreTable(cells: [CellPosition], pinned: Int?) -> ResponseTable {
    var table = ResponseTable()
    let n = ResponseTable.reach
    let step = pitch_mm / Double(ResponseTable.knotsPerPitch)
    let surface = bilinearProjection(step: step, reach: n, pinned: pinned)
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
  /// bilinear surface nearest to the kernel in least squares (row-major, j
  /// then i), held to the kernel's own values on every `pinned`-th knot
  /// each way (nil: none held; 1: every knot, the point samples).
  ///
  /// Along each axis in turn (a tensor product: a knot held on both axes
  /// keeps the kernel's value): the held knots are the kernel there, the
  /// knots between two held ones (or between a held one and the lattice's
  /// end) the least-squares line through what the kernel gives against
  /// each knot's tent, given the held ends (tridiagonal: the tents'
  /// overlaps, 2/3 on the diagonal, 1/3 at the lattice's ends, 1/6 beside).
  /// Integrals by Gauss-Legendre, four points an interval: exact for the
  /// piecewise-cubic kernel.
  func bilinearProjection(step: Double, reach n: Int, pinned: Int?) -> [Double] {
    let m = 2 * n + 1
    func held(_ a: Int) -> Bool { pinned.map { (a - n) % $0 == 0 } ?? false }
    let gauss: [(t: Double, w: Double)] = [
      (0.5 - 0.4305681557970263, 0.1739274225687269), (0.5 - 0.1699905217924281, 0.3260725774312731),
      (0.5 + 0.1699905217924281, 0.3260725774312731), (0.5 + 0.4305681557970263, 0.1739274225687269),
    ]
    // Along one axis, the points the kernel is read at (knot steps from
    // -n): the knots, then four Gauss points an interval; and what each
    // knot reads of a function: its value at a held knot, its integral
    // against the knot's tent elsewhere, as (point, weight) pairs.
    var points = (0..<m).map { Double($0 - n) }
    for k in 0..<(m - 1) { for g in gauss { points.append(Double(k - n) + g.t) } }
    var reads = [[(Int, Double)]](repeating: [], count: m)
    for a in 0..<m {
      if held(a) {
        reads[a] = [(a, 1)]
        continue
      }
      for (q, g) in gauss.enumerated() {
        if a > 0 { reads[a].append((m + (a - 1) * 4 + q, g.w * g.t)) }
        if a < m - 1 { reads[a].append((m + a * 4 + q, g.w * (1 - g.t))) }
      }
    }
    // The kernel on every pair of points, then each knot's reads of it
    // along x, then along y.
    let p = points.count
    var values = [Double](repeating: 0, count: p * p)
    for (b, v) in points.enumerated() {
      for (a, u) in points.enumerated() { values[b * p + a] = kernel(u * step, v * step) }
    }
    func read(_ knot: Int, _ f: (Int) -> Double) -> Double { reads[knot].reduce(0) { $0 + $1.1 * f($1.0) } }
    var alongX = [Double](repeating: 0, count: p * m)
    for b in 0..<p { for i in 0..<m { alongX[b * m + i] = read(i) { values[b * p + $0] } } }
    var surface = [Double](repeating: 0, count: m * m)
    for j in 0..<m { for i in 0..<m { surface[j * m + i] = read(j) { alongX[$0 * m + i] } } }
    // Each run of knots between held ones: the tents' overlaps given the
    // held ends (already values), solved in place.
    func solve(_ x: inout [Double], start: Int, gap: Int) {
      var a = 0
      while a < m {
        if held(a) { a += 1; continue }
        var b = a
        while b + 1 < m && !held(b + 1) { b += 1 }
        // Knots a...b are free; a - 1 and b + 1 held (when inside).
        if a > 0 { x[start + a * gap] -= x[start + (a - 1) * gap] / 6 }
        if b < m - 1 { x[start + b * gap] -= x[start + (b + 1) * gap] / 6 }
        var diagonal = [Double](repeating: 0, count: b - a + 1)
        for c in a...b {
          let d = c == 0 || c == m - 1 ? 1.0 / 3 : 2.0 / 3
          if c == a {
            diagonal[0] = d
          } else {
            let f = (1.0 / 6) / diagonal[c - a - 1]
            diagonal[c - a] = d - f / 6
            x[start + c * gap] -= f * x[start + (c - 1) * gap]
          }
        }
        for c in stride(from: b, through: a, by: -1) {
          var v = x[start + c * gap]
          if c < b { v -= x[start + (c + 1) * gap] / 6 }
          x[start + c * gap] = v / diagonal[c - a]
        }
        a = b + 1
      }
    }
    for j in 0..<m { solve(&surface, start: j * m, gap: 1) }
    for i in 0..<m { solve(&surface, start: i, gap: m) }
    return surface
  }
}
