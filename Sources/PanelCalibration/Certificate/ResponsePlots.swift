import PanelFormats
import PanelMechanics

#if canImport(Glibc)
  import Glibc
#endif

/// The certificate's pictures of the learnt response: a grid's kernel and
/// capture, a plate's support shares.
enum ResponsePlots {
  /// The kernel around a cell: what a cell carries of a press at each
  /// offset, as a colour map over +-reach pitches with the cells' outlines
  /// and contours at 50, 20, 5 and 1 % of the peak.
  static func kernel(_ response: GridResponse) -> SVG {
    let reach = Double(response.reach)
    let size = 360.0
    let left = 46.0
    let top = 14.0
    var svg = SVG(width: left + size + 100, height: top + size + 44)
    let pixels = 8 * response.reach * 2
    let cell = size / Double(pixels)
    let pitch = response.pitch_mm
    func offset(_ i: Int) -> Double { (-reach + (Double(i) + 0.5) * 2 * reach / Double(pixels)) * pitch }
    var values = [[Double]](repeating: [Double](repeating: 0, count: pixels), count: pixels)
    for j in 0..<pixels {
      for i in 0..<pixels {
        let v = response.kernel(offset(i), offset(j))
        values[j][i] = v
        svg.rect(
          left + Double(i) * cell, top + Double(j) * cell, cell + 0.5, cell + 0.5, fill: SVG.sequential(v),
          extra: "shape-rendering=\"crispEdges\"")
      }
    }
    func X(_ pitches: Double) -> Double { left + (pitches + reach) / (2 * reach) * size }
    func Y(_ pitches: Double) -> Double { top + (pitches + reach) / (2 * reach) * size }
    // The cells around the one at the centre.
    var b = -reach + 0.5
    while b < reach {
      svg.line(X(b), top, X(b), top + size, stroke: "#ffffff", width: 0.6, dash: "2 3")
      svg.line(left, Y(b), left + size, Y(b), stroke: "#ffffff", width: 0.6, dash: "2 3")
      b += 1
    }
    for level in [0.5, 0.2, 0.05, 0.01] {
      for s in contour(values, level: level) {
        let x1 = X(-reach + s.0 * 2 * reach / Double(pixels))
        let y1 = Y(-reach + s.1 * 2 * reach / Double(pixels))
        let x2 = X(-reach + s.2 * 2 * reach / Double(pixels))
        let y2 = Y(-reach + s.3 * 2 * reach / Double(pixels))
        svg.line(x1, y1, x2, y2, stroke: level >= 0.5 ? "#ffffff" : "#f0f0f0", width: level >= 0.5 ? 1.6 : 0.9)
      }
    }
    svg.rect(left, top, size, size, fill: "none", stroke: "#333")
    for t in SVG.ticks(-reach, reach, count: 6) {
      svg.label(X(t), top + size + 14, SVG.tick(t, [0, 1]), size: 10, anchor: .middle)
      svg.label(left - 6, Y(t) + 4, SVG.tick(t, [0, 1]), size: 10, anchor: .end)
    }
    svg.label(left + size / 2, top + size + 32, "press offset from the cell along x (pitches)", size: 11, anchor: .middle)
    svg.label(12, top + size / 2, "along y (pitches)", size: 11, anchor: .middle, rotate: -90)
    colourBar(&svg, x: left + size + 26, top: top, height: size, low: 0, high: 1, unit: "of the peak", percent: true) {
      SVG.sequential($0)
    }
    return svg
  }

