import PanelFormats
import PanelMechanics

#if canImport(Glibc)
  import Glibc
#endif

/// The calibration certificate: one self-contained HTML page (inline CSS
/// and SVG, no scripts, nothing fetched) with the result, the accuracy
/// against the single-point method, the pass/fail table, per-cell
/// linearity and residuals, a map of the verification error across the
/// panel, noise per cell, creep and the parameters; and a JSON summary
/// (`json(_:)`).
public enum Certificate {
  public static func html(_ r: CalibrationResult) -> String {
    let limits = r.session.limits
    let passed = r.passed
    var h = """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <title>Calibration certificate \(HTML.escape(r.record.serial))</title>
      <style>
      body { font-family: Helvetica, Arial, sans-serif; color: #222; margin: 24px auto; max-width: 940px; padding: 0 16px; }
      h1 { font-size: 24px; margin: 0 0 4px 0; } h2 { font-size: 17px; margin: 28px 0 8px 0; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
      .sub { color: #555; font-size: 13px; }
      .head { display: flex; justify-content: space-between; align-items: flex-start; }
      .badge { font-size: 28px; font-weight: bold; color: white; padding: 10px 22px; border-radius: 6px; }
      .pass { background: #1a9850; } .fail { background: #d73027; }
      table { border-collapse: collapse; font-size: 13px; margin: 6px 0; }
      th, td { border-bottom: 1px solid #e2e2e2; padding: 4px 10px; text-align: left; }
      th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
      td.ok { color: #1a7a40; font-weight: bold; } td.bad { color: #c0271d; font-weight: bold; }
      tr.failed td { background: #fdecea; }
      .meta td { border: none; padding: 2px 14px 2px 0; }
      .note { color: #555; font-size: 12px; max-width: 900px; }
      figure { margin: 8px 0 16px 0; } figcaption { font-size: 12px; color: #555; margin-top: 4px; max-width: 900px; }
      </style></head><body>

      """
    h += "<div class=\"head\"><div><h1>Calibration certificate</h1>"
    h += "<div class=\"sub\">\(HTML.escape(r.board.description))</div>\n"
    h += "<table class=\"meta\">"
    h += row(["Board", r.board.name]) + row(["Serial", r.record.serial]) + row(["Plan", r.record.plan])
    h += row(["Date", r.record.created])
    h += row(["Temperature", "\(Format.fixed(r.temperatures.low, 1)) to \(Format.fixed(r.temperatures.high, 1)) °C (reference \(Format.fixed(r.record.referenceTemperature_c, 1)) °C)"])
    h += row(["Fit", fitText(r)])
    if let stored = r.storage { h += row(["Panel", stored]) }
    h += "</table></div>"
    h += "<div class=\"badge \(passed ? "pass" : "fail")\">\(passed ? "PASS" : "FAIL")</div></div>\n"

    // Accuracy against the single-point method.
    let (results, method) = r.accuracy
    h += "<h2>\(accuracyTitle(r))</h2>\n"
    h += "<table><tr><th>Calibration</th><th>Worst force error ≥ \(Format.short(limits.forceFloor_n)) N</th><th>Worst force error below</th><th>Position error RMS</th><th>Worst position error</th></tr>\n"
    let fitName = "\(r.fit.model == .rigidPlate ? "rigid-plate statics" : "grid spreading") fit, linearity"
    switch method {
    case .verification:
      h += accuracyRow("This calibration (\(fitName))", AccuracySummary(results, floor_n: limits.forceFloor_n))
    case .crossValidation(let folds):
      h += accuracyRow(
        "This calibration (\(fitName)), cross-validated: \(folds) folds over \(results.count) fit placements",
        AccuracySummary(results, floor_n: limits.forceFloor_n))
    case .notMeasured:
      h += notMeasuredRow("This calibration (\(fitName))", why: "no verification placements, too few positions to cross-validate")
    }
    if method != .notMeasured {
      // The outer band (the outer tenth of the panel on each side) and the
      // rest, apart: where icons and toolbars sit is measured on its own.
      let band = results.filter { Certificate.inOuterBand($0.step.x_mm, $0.step.y_mm, board: r.board) }
      let inner = results.filter { !Certificate.inOuterBand($0.step.x_mm, $0.step.y_mm, board: r.board) }
      if !band.isEmpty && !inner.isEmpty {
        h += accuracyRow("… in the outer band (\(band.count) placements)", AccuracySummary(band, floor_n: limits.forceFloor_n))
        h += accuracyRow("… inside it (\(inner.count) placements)", AccuracySummary(inner, floor_n: limits.forceFloor_n))
      }
    }
    if let single = r.singlePoint, !single.isEmpty {
      h += accuracyRow("Single point: \(r.singlePointNote)", AccuracySummary(single, floor_n: limits.forceFloor_n))
    } else if r.singlePoint != nil {
      h += notMeasuredRow("Single point: \(r.singlePointNote)", why: "measured on verification placements only")
    }
    h += "<tr><td>Limits</td><td class=\"num\">\(Format.short(limits.forceError_pct)) %</td><td class=\"num\">\(Format.short(limits.forceError_n)) N</td><td class=\"num\">\(Format.short(limits.positionRMS_mm)) mm</td><td class=\"num\">\(Format.short(limits.positionMax_mm)) mm</td></tr>"
    h += "</table>\n"
    switch method {
    case .verification: break
    case .crossValidation:
      h += "<p class=\"note\">The session has no verification placements: these figures are a cross-validation estimate. "
      h += "The fit placements' positions were dealt into folds; each fold was measured through the pipeline with a calibration fitted without it. "
      h += "They are not checked against the limits; a session with verification placements measures the calibration itself.</p>\n"
    case .notMeasured:
      h += "<p class=\"note\">Accuracy not measured: the session has no verification placements.</p>\n"
    }
    if r.singlePoint == nil { h += "<p class=\"note\">Single-point comparison not available: \(HTML.escape(r.singlePointNote)).</p>\n" }

    // Checks.
    h += "<h2>Checks</h2>\n<table><tr><th>Check</th><th>Subject</th><th>Value</th><th>Limit</th><th>Result</th><th>Note</th></tr>\n"
    for c in r.checks {
      h += "<tr\(c.passed ? "" : " class=\"failed\"")><td>\(HTML.escape(c.name))</td><td>\(HTML.escape(c.subject))</td>"
      h += "<td class=\"num\">\(Format.short(c.value)) \(HTML.escape(c.unit))</td><td class=\"num\">\(Format.short(c.limit)) \(HTML.escape(c.unit))</td>"
      h += "<td class=\"\(c.passed ? "ok" : "bad")\">\(c.passed ? "pass" : "FAIL")</td><td class=\"note\">\(HTML.escape(c.note))</td></tr>\n"
    }
    for (name, why) in r.checksNotRun {
      h += "<tr><td>\(HTML.escape(name))</td><td>–</td><td>–</td><td>–</td><td>not run</td><td class=\"note\">\(HTML.escape(why))</td></tr>\n"
    }
    h += "</table>\n<p class=\"note\">A check that passes shows its worst subject; one that fails lists every failing subject.</p>\n"

