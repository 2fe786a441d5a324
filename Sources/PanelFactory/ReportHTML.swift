import PanelCalibration
import PanelFirmware

/// The report as one self-contained HTML page: inline SVG charts, no
/// scripts, no outside files.
public enum ReportHTML {
  public static func page(_ r: FactoryReport) -> String {
    let flags = r.flags
    var h = """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <title>Factory report</title>
      <style>
      body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1400px}
      h1{margin-bottom:0}h2{margin-top:32px;border-bottom:1px solid #ccc}
      .sub{color:#666;margin-bottom:16px}
      table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:right}
      th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
      .flag{color:#b00;font-weight:bold}.ok{color:#070}
      .charts{display:flex;flex-wrap:wrap;gap:8px}.chart{border:1px solid #ddd;padding:4px}
      .signalled{border-color:#d33;box-shadow:0 0 0 2px #fbb}
      </style></head><body>
      <h1>Factory report</h1>

      """
    h += "<div class=\"sub\">\(HTML.escape(r.selection)): \(r.calibrations) calibrations, \(HTML.escape(r.first)) to \(HTML.escape(r.last)); "
    h += "subgroups of \(r.subgroupSize) consecutive calibrations a station; limits from each chart's first subgroups</div>\n"

    // Where the rules fired, strongest first, with those charts: what needs attention.
    h += "<h2 id=\"signals\">Signals (\(flags.count))</h2>\n"
    if flags.isEmpty {
      h += "<p class=\"ok\">No run rule fired: every station and lot is in control.</p>\n"
    } else {
      let places = FactoryReport.Place.of(flags)
      h += "<p>By place and figure, the places with most points beyond 3σ first; every signal is listed <a href=\"#all-signals\">at the end</a>.</p>\n"
      h += "<table><tr><th>Where</th><th>Board</th><th>Figure</th><th>Signals</th><th>Beyond 3σ</th><th>From</th><th>To</th><th>Largest z</th><th>Lots most in them</th></tr>\n"
      for p in places.prefix(16) {
        h += "<tr><td class=\"flag\">\(p.kind) \(HTML.escape(p.subject))</td><td>\(HTML.escape(p.board))</td><td>\(p.metric.rawValue)</td>"
        h += "<td>\(p.signals)</td><td>\(p.beyond3Sigma)</td><td>\(HTML.escape(String(p.from.prefix(16))))</td><td>\(HTML.escape(String(p.to.prefix(16))))</td>"
        h += "<td>\(Format.fixed(p.largestZ, 1))</td><td>\(HTML.escape(p.lots.prefix(3).joined(separator: ", ")))</td></tr>\n"
      }
      h += "</table>\n<div class=\"charts\">\n"
      for l in r.lotCharts where !l.signals.isEmpty { h += lotChart(l) }
      for p in places.filter({ $0.kind == "station" }).prefix(4) {
        if let c = r.charts.first(where: { $0.board == p.board && $0.station == p.subject && $0.metric == p.metric }) {
          h += chartBox(c, signalled: true)
        }
      }
      h += "</div>\n"
    }

    h += "<h2 id=\"yield\">Yield</h2>\n"
    h += "<p>First-pass yield: first attempts that passed, of first attempts. Final yield: panels whose last calibration passed, of panels.</p>\n"
    h += yieldChart(r.yieldByDay)
    for (title, rows) in [("station", r.yieldByStation), ("plan", r.yieldByPlan), ("day", r.yieldByDay)] {
      h += "<h3>By \(title)</h3>\n" + yieldTable(title, rows)
    }

    h += "<h2 id=\"pareto\">Failures by check (Pareto)</h2>\n"
    if r.pareto.isEmpty {
      h += "<p class=\"ok\">No failed calibration.</p>\n"
    } else {
      h += paretoChart(r.pareto)
      h += "<table><tr><th>First failed check</th><th>Failures</th><th>Cumulative</th></tr>\n"
      for p in r.pareto {
        h += "<tr><td>\(HTML.escape(p.check))</td><td>\(p.count)</td><td>\(Format.fixed(p.cumulative * 100, 1)) %</td></tr>\n"
      }
      h += "</table>\n"
    }

    h += "<h2 id=\"lots\">Cell lots</h2>\n"
    if r.lots.isEmpty {
      h += "<p>No calibration names its cell lot (calibrate --lot).</p>\n"
    } else {
      let flagged = Set(flags.filter { $0.kind == "lot" }.map { $0.board + "/" + $0.subject })
      h += "<table><tr><th>Lot</th><th>Board</th><th>First used</th><th>Calibrations</th><th>Passed</th><th>Sensitivity mean</th><th>Sensitivity s</th><th>Noise mean (counts)</th></tr>\n"
      for l in r.lots {
        let cls = flagged.contains(l.board + "/" + l.lot) ? " class=\"flag\"" : ""
        h += "<tr><td\(cls)>\(HTML.escape(l.lot))</td><td>\(HTML.escape(l.board))</td><td>\(HTML.escape(String(l.first.prefix(10))))</td>"
        h += "<td>\(l.calibrations)</td><td>\(l.passed)</td><td>\(Format.fixed(l.sensitivityMean, 2))</td>"
        h += "<td>\(Format.fixed(l.sensitivitySD, 2))</td><td>\(Format.fixed(l.noiseMean, 3))</td></tr>\n"
      }
      h += "</table>\n<div class=\"charts\">\n"
      for c in r.lotCharts where c.metric == .noise || c.metric == .sensitivity || !c.signals.isEmpty { h += lotChart(c) }
      h += "</div>\n"
    }

    h += "<h2 id=\"charts\">Control charts by station (X̄ and s)</h2>\n"
    h += "<p>Centre line and 3σ limits from the first subgroups (shaded: the baseline); the dashed lines are 1σ and 2σ. Red points complete a run rule (WE1–WE4, Nelson 3, 4, 7, 8; S1: the s chart).</p>\n"
    var lastStation = ""
    for c in r.charts {
      let key = c.board + " / " + c.station
      if key != lastStation {
        if !lastStation.isEmpty { h += "</div>\n" }
        let n = r.charts.filter { $0.board == c.board && $0.station == c.station }.reduce(0) { $0 + $1.chart.signals.count }
        h += "<h3>\(HTML.escape(key))\(n > 0 ? " <span class=\"flag\">(\(n) signals)</span>" : "")</h3>\n<div class=\"charts\">\n"
        lastStation = key
      }
      h += chartBox(c, signalled: !c.chart.signals.isEmpty)
    }
    if !lastStation.isEmpty { h += "</div>\n" }
    if !flags.isEmpty {
      h += "<h2 id=\"all-signals\">Every signal</h2>\n"
      h += "<table><tr><th>Where</th><th>Board</th><th>Figure</th><th>Rule</th><th>From</th><th>To</th><th>z</th><th>Lots in the points</th></tr>\n"
      for f in flags {
        h += "<tr><td class=\"flag\">\(f.kind) \(HTML.escape(f.subject))</td><td>\(HTML.escape(f.board))</td><td>\(f.metric.rawValue)</td>"
        h += "<td>\(f.rule.rawValue): \(HTML.escape(f.rule.title))</td><td>\(HTML.escape(f.from))</td><td>\(HTML.escape(f.to))</td>"
        h += "<td>\(Format.fixed(f.z, 1))</td><td>\(HTML.escape(f.lots.prefix(3).joined(separator: ", ")))</td></tr>\n"
      }
      h += "</table>\n"
    }
    h += "</body></html>\n"
    return h
  }

  static func yieldTable(_ key: String, _ rows: [FactoryReport.YieldRow]) -> String {
    var h = "<table><tr><th>\(key)</th><th>Calibrations</th><th>Passed</th><th>First attempts</th><th>First-pass yield</th><th>Panels</th><th>Final yield</th></tr>\n"
    for y in rows {
      h += "<tr><td>\(HTML.escape(y.key))</td><td>\(y.calibrations)</td><td>\(y.passed)</td><td>\(y.firstAttempts)</td>"
      h += "<td>\(Format.fixed(y.firstPassYield * 100, 1)) %</td><td>\(y.units)</td><td>\(Format.fixed(y.finalYield * 100, 1)) %</td></tr>\n"
    }
    return h + "</table>\n"
  }

  static func yieldChart(_ rows: [FactoryReport.YieldRow]) -> String {
    guard rows.count >= 2 else { return "" }
    var s = SVG(width: 900, height: 200)
    let (x0, x1, y0, y1) = (50.0, 880.0, 20.0, 170.0)
    let low = max(0, (rows.map(\.firstPassYield).min() ?? 0) - 0.05)
    func y(_ v: Double) -> Double { y1 - (v - low) / (1 - low) * (y1 - y0) }
    func x(_ i: Int) -> Double { x0 + Double(i) / Double(rows.count - 1) * (x1 - x0) }
    for t in SVG.ticks(low, 1) {
      s.line(x0, y(t), x1, y(t), stroke: "#eee")
      s.label(x0 - 4, y(t) + 4, Format.fixed(t * 100, 0) + " %", size: 10, anchor: .end)
    }
    s.polyline(rows.indices.map { (x($0), y(rows[$0].firstPassYield)) }, stroke: "#1f77b4")
    s.polyline(rows.indices.map { (x($0), y(rows[$0].finalYield)) }, stroke: "#2ca02c")
    s.label(x0, y1 + 20, rows.first!.key, size: 10)
    s.label(x1, y1 + 20, rows.last!.key, size: 10, anchor: .end)
    s.label(x0 + 10, y0 + 2, "first-pass yield by day", size: 11, fill: "#1f77b4")
    s.label(x0 + 200, y0 + 2, "final yield", size: 11, fill: "#2ca02c")
    return s.text
  }

  static func paretoChart(_ rows: [FactoryReport.ParetoRow]) -> String {
    let shown = Array(rows.prefix(12))
    var s = SVG(width: 900, height: 260)
    let (x0, x1, y0, y1) = (50.0, 850.0, 15.0, 170.0)
    let top = Double(shown.map(\.count).max() ?? 1)
    let w = (x1 - x0) / Double(shown.count)
    for (i, p) in shown.enumerated() {
      let h = Double(p.count) / top * (y1 - y0)
      s.rect(x0 + Double(i) * w + 4, y1 - h, w - 8, h, fill: "#d62728")
      s.label(x0 + (Double(i) + 0.5) * w, y1 - h - 3, "\(p.count)", size: 10, anchor: .middle)
      s.label(x0 + (Double(i) + 0.5) * w, y1 + 12, p.check, size: 10, anchor: .end, rotate: -30)
    }
    s.polyline(shown.indices.map { (x0 + (Double($0) + 0.5) * w, y1 - shown[$0].cumulative * (y1 - y0)) }, stroke: "#333")
    s.label(x1 + 4, y0 + 4, "100 %", size: 10)
    s.line(x0, y1, x1, y1, stroke: "#999")
    return s.text
  }

  static func chartBox(_ c: FactoryReport.StationChart, signalled: Bool) -> String {
    "<div class=\"chart\(signalled ? " signalled" : "")\">" + chart(c) + "</div>\n"
  }

  /// X̄ above, s below.
  static func chart(_ c: FactoryReport.StationChart) -> String {
    let ch = c.chart
    let pts = ch.points
    var s = SVG(width: 440, height: 230)
    let (x0, x1) = (48.0, 430.0)
    let flagged = Set(ch.signals.filter { $0.rule != .sBeyondLimit }.flatMap { Array($0.first...$0.last) })
    let flaggedS = Set(ch.signals.filter { $0.rule == .sBeyondLimit }.map(\.first))
    func x(_ i: Int) -> Double { pts.count < 2 ? x0 : x0 + Double(i) / Double(pts.count - 1) * (x1 - x0) }
    // Baseline shading.
    s.rect(x0, 18, x(ch.baseline - 1) - x0, 200, fill: "#f3f7fb")
    s.label(x0, 12, "\(c.station) — \(c.metric.title)", size: 11, bold: true)

    // X̄ panel.
    let e = ch.sigma / Double(max(1, pts.first?.n ?? 1)).squareRoot()
    let means = pts.map(\.mean)
    var low = min(means.min() ?? 0, ch.centre - 3.5 * e)
    var high = max(means.max() ?? 0, ch.centre + 3.5 * e)
    if high <= low { (low, high) = (low - 1, high + 1) }
    let (ya, yb) = (22.0, 140.0)
    func y(_ v: Double) -> Double { yb - (v - low) / (high - low) * (yb - ya) }
    for k in [-2.0, -1, 1, 2] { s.line(x0, y(ch.centre + k * e), x1, y(ch.centre + k * e), stroke: "#ccc", dash: "3,3") }
    s.line(x0, y(ch.centre + 3 * e), x1, y(ch.centre + 3 * e), stroke: "#d62728")
    s.line(x0, y(ch.centre - 3 * e), x1, y(ch.centre - 3 * e), stroke: "#d62728")
    s.line(x0, y(ch.centre), x1, y(ch.centre), stroke: "#2ca02c")
    for t in SVG.ticks(low, high, count: 3) { s.label(x0 - 3, y(t) + 3, SVG.tick(t, SVG.ticks(low, high, count: 3)), size: 9, anchor: .end) }
    s.polyline(pts.indices.map { (x($0), y(pts[$0].mean)) }, stroke: "#1f77b4", width: 1)
    for i in flagged.sorted() { s.circle(x(i), y(pts[i].mean), 2.5, fill: "#d62728") }
    s.label(x1, ya - 2, "X̄", size: 10, anchor: .end)

    // s panel.
    let sds = pts.map(\.sd)
    let sHigh = max(sds.max() ?? 1, pts.map(\.sdLimits.high).max() ?? 1) * 1.05
    let (sa, sb) = (155.0, 215.0)
    func ys(_ v: Double) -> Double { sb - v / max(sHigh, 1e-12) * (sb - sa) }
    s.polyline(pts.indices.map { (x($0), ys(pts[$0].sdLimits.high)) }, stroke: "#d62728", width: 1)
    s.polyline(pts.indices.map { (x($0), ys(pts[$0].sdLimits.centre)) }, stroke: "#2ca02c", width: 1)
    s.polyline(pts.indices.map { (x($0), ys(pts[$0].sd)) }, stroke: "#555", width: 1)
    for i in flaggedS.sorted() { s.circle(x(i), ys(pts[i].sd), 2.5, fill: "#d62728") }
    s.label(x1, sa - 2, "s", size: 10, anchor: .end)
    s.label(x0 - 3, ys(0) + 3, "0", size: 9, anchor: .end)
    s.label(x0, 228, String(pts.first?.first.prefix(10) ?? ""), size: 9)
    s.label(x1, 228, String(pts.last?.last.prefix(10) ?? ""), size: 9, anchor: .end)
    return s.text
  }

  static func lotChart(_ c: FactoryReport.LotChart) -> String {
    var s = SVG(width: 440, height: 190)
    let (x0, x1, ya, yb) = (48.0, 430.0, 22.0, 150.0)
    let flagged = Set(c.signals.flatMap { Array($0.first...$0.last) }.filter { abs(c.means[$0] - c.centre) > 3 * c.sigma })
    var low = min(c.means.min() ?? 0, c.centre - 3.5 * c.sigma)
    var high = max(c.means.max() ?? 0, c.centre + 3.5 * c.sigma)
    if high <= low { (low, high) = (low - 1, high + 1) }
    func y(_ v: Double) -> Double { yb - (v - low) / (high - low) * (yb - ya) }
    func x(_ i: Int) -> Double { c.lots.count < 2 ? x0 : x0 + Double(i) / Double(c.lots.count - 1) * (x1 - x0) }
    s.label(x0, 12, "\(c.board): lot means — \(c.metric.title)", size: 11, bold: true)
    s.line(x0, y(c.centre + 3 * c.sigma), x1, y(c.centre + 3 * c.sigma), stroke: "#d62728")
    s.line(x0, y(c.centre - 3 * c.sigma), x1, y(c.centre - 3 * c.sigma), stroke: "#d62728")
    s.line(x0, y(c.centre), x1, y(c.centre), stroke: "#2ca02c")
    s.polyline(c.lots.indices.map { (x($0), y(c.means[$0])) }, stroke: "#1f77b4", width: 1)
    for i in c.lots.indices {
      s.circle(x(i), y(c.means[i]), flagged.contains(i) ? 3.5 : 2, fill: flagged.contains(i) ? "#d62728" : "#1f77b4")
      s.label(x(i), yb + 14, c.lots[i], size: 9, anchor: .end, rotate: -40)
    }
    return "<div class=\"chart\(flagged.isEmpty ? "" : " signalled")\">" + s.text + "</div>\n"
  }
}
