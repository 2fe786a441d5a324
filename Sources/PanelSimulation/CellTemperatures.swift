import PanelFormats

#if canImport(Glibc)
  import Glibc
#endif

/// Each cell's own temperature, for panels that do not warm up evenly: the
/// panel's temperature (what its sensor reads) plus the scenario's gradient
/// at the cell, which the cell follows with its thermal lag (first order).
/// Sized at setup, advanced in place.
struct CellTemperatures {
  let lag_s: [Double]
  /// Each cell's place across the panel, -0.5 (left, top) ... 0.5.
  let across: [(x: Double, y: Double)]
  var celsius: [Double]
  var started = false
  /// Whether any cell lags at all.
  let lagging: Bool

  init(cells: [SimulatedCell], board: Board) {
    lag_s = cells.map(\.thermalLag_s)
    across = board.cells.map { (board.width_mm > 0 ? $0.x_mm / board.width_mm - 0.5 : 0, board.height_mm > 0 ? $0.y_mm / board.height_mm - 0.5 : 0) }
    celsius = [Double](repeating: 25, count: cells.count)
    lagging = lag_s.contains { $0 > 0 }
  }

  /// Moves every cell toward the panel's temperature `panel` plus the
  /// gradient at its place, over `dt` seconds.
  mutating func advance(panel: Double, gradient g: (x: Double, y: Double), dt: Double) {
    for i in 0..<celsius.count {
      let target = panel + g.x * across[i].x + g.y * across[i].y
      if !started || lag_s[i] <= 0 {
        celsius[i] = target
      } else if dt > 0 {
        celsius[i] += (target - celsius[i]) * (1 - exp(-dt / lag_s[i]))
      }
    }
    started = true
  }
}