    h += "<h2>\(method == .verification ? "Verification error" : method == .notMeasured ? "Error" : "Cross-validated error") across the panel</h2>\n"
    if method == .notMeasured {
      h += "<p class=\"note\">Not measured: the session has no verification placements.</p>\n"
    } else {
    h += "<figure>" + errorMap(r) + "<figcaption>"
    h += method == .verification ? "" : "Cross-validated: each position measured with a calibration fitted without it. "
    h += "Colour: force error of each \(method == .verification ? "verification" : "fit") position (the worse of its loads) in % of reading, interpolated between positions; "
    h += "0 is green, the limit (\(Format.short(limits.forceError_pct)) %) red. Arrows: position error from the true to the reported position, magnified as marked. Grey: the cells.</figcaption></figure>\n"
    }

    h += "<h2>Linearity and residuals per cell</h2>\n<figure>" + linearityPlots(r) + "<figcaption>"
    h += "Each cell, placed as on the panel: error of the cell's force against its modelled load (\(r.fit.model == .rigidPlate ? "the share a rigid plate gives it" : "its share of the spreading")), "
    h += "in % of the cell's full scale (common scale ±\(Format.short(linearityRange(r))) %), for every fit placement that loaded it. Blue: this calibration. "
    h += "Grey: the same gain without the linearity correction (clipped at the edge when beyond the scale). NL: terminal non-linearity over the cell's range.</figcaption></figure>\n"

