import PanelFormats
import PanelMechanics

/// The certificate's plots, each an `SVG` value: the error across the
/// panel, the cells' linearity, their noise, the spreading profile and the
/// hold's creep (the learnt response's: `ResponsePlots`).
extension Certificate {
  /// The panel with the interpolated force error, verification positions and position-error arrows.
  static func errorMap(_ r: CalibrationResult) -> SVG {
    let b = r.board
    let limit = r.session.limits.forceError_pct
    let plotW = 640.0
    let scale = plotW / b.width_mm
    let plotH = b.height_mm * scale
    let left = 20.0
    let top = 20.0
    var svg = SVG(width: left + plotW + 110, height: top + plotH + 40)
    // The worst error per position.
    var points: [(x: Double, y: Double, error: Double, mx: Double, my: Double)] = []
    let results = r.accuracy.results
    for p in results {
      let e = p.step.force_n >= r.session.limits.forceFloor_n ? abs(p.forceError_pct) : abs(p.forceError_n) / r.session.limits.forceError_n * limit
      if let i = points.firstIndex(where: { abs($0.x - p.step.x_mm) < 1e-6 && abs($0.y - p.step.y_mm) < 1e-6 }) {
        if e > points[i].error { points[i].error = e }
      } else {
        points.append((p.step.x_mm, p.step.y_mm, e, p.x_mm, p.y_mm))
      }
    }
    // Background: inverse-distance interpolation on a raster.
    let columns = 48
    let rows = max(1, Int((Double(columns) * b.height_mm / b.width_mm).rounded()))
    let cw = plotW / Double(columns)
    let ch = plotH / Double(rows)
    for j in 0..<rows {
      for i in 0..<columns {
        let x = (Double(i) + 0.5) * b.width_mm / Double(columns)
        let y = (Double(j) + 0.5) * b.height_mm / Double(rows)
        var sw = 0.0
        var sv = 0.0
        for p in points {
          let d2 = (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y) + 1
          sw += 1 / d2
          sv += p.error / d2
        }
        let v = sw > 0 ? sv / sw : 0
        svg.rect(
          left + Double(i) * cw, top + Double(j) * ch, cw + 0.6, ch + 0.6, fill: SVG.heat(v / limit, light: 0.45),
          extra: "shape-rendering=\"crispEdges\"")
      }
    }
    svg.rect(left, top, plotW, plotH, fill: "none", stroke: "#333")
    // Cells.
    for c in b.cells {
      let x = left + c.x_mm * scale
      let y = top + c.y_mm * scale
      if let g = b.grid {
        let s = g.pitch_mm * scale * 0.5
        svg.rect(x - s / 2, y - s / 2, s, s, fill: "none", stroke: "#777", extra: "stroke-opacity=\"0.6\"")
      } else {
        svg.rect(x - 7, y - 7, 14, 14, fill: "#888", stroke: "#333")
      }
    }
    // Arrows magnified so the largest is about 40 px.
    let worst = results.map(\.positionError_mm).max() ?? 0
    var magnify = 1.0
    if worst > 0 {
      let raw = 40 / (worst * scale)
      for m in [1.0, 2, 5, 10, 20, 50, 100, 200, 500, 1000] where m <= raw { magnify = m }
    }
    for p in points {
      let x = left + p.x * scale
      let y = top + p.y * scale
      svg.arrow(x, y, x + (p.mx - p.x) * scale * magnify, y + (p.my - p.y) * scale * magnify, stroke: "#1f3a93")
      svg.circle(x, y, 6, fill: SVG.heat(p.error / limit), stroke: "#222")
    }
    svg.label(left, top + plotH + 16, "0", size: 10)
    svg.label(left + plotW, top + plotH + 16, "\(Format.short(b.width_mm)) mm", size: 10, anchor: .end)
    svg.label(left + plotW / 2, top + plotH + 32, "position arrows × \(Format.fixed(magnify, 0)) (worst \(Format.short(worst)) mm)", size: 11, anchor: .middle)
    // Colour bar.
    let barX = left + plotW + 30
    let steps = 20
    for s in 0..<steps {
      let f = 1 - Double(s) / Double(steps)
      svg.rect(barX, top + Double(s) * plotH / Double(steps), 16, plotH / Double(steps) + 0.5, fill: SVG.heat(f))
    }
    svg.rect(barX, top, 16, plotH, fill: "none", stroke: "#333")
    svg.label(barX + 22, top + 8, "\(Format.short(limit)) %", size: 10)
    svg.label(barX + 22, top + plotH / 2 + 4, "\(Format.short(limit / 2)) %", size: 10)
    svg.label(barX + 22, top + plotH, "0 %", size: 10)
    svg.label(barX + 8, top - 6, "force error", size: 10, anchor: .middle)
    return svg
  }