  /// The capture over the panel (relative to its centre) with the cells and
  /// the fit placements.
  static func capture(_ response: GridResponse, board: Board, placements: [(Double, Double)]) -> SVG {
    let plotW = 560.0
    let scale = plotW / board.width_mm
    let plotH = board.height_mm * scale
    let left = 20.0
    let top = 14.0
    var svg = SVG(width: left + plotW + 120, height: top + plotH + 44)
    var low = 1.0
    var high = 1.0
    let columns = 64
    let rows = max(1, Int((Double(columns) * board.height_mm / board.width_mm).rounded()))
    var values = [[Double]](repeating: [Double](repeating: 0, count: columns), count: rows)
    for j in 0..<rows {
      for i in 0..<columns {
        let v = response.capture((Double(i) + 0.5) * board.width_mm / Double(columns), (Double(j) + 0.5) * board.height_mm / Double(rows))
        values[j][i] = v
        low = min(low, v)
        high = max(high, v)
      }
    }
    // A scale that shows a few percent: at least 90 ... 102 %.
    low = min(floor(low * 50) / 50, 0.9)
    high = max(ceil(high * 50) / 50, 1.02)
    let cw = plotW / Double(columns)
    let ch = plotH / Double(rows)
    for j in 0..<rows {
      for i in 0..<columns {
        svg.rect(
          left + Double(i) * cw, top + Double(j) * ch, cw + 0.5, ch + 0.5,
          fill: SVG.sequential((values[j][i] - low) / (high - low)), extra: "shape-rendering=\"crispEdges\"")
      }
    }
    svg.rect(left, top, plotW, plotH, fill: "none", stroke: "#333")
    if let g = board.grid {
      for c in board.cells {
        let s = g.pitch_mm * scale
        svg.rect(left + c.x_mm * scale - s / 2, top + c.y_mm * scale - s / 2, s, s, fill: "none", stroke: "#ffffff", extra: "stroke-opacity=\"0.35\"")
      }
    }
    for (x, y) in placements {
      svg.circle(left + x * scale, top + y * scale, 2.6, fill: "#ffffff", stroke: "#222", width: 0.8)
    }
    svg.label(left, top + plotH + 16, "0", size: 10)
    svg.label(left + plotW, top + plotH + 16, "\(Format.short(board.width_mm)) mm", size: 10, anchor: .end)
    svg.label(left + plotW / 2, top + plotH + 32, "dots: the fit placements", size: 11, anchor: .middle)
    colourBar(&svg, x: left + plotW + 30, top: top, height: plotH, low: low, high: high, unit: "capture", percent: true) {
      SVG.sequential(($0 - low) / (high - low))
    }
    return svg
  }

  /// A plate's supports: each one's share of a press over the plate, as
  /// small maps (the support a ring), with the fit placements.
  static func shares(_ shares: [[Double]], board: Board, placements: [(Double, Double)]) -> SVG {
    let count = shares.count
    let perRow = count <= 4 ? 2 : 3
    let mapW = perRow == 2 ? 300.0 : 210.0
    let scale = mapW / board.width_mm
    let mapH = board.height_mm * scale
    let gap = 18.0
    let rowsOfMaps = (count + perRow - 1) / perRow
    let width = Double(perRow) * (mapW + gap) + 110
    var svg = SVG(width: width, height: Double(rowsOfMaps) * (mapH + 34) + 10)
    var low = 0.0
    var high = 0.0
    for s in shares {
      for (x, y) in [(0.0, 0.0), (board.width_mm, 0), (0, board.height_mm), (board.width_mm, board.height_mm)] {
        let v = s[0] + s[1] * x + s[2] * y
        low = min(low, v)
        high = max(high, v)
      }
    }
    high = max(high, 0.01)
    let columns = 40
    let rows = max(1, Int((Double(columns) * board.height_mm / board.width_mm).rounded()))
    for (k, s) in shares.enumerated() {
      let ox = 10 + Double(k % perRow) * (mapW + gap)
      let oy = 20 + Double(k / perRow) * (mapH + 34)
      for j in 0..<rows {
        for i in 0..<columns {
          let x = (Double(i) + 0.5) * board.width_mm / Double(columns)
          let y = (Double(j) + 0.5) * board.height_mm / Double(rows)
          let v = s[0] + s[1] * x + s[2] * y
          svg.rect(
            ox + Double(i) * mapW / Double(columns), oy + Double(j) * mapH / Double(rows), mapW / Double(columns) + 0.5,
            mapH / Double(rows) + 0.5, fill: SVG.sequential((v - low) / (high - low)), extra: "shape-rendering=\"crispEdges\"")
        }
      }
      svg.rect(ox, oy, mapW, mapH, fill: "none", stroke: "#333")
      for (x, y) in placements { svg.circle(ox + x * scale, oy + y * scale, 1.8, fill: "#ffffff", stroke: "#444", width: 0.5) }
      for (m, c) in board.cells.enumerated() {
        svg.circle(ox + c.x_mm * scale, oy + c.y_mm * scale, m == k ? 7 : 4, fill: m == k ? "#d73027" : "none", stroke: "#222", width: 1.2)
      }
      let centre = s[0] + s[1] * board.width_mm / 2 + s[2] * board.height_mm / 2
      svg.label(ox, oy - 6, "support \(k): \(Format.fixed(centre * 100, 1)) % of a press at the centre", size: 11)
    }
    colourBar(&svg, x: width - 90, top: 20, height: min(Double(rowsOfMaps) * (mapH + 34) - 40, 260), low: low, high: high, unit: "share", percent: true) {
      SVG.sequential(($0 - low) / (high - low))
    }
    return svg
  }

