import ForceCore
import PanelFormats

extension GridResponse {
  /// The response as the core reads it (`ResponseTable`): the kernel
  /// resampled on eighth pitches (Q15 of its largest knot), and the force
  /// scale on knots a pitch apart over the panel, `N / (c N_table)`: the
  /// kernel summed over every cell (`N`) over the capture and over what
  /// the table's kernel sums to at that point (its reach is 2.5 pitches).
  public func coreTable(cells: [CellPosition]) -> ResponseTable {
    var table = ResponseTable()
    let n = ResponseTable.reach
    let step = pitch_mm / Double(ResponseTable.knotsPerPitch)
    var values = [Double](repeating: 0, count: ResponseTable.knotCount)
    for j in 0...n {
      for i in -n...n where j > 0 || i >= 0 {
        values[ResponseTable.index(i, j)] = max(kernel(Double(i) * step, Double(j) * step), 0)
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
}