  /// Small multiples of each cell's residuals, placed as the cells are.
  static func linearityPlots(_ r: CalibrationResult) -> SVG {
    let b = r.board
    let cols: Int
    let rows: Int
    var slot: [(Int, Int)] = []
    if let g = b.grid {
      cols = g.columns
      rows = g.rows
      slot = (0..<b.cellCount).map { ($0 % g.columns, $0 / g.columns) }
    } else {
      // Supports: place each in a 2 x 2 (or wider) layout by position.
      let midX = b.width_mm / 2
      let midY = b.height_mm / 2
      if b.cellCount == 4 {
        cols = 2
        rows = 2
        slot = b.cells.map { ($0.x_mm > midX ? 1 : 0, $0.y_mm > midY ? 1 : 0) }
        if Set(slot.map { $0.0 * 2 + $0.1 }).count != 4 { slot = (0..<4).map { ($0 % 2, $0 / 2) } }
      } else {
        cols = min(4, b.cellCount)
        rows = (b.cellCount + cols - 1) / cols
        slot = (0..<b.cellCount).map { ($0 % cols, $0 / cols) }
      }
    }
    let total = 900.0
    let w = total / Double(cols)
    let h = b.grid == nil ? 200.0 : max(70, w * 0.8)
    var svg = SVG(width: total, height: Double(rows) * h + 4)
    let compact = b.grid != nil
    let range = linearityRange(r)
    for (k, c) in r.cells.enumerated() {
      let x0 = Double(slot[k].0) * w
      let y0 = Double(slot[k].1) * h
      let padL = compact ? 6.0 : 52
      let padB = compact ? 14.0 : 30
      let padT = compact ? 13.0 : 20
      let pw = w - padL - 8
      let ph = h - padB - padT
      let px = x0 + padL
      let py = y0 + padT
      svg.rect(px, py, pw, ph, fill: c.responds ? "#fafafa" : "#fdecea", stroke: "#bbb")
      let title = compact ? "\(k) NL \(Format.fixed(c.nonlinearity_pct, 2))%" : "cell \(k)   NL \(Format.short(c.nonlinearity_pct)) %   full scale \(Format.short(c.fullScale_n)) N"
      svg.label(px + 2, py - 3, title, size: compact ? 9 : 11, bold: !compact)
      guard !c.points.isEmpty, c.fullScale_n > 0 else {
        svg.label(px + pw / 2, py + ph / 2, c.responds ? "no data" : "no response", size: 10, anchor: .middle, fill: "#c0271d")
        continue
      }
      let loads = c.points.map(\.load_n)
      let lo = min(0, loads.min()!)
      let hi = max(loads.max()!, lo + 1e-3)
      func X(_ v: Double) -> Double { px + (v - lo) / (hi - lo) * pw }
      func Y(_ v: Double) -> Double { py + ph / 2 - max(-range, min(range, v)) / range * ph / 2 }
      func percent(_ v: Double) -> Double { v / c.fullScale_n * 100 }
      svg.line(px, Y(0), px + pw, Y(0), stroke: "#999", width: 0.8)
      for p in c.points {
        let e = percent(p.linear_n - p.load_n)
        svg.circle(X(p.load_n), Y(e), abs(e) > range ? 1.2 : (compact ? 1.6 : 2.6), fill: "none", stroke: "#999")
      }
      for p in c.points { svg.circle(X(p.load_n), Y(percent(p.force_n - p.load_n)), compact ? 1.6 : 2.6, fill: "#1f5fbf") }
      if !compact {
        let xt = SVG.ticks(lo, hi, count: 4)
        for t in xt {
          svg.line(X(t), py + ph, X(t), py + ph + 3, stroke: "#666")
          svg.label(X(t), py + ph + 14, SVG.tick(t, xt), size: 9, anchor: .middle, fill: "#555")
        }
        svg.label(px + pw / 2, py + ph + 26, "load on the cell (N)", size: 10, anchor: .middle, fill: "#555")
        let yt = SVG.ticks(-range, range, count: 4)
        for t in yt {
          svg.line(px - 3, Y(t), px, Y(t), stroke: "#666")
          svg.label(px - 5, Y(t) + 3, SVG.tick(t, yt), size: 9, anchor: .end, fill: "#555")
        }
        svg.label(x0 + 12, py + ph / 2, "error (% FS)", size: 10, anchor: .middle, fill: "#555", rotate: -90)
      }
    }
    return svg
  }

