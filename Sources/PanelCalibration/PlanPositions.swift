import PanelFormats

/// Where a plan's position generators put their loads (docs/formats.md,
/// the plan's `[[step]]` keys): what a learnt response needs besides the
/// cell centres.
enum PlanPositions {
  /// The offsets from a cell's centre, in pitches, that `between_cells`
  /// loads: every quarter-pitch offset on each axis but the centre's
  /// (-1/4, 0, 1/4, 1/2 each way: fifteen), so the kernel is measured
  /// between its lattice's knots and not only a whole pitch apart.
  static let offsets: [(Double, Double)] = {
    var list: [(Double, Double)] = []
    for b in [0.0, 0.25, 0.5, -0.25] {
      for a in [0.0, 0.25, 0.5, -0.25] where a != 0 || b != 0 { list.append((a, b)) }
    }
    return list
  }()

  /// `count` rounds of the fifteen offsets, each at its own cell, the cells
  /// spread over the grid by a low-discrepancy sequence (the plastic
  /// number's, R2), edge cells included.
  static func betweenCells(_ grid: GridSpec, count: Int) -> [(Double, Double)] {
    let g = 1.32471795724474602596
    let a1 = 1 / g
    let a2 = 1 / (g * g)
    var list: [(Double, Double)] = []
    var m = 0
    for _ in 0..<count {
      for (dx, dy) in offsets {
        m += 1
        let u = (0.5 + a1 * Double(m)).truncatingRemainder(dividingBy: 1)
        let v = (0.5 + a2 * Double(m)).truncatingRemainder(dividingBy: 1)
        let col = min(Int(u * Double(grid.columns)), grid.columns - 1)
        let row = min(Int(v * Double(grid.rows)), grid.rows - 1)
        let x = (Double(col) + 0.5 + dx) * grid.pitch_mm
        let y = (Double(row) + 0.5 + dy) * grid.pitch_mm
        list.append((round(x), round(y)))
      }
    }
    return list
  }

  /// The outer band: on a grid, beside every cell of the outermost rows
  /// and columns toward the panel's edge, and each corner; on a plate, the
  /// quarter, half and three-quarter points of each edge and the corners.
  /// Each stands `edge` in from the edge: a quarter pitch on a grid (a
  /// plate: a twentieth of its smaller side), at least 4 mm (a mass's
  /// footprint), at most half a pitch.
  static func outerBand(_ board: Board) -> [(Double, Double)] {
    let w = board.width_mm
    let h = board.height_mm
    var list: [(Double, Double)] = []
    if let grid = board.grid {
      let p = grid.pitch_mm
      let e = min(max(p / 4, 4), p / 2)
      let xs = (0..<grid.columns).map { (Double($0) + 0.5) * p }
      let ys = (0..<grid.rows).map { (Double($0) + 0.5) * p }
      for x in xs { list.append((x, e)) }
      for y in ys { list.append((w - e, y)) }
      for x in xs.reversed() { list.append((x, h - e)) }
      for y in ys.reversed() { list.append((e, y)) }
      list += [(e, e), (w - e, e), (w - e, h - e), (e, h - e)]
    } else {
      let e = max(min(w, h) / 20, 4)
      for f in [0.25, 0.5, 0.75] { list.append((w * f, e)) }
      for f in [0.25, 0.5, 0.75] { list.append((w - e, h * f)) }
      for f in [0.75, 0.5, 0.25] { list.append((w * f, h - e)) }
      for f in [0.75, 0.5, 0.25] { list.append((e, h * f)) }
      list += [(e, e), (w - e, e), (w - e, h - e), (e, h - e)]
    }
    return list.map { (round($0.0), round($0.1)) }
  }

  /// To a tenth of a millimetre (as a plan file would say it).
  static func round(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}