  static func colourBar(
    _ svg: inout SVG, x: Double, top: Double, height: Double, low: Double, high: Double, unit: String, percent: Bool,
    colour: (Double) -> String
  ) {
    let steps = 24
    for s in 0..<steps {
      let v = high - (high - low) * (Double(s) + 0.5) / Double(steps)
      svg.rect(x, top + Double(s) * height / Double(steps), 16, height / Double(steps) + 0.5, fill: colour(v))
    }
    svg.rect(x, top, 16, height, fill: "none", stroke: "#333")
    let ticks = SVG.ticks(low, high, count: 4)
    for t in ticks {
      let y = top + (high - t) / (high - low) * height
      svg.line(x + 16, y, x + 20, y, stroke: "#333")
      svg.label(x + 22, y + 4, percent ? SVG.tick(t * 100, ticks.map { $0 * 100 }) + " %" : SVG.tick(t, ticks), size: 10)
    }
    svg.label(x + 8, top + height + 16, unit, size: 10, anchor: .middle)
  }

  /// The segments of `level`'s contour through a raster (marching
  /// squares over pixel centres), in pixel units.
  static func contour(_ v: [[Double]], level: Double) -> [(Double, Double, Double, Double)] {
    var segments: [(Double, Double, Double, Double)] = []
    let rows = v.count
    guard rows > 1, let columns = v.first?.count, columns > 1 else { return [] }
    for j in 0..<(rows - 1) {
      for i in 0..<(columns - 1) {
        // Corners: (i, j), (i+1, j), (i+1, j+1), (i, j+1), at pixel centres.
        let c = [v[j][i], v[j][i + 1], v[j + 1][i + 1], v[j + 1][i]]
        let p = [(Double(i) + 0.5, Double(j) + 0.5), (Double(i) + 1.5, Double(j) + 0.5), (Double(i) + 1.5, Double(j) + 1.5), (Double(i) + 0.5, Double(j) + 1.5)]
        var crossings: [(Double, Double)] = []
        for e in 0..<4 {
          let a = c[e]
          let b = c[(e + 1) % 4]
          if (a < level) != (b < level) {
            let t = (level - a) / (b - a)
            crossings.append((p[e].0 + t * (p[(e + 1) % 4].0 - p[e].0), p[e].1 + t * (p[(e + 1) % 4].1 - p[e].1)))
          }
        }
        if crossings.count == 2 {
          segments.append((crossings[0].0, crossings[0].1, crossings[1].0, crossings[1].1))
        } else if crossings.count == 4 {
          segments.append((crossings[0].0, crossings[0].1, crossings[1].0, crossings[1].1))
          segments.append((crossings[2].0, crossings[2].1, crossings[3].0, crossings[3].1))
        }
      }
    }
    return segments
  }
}

extension SVG {
  /// A sequential colour (viridis) for `fraction` in 0 ... 1.
  static func sequential(_ fraction: Double) -> String {
    let f = max(0, min(1, fraction.isFinite ? fraction : 0))
    let stops: [(Double, Double, Double)] = [
      (68, 1, 84), (72, 40, 120), (62, 74, 137), (49, 104, 142), (38, 130, 142), (31, 158, 137), (53, 183, 121),
      (110, 206, 88), (181, 222, 43), (253, 231, 37),
    ]
    let x = f * Double(stops.count - 1)
    let i = min(Int(x), stops.count - 2)
    let t = x - Double(i)
    let a = stops[i]
    let b = stops[i + 1]
    return rgb(Int((a.0 + (b.0 - a.0) * t).rounded()), Int((a.1 + (b.1 - a.1) * t).rounded()), Int((a.2 + (b.2 - a.2) * t).rounded()))
  }
}