    if let profile = r.fit.profile {
      h += "<h2>Spreading</h2>\n<figure>" + spreadPlot(profile, learnt: r.fit.learnt) + "<figcaption>"
      h += "How the overlay shares a press among the cells: a cell's share against its distance from the press, "
      h += r.fit.learnt ? "learnt from the fit placements (no family assumed)" : "the Boussinesq model fitted by its depth"
      if let c = r.record.contact {
        h += "; a contact sums the cells within \(c.radius) of its peak, scaled by \(Format.fixed(c.captureScale, 3))"
      }
      h += ". Residual of the fit: \(Format.short(r.record.fit?.residual_pct ?? 0)) % RMS.</figcaption></figure>\n"
    }
    if let response = r.fit.response {
      let placements = r.steps.filter { $0.step.role == .fit && $0.step.isLoaded }.map { ($0.step.x_mm, $0.step.y_mm) }
      h += "<h2>Learnt response</h2>\n<figure>" + ResponsePlots.kernel(response) + "<figcaption>"
      h += "What a cell carries of a press at each offset from its centre (relative to a press on it), learnt from the fit placements in two dimensions "
      h += "(no radial symmetry assumed); contours at 50, 20, 5 and 1 %; dashed: the cells' outlines.</figcaption></figure>\n"
      h += "<figure>" + ResponsePlots.capture(response, board: r.board, placements: placements) + "<figcaption>"
      h += "The capture: the share of a press the cells carry, relative to a press at the panel's centre (a frame or bezel bears the rest). "
      h += "Dots: the fit placements. Residual of the fit with this response: \(Format.short(r.record.fit?.residual_pct ?? 0)) % RMS.</figcaption></figure>\n"
    }
    h += "<h2>Noise per cell</h2>\n<figure>" + noisePlot(r) + "<figcaption>"
    h += "One standard deviation of each cell at the tare, in millinewtons; dashed: the limit (\(Format.short(limits.noiseLimit(board: r.board) * 1000)) mN).</figcaption></figure>\n"

    if let c = r.creep {
      h += "<h2>Creep</h2>\n<figure>" + creepPlot(c) + "<figcaption>"
      h += "Total force during the \(Format.short(c.duration_s)) s hold of \(HTML.escape(c.step.name)) (\(Format.short(c.step.load_g)) g), in % of the load from its first reading; "
      h += "change \(Format.short(c.measured_pct)) %, exponential fit τ = \(Format.short(c.tau_s)) s, extrapolated to 30 minutes \(Format.short(c.extrapolated_pct)) % (limit \(Format.short(limits.creep_pct)) %).</figcaption></figure>\n"
    }