  /// The common error scale of the linearity plots, % of each cell's full
  /// scale: the non-linearity limit, or more when a residual needs it.
  static func linearityRange(_ r: CalibrationResult) -> Double {
    var worst = r.session.limits.nonlinearity_pct
    for c in r.cells where c.fullScale_n > 0 {
      for p in c.points { worst = max(worst, abs(p.force_n - p.load_n) / c.fullScale_n * 100 * 1.1) }
    }
    for nice in [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100] where nice >= worst { return nice }
    return worst
  }

  /// Noise per cell, mN, with the limit.
  static func noisePlot(_ r: CalibrationResult) -> SVG {
    let limit = r.session.limits.noiseLimit(board: r.board) * 1000
    let values = r.cells.map { $0.noise_n.isFinite ? $0.noise_n * 1000 : 0 }
    let top = max(limit * 1.15, (values.max() ?? 0) * 1.1)
    let left = 50.0
    let plotW = 840.0
    let plotH = 160.0
    var svg = SVG(width: left + plotW + 20, height: plotH + 50)
    let slot = plotW / Double(max(values.count, 1))
    func Y(_ v: Double) -> Double { 10 + plotH - v / top * plotH }
    for t in SVG.ticks(0, top, count: 4) {
      svg.line(left, Y(t), left + plotW, Y(t), stroke: "#eee")
      svg.label(left - 6, Y(t) + 3, SVG.tick(t, SVG.ticks(0, top, count: 4)), size: 9, anchor: .end, fill: "#555")
    }
    for (k, v) in values.enumerated() {
      let x = left + Double(k) * slot
      svg.rect(x + slot * 0.15, Y(v), slot * 0.7, Y(0) - Y(v), fill: v <= limit && r.cells[k].responds ? "#4a7bd0" : "#d73027")
      if values.count <= 16 || k % 4 == 0 {
        svg.label(x + slot / 2, 10 + plotH + 14, "\(k)", size: 9, anchor: .middle, fill: "#555")
      }
    }
    svg.line(left, Y(limit), left + plotW, Y(limit), stroke: "#d73027", width: 1.2, dash: "5,4")
    svg.line(left, Y(0), left + plotW, Y(0), stroke: "#333")
    svg.label(left + plotW / 2, 10 + plotH + 32, "cell", size: 10, anchor: .middle, fill: "#555")
    svg.label(14, 10 + plotH / 2, "noise (mN)", size: 10, anchor: .middle, fill: "#555", rotate: -90)
    return svg
  }

  /// The spreading profile g(r), r in pitches.
  static func spreadPlot(_ p: SpreadProfile, learnt: Bool) -> SVG {
    let left = 50.0
    let plotW = 560.0
    let plotH = 160.0
    var svg = SVG(width: left + plotW + 20, height: plotH + 50)
    let reach = Double(max(p.reach, 1))
    func X(_ r: Double) -> Double { left + r / reach * plotW }
    func Y(_ g: Double) -> Double { 10 + plotH - max(0, min(1, g)) * plotH }
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
      svg.line(left, Y(t), left + plotW, Y(t), stroke: "#eee")
      svg.label(left - 6, Y(t) + 3, Format.fixed(t, 2), size: 9, anchor: .end, fill: "#555")
    }
    for k in 0...p.reach {
      svg.line(X(Double(k)), 10, X(Double(k)), 10 + plotH, stroke: "#eee")
      svg.label(X(Double(k)), 10 + plotH + 14, "\(k)", size: 9, anchor: .middle, fill: "#555")
    }
    let points = p.values.indices.map { i in (X(Double(i) / Double(SpreadProfile.knotsPerPitch)), Y(p.values[i])) }
    svg.polyline(points, stroke: learnt ? "#4a7bd0" : "#888")
    for (x, y) in points { svg.circle(x, y, 2.5, fill: learnt ? "#4a7bd0" : "#888") }
    svg.line(left, Y(0), left + plotW, Y(0), stroke: "#333")
    svg.label(left + plotW / 2, 10 + plotH + 32, "distance from the press (pitches)", size: 10, anchor: .middle, fill: "#555")
    svg.label(14, 10 + plotH / 2, "share g(r)", size: 10, anchor: .middle, fill: "#555", rotate: -90)
    return svg
  }

  /// The hold's total force over time, % of the load from the first reading.
  static func creepPlot(_ c: CreepReport) -> SVG {
    let left = 60.0
    let plotW = 560.0
    let plotH = 150.0
    var svg = SVG(width: left + plotW + 20, height: plotH + 50)
    guard let first = c.series.first, c.series.count > 1 else { return svg }
    let load = c.step.force_n
    let values = c.series.map { (t: $0.t_s, v: ($0.force_n - first.force_n) / load * 100) }
    let tMax = max(values.last!.t, 1e-3)
    var lo = min(0, values.map(\.v).min()!)
    var hi = max(values.map(\.v).max()!, 0.01)
    let pad = (hi - lo) * 0.1
    lo -= pad
    hi += pad
    func X(_ t: Double) -> Double { left + t / tMax * plotW }
    func Y(_ v: Double) -> Double { 10 + plotH - (v - lo) / (hi - lo) * plotH }
    let yt = SVG.ticks(lo, hi, count: 4)
    for t in yt {
      svg.line(left, Y(t), left + plotW, Y(t), stroke: "#eee")
      svg.label(left - 6, Y(t) + 3, SVG.tick(t, yt), size: 9, anchor: .end, fill: "#555")
    }
    let xt = SVG.ticks(0, tMax, count: 5)
    for t in xt {
      svg.label(X(t), 10 + plotH + 14, SVG.tick(t, xt), size: 9, anchor: .middle, fill: "#555")
    }
    svg.rect(left, 10, plotW, plotH, fill: "none", stroke: "#bbb")
    svg.polyline(values.map { (X($0.t), Y($0.v)) }, stroke: "#1f5fbf")
    for v in values { svg.circle(X(v.t), Y(v.v), 2, fill: "#1f5fbf") }
    svg.label(left + plotW / 2, 10 + plotH + 32, "time (s)", size: 10, anchor: .middle, fill: "#555")
    svg.label(16, 10 + plotH / 2, "change (%)", size: 10, anchor: .middle, fill: "#555", rotate: -90)
    return svg
  }
}