    h += "<h2>Parameters</h2>\n<table><tr><th>Cell</th><th>Offset (counts)</th><th>Gain (counts/N)</th><th>Linearity (1/N)</th><th>TC zero (counts/°C)</th><th>TC span (1/°C)</th><th>Noise (counts)</th><th>Full scale (N)</th><th>NL (%)</th><th>Hysteresis (%)</th><th>Zero return (%)</th></tr>\n"
    let (tcZero, tcSpan) = r.measuredTemperatureCoefficients
    for (k, c) in r.cells.enumerated() {
      let p = r.record.cells[k]
      h += "<tr\(c.responds ? "" : " class=\"failed\"")><td>\(k)</td><td class=\"num\">\(Format.fixed(p.offset_counts, 0))</td><td class=\"num\">\(Format.fixed(p.gain_counts_per_n, 0))</td>"
      h += "<td class=\"num\">\(sci(p.linearity_per_n))</td><td class=\"num\">\(tcZero ? Format.short(p.tcZero_counts_per_c) : "–")</td><td class=\"num\">\(tcSpan ? sci(p.tcSpan_per_c) : "–")</td>"
      h += "<td class=\"num\">\(Format.short(c.noise_counts))</td><td class=\"num\">\(Format.short(c.fullScale_n))</td><td class=\"num\">\(Format.short(c.nonlinearity_pct))</td>"
      h += "<td class=\"num\">\(c.hysteresis_pct.map(Format.short) ?? "–")</td><td class=\"num\">\(c.zeroReturn_pct.map(Format.short) ?? "–")</td></tr>\n"
    }
    h += "</table>\n"
    if !tcZero || !tcSpan {
      h += "<p class=\"note\">–: not measured: \([!tcZero ? "the zero's temperature coefficient (tares within 1 °C of each other)" : nil, !tcSpan ? "the span's (fit placements within 2 °C)" : nil].compactMap { $0 }.joined(separator: "; ")); the record applies none.</p>\n"
    }
    let rejected = r.steps.filter { !$0.used }
    if !rejected.isEmpty {
      h += "<p class=\"note\">Left out of the fit: " + rejected.map { HTML.escape($0.step.name) }.joined(separator: ", ") + ".</p>\n"
    }
    let text = r.record.encoded()
    let crc = text.split(separator: "\n").last { $0.hasPrefix("crc32") }.map(String.init) ?? ""
    h += "<p class=\"note\">Record \(HTML.escape(r.board.name)) / \(HTML.escape(r.record.serial)), \(HTML.escape(crc)). Session: \(r.session.steps.count) steps. Standard gravity 9.80665 m/s².</p>\n"
    h += "</body></html>\n"
    return h
  }

  /// Whether (`x`, `y`) mm is in the panel's outer band: within a tenth of
  /// its width (or height) of an edge.
  static func inOuterBand(_ x: Double, _ y: Double, board: Board) -> Bool {
    let bx = board.width_mm / 10
    let by = board.height_mm / 10
    return x < bx || x > board.width_mm - bx || y < by || y > board.height_mm - by
  }

  static func row(_ cells: [String]) -> String {
    "<tr>" + cells.enumerated().map { $0.offset == 0 ? "<td><b>\(HTML.escape($0.element))</b></td>" : "<td>\(HTML.escape($0.element))</td>" }.joined() + "</tr>"
  }

  static func fitText(_ r: CalibrationResult) -> String {
    var s = r.fit.model == .rigidPlate ? "rigid-plate statics" : "grid spreading"
    if let k = r.record.fit?.kernel {
      s += k == "profile" ? ", a radial profile learnt from the placements" : ", the Boussinesq model (too few placements to learn a profile)"
    }
    if let d = r.fit.spread_mm { s += " (layer \(Format.short(d)) mm)" }
    if let f = r.record.fit { s += ", \(f.placements) placements, residual \(Format.short(f.residual_pct)) % RMS" }
    return s
  }

  static func accuracyTitle(_ r: CalibrationResult) -> String {
    switch r.accuracy.method {
    case .verification: return "Accuracy on the verification placements"
    case .crossValidation: return "Accuracy, cross-validated over the fit placements"
    case .notMeasured: return "Accuracy"
    }
  }

  static func notMeasuredRow(_ name: String, why: String) -> String {
    "<tr><td>\(HTML.escape(name))</td><td colspan=\"4\" class=\"note\">– not measured: \(HTML.escape(why))</td></tr>\n"
  }

  static func accuracyRow(_ name: String, _ a: AccuracySummary) -> String {
    "<tr><td>\(HTML.escape(name))</td><td class=\"num\">\(Format.short(a.worstForce_pct)) %</td><td class=\"num\">\(a.worstForceBelowFloor_n.map { Format.short($0) + " N" } ?? "–")</td><td class=\"num\">\(Format.short(a.positionRMS_mm)) mm</td><td class=\"num\">\(Format.short(a.positionMax_mm)) mm</td></tr>\n"
  }

  static func sci(_ v: Double) -> String {
    guard v != 0, v.isFinite else { return "0" }
    var e = 0
    var m = v
    while abs(m) >= 10 {
      m /= 10
      e += 1
    }
    while abs(m) < 1 {
      m *= 10
      e -= 1
    }
    return "\(Format.fixed(m, 2))e\(e)"
  }

  // MARK: Plots

  /// The panel with the interpolated force error, verification positions and position-error arrows.
  static func errorMap(_ r: CalibrationResult) -> String {
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
    return svg.text
  }

  /// Small multiples of each cell's residuals, placed as the cells are.
  static func linearityPlots(_ r: CalibrationResult) -> String {
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
    return svg.text
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
  static func noisePlot(_ r: CalibrationResult) -> String {
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
    return svg.text
  }

  /// The spreading profile g(r), r in pitches.
  static func spreadPlot(_ p: SpreadProfile, learnt: Bool) -> String {
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
    return svg.text
  }

  /// The hold's total force over time, % of the load from the first reading.
  static func creepPlot(_ c: CreepReport) -> String {
    let left = 60.0
    let plotW = 560.0
    let plotH = 150.0
    var svg = SVG(width: left + plotW + 20, height: plotH + 50)
    guard let first = c.series.first, c.series.count > 1 else { return svg.text }
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
    return svg.text
  }
}
