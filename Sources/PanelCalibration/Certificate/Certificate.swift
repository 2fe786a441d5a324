import PanelFormats
import PanelMechanics

/// The calibration certificate: one self-contained HTML page (inline CSS
/// and SVG, no scripts, nothing fetched) with the result, the accuracy
/// against the single-point method, the pass/fail table, per-cell
/// linearity and residuals, a map of the verification error across the
/// panel, noise per cell, creep and the parameters; and a JSON summary
/// (`json(_:)`). The page is `Templates/certificate.html` (compiled in);
/// its slots are filled here, the plots by `Certificate+Plots.swift`.
public enum Certificate {
  /// The template's slots.
  enum Slot: String, CaseIterable {
    case serial, heading, accuracy, checkRows, errorMap, linearityPlots, modelledLoad, linearityRange, spreading
    case response, noisePlot, noiseLimit_mN, creep, parameterRows, parameterNotes, boardName, crc, steps
  }

  static let template = HTMLTemplate<Slot>(String(decoding: PackageResources.certificate_html, as: UTF8.self))

  public static func html(_ r: CalibrationResult) -> String {
    template.render { slot in
      switch slot {
      case .serial: HTML.escape(r.record.serial)
      case .heading: heading(r)
      case .accuracy: accuracy(r)
      case .checkRows: checkRows(r)
      case .errorMap: errorMapSection(r)
      case .linearityPlots: linearityPlots(r).text
      case .modelledLoad: r.fit.model == .rigidPlate ? "the share a rigid plate gives it" : "its share of the spreading"
      case .linearityRange: Format.short(linearityRange(r))
      case .spreading: spreading(r)
      case .response: response(r)
      case .noisePlot: noisePlot(r).text
      case .noiseLimit_mN: Format.short(r.session.limits.noiseLimit(board: r.board) * 1000)
      case .creep: creep(r)
      case .parameterRows: parameterRows(r)
      case .parameterNotes: parameterNotes(r)
      case .boardName: HTML.escape(r.board.name)
      case .crc: HTML.escape(r.record.encoded().split(separator: "\n").last { $0.hasPrefix("crc32") }.map(String.init) ?? "")
      case .steps: "\(r.session.steps.count)"
      }
    }
  }

  // MARK: Sections

  /// The title block: the board, serial, plan, date, temperatures and fit,
  /// and the verdict.
  static func heading(_ r: CalibrationResult) -> String {
    var h = "<div class=\"head\"><div><h1>Calibration certificate</h1>"
    h += "<div class=\"sub\">\(HTML.escape(r.board.description))</div>\n"
    h += "<table class=\"meta\">"
    h += row(["Board", r.board.name]) + row(["Serial", r.record.serial]) + row(["Plan", r.record.plan])
    h += row(["Date", r.record.created])
    h += row(["Temperature", "\(Format.fixed(r.temperatures.low, 1)) to \(Format.fixed(r.temperatures.high, 1)) °C (reference \(Format.fixed(r.record.referenceTemperature_c, 1)) °C)"])
    h += row(["Fit", fitText(r)])
    if let stored = r.storage { h += row(["Panel", stored]) }
    h += "</table></div>"
    h += "<div class=\"badge \(r.passed ? "pass" : "fail")\">\(r.passed ? "PASS" : "FAIL")</div></div>\n"
    return h
  }

  /// The accuracy against the single-point method, with its notes.
  static func accuracy(_ r: CalibrationResult) -> String {
    let limits = r.session.limits
    let (results, method) = r.accuracy
    var h = "<h2>\(accuracyTitle(r))</h2>\n"
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
    return h
  }

  /// One row a check (a failing one marked), then the checks not run.
  static func checkRows(_ r: CalibrationResult) -> String {
    var h = ""
    for c in r.checks {
      h += "<tr\(c.passed ? "" : " class=\"failed\"")><td>\(HTML.escape(c.name))</td><td>\(HTML.escape(c.subject))</td>"
      h += "<td class=\"num\">\(Format.short(c.value)) \(HTML.escape(c.unit))</td><td class=\"num\">\(Format.short(c.limit)) \(HTML.escape(c.unit))</td>"
      h += "<td class=\"\(c.passed ? "ok" : "bad")\">\(c.passed ? "pass" : "FAIL")</td><td class=\"note\">\(HTML.escape(c.note))</td></tr>\n"
    }
    for (name, why) in r.checksNotRun {
      h += "<tr><td>\(HTML.escape(name))</td><td>–</td><td>–</td><td>–</td><td>not run</td><td class=\"note\">\(HTML.escape(why))</td></tr>\n"
    }
    return h
  }

  /// The error across the panel: its title, then the map or why not.
  static func errorMapSection(_ r: CalibrationResult) -> String {
    let limits = r.session.limits
    let method = r.accuracy.method
    var h = "<h2>\(method == .verification ? "Verification error" : method == .notMeasured ? "Error" : "Cross-validated error") across the panel</h2>\n"
    if method == .notMeasured {
      h += "<p class=\"note\">Not measured: the session has no verification placements.</p>\n"
    } else {
      h += "<figure>" + errorMap(r).text + "<figcaption>"
      h += method == .verification ? "" : "Cross-validated: each position measured with a calibration fitted without it. "
      h += "Colour: force error of each \(method == .verification ? "verification" : "fit") position (the worse of its loads) in % of reading, interpolated between positions; "
      h += "0 is green, the limit (\(Format.short(limits.forceError_pct)) %) red. Arrows: position error from the true to the reported position, magnified as marked. Grey: the cells.</figcaption></figure>\n"
    }
    return h
  }

  /// The spreading profile, when the fit has one.
  static func spreading(_ r: CalibrationResult) -> String {
    guard let profile = r.fit.profile else { return "" }
    var h = "<h2>Spreading</h2>\n<figure>" + spreadPlot(profile, learnt: r.fit.learnt).text + "<figcaption>"
    h += "How the overlay shares a press among the cells: a cell's share against its distance from the press, "
    h += r.fit.learnt ? "learnt from the fit placements (no family assumed)" : "the Boussinesq model fitted by its depth"
    if let c = r.record.contact {
      h += "; a contact sums the cells within \(c.radius) of its peak, scaled by \(Format.fixed(c.captureScale, 3))"
    }
    h += ". Residual of the fit: \(Format.short(r.record.fit?.residual_pct ?? 0)) % RMS.</figcaption></figure>\n"
    return h
  }

  /// The learnt response's kernel and capture, when the fit has one.
  static func response(_ r: CalibrationResult) -> String {
    guard let response = r.fit.response else { return "" }
    let placements = r.steps.filter { $0.step.role == .fit && $0.step.isLoaded }.map { ($0.step.x_mm, $0.step.y_mm) }
    var h = "<h2>Learnt response</h2>\n<figure>" + ResponsePlots.kernel(response).text + "<figcaption>"
    h += "What a cell carries of a press at each offset from its centre (relative to a press on it), learnt from the fit placements in two dimensions "
    h += "(no radial symmetry assumed); contours at 50, 20, 5 and 1 %; dashed: the cells' outlines.</figcaption></figure>\n"
    h += "<figure>" + ResponsePlots.capture(response, board: r.board, placements: placements).text + "<figcaption>"
    h += "The capture: the share of a press the cells carry, relative to a press at the panel's centre (a frame or bezel bears the rest). "
    h += "Dots: the fit placements. Residual of the fit with this response: \(Format.short(r.record.fit?.residual_pct ?? 0)) % RMS.</figcaption></figure>\n"
    return h
  }

  /// The hold's creep, when the session has one.
  static func creep(_ r: CalibrationResult) -> String {
    guard let c = r.creep else { return "" }
    let limits = r.session.limits
    var h = "<h2>Creep</h2>\n<figure>" + creepPlot(c).text + "<figcaption>"
    h += "Total force during the \(Format.short(c.duration_s)) s hold of \(HTML.escape(c.step.name)) (\(Format.short(c.step.load_g)) g), in % of the load from its first reading; "
    h += "change \(Format.short(c.measured_pct)) %, exponential fit τ = \(Format.short(c.tau_s)) s, extrapolated to 30 minutes \(Format.short(c.extrapolated_pct)) % (limit \(Format.short(limits.creep_pct)) %).</figcaption></figure>\n"
    return h
  }

  /// One row a cell: its parameters and figures (a cell that does not
  /// respond marked).
  static func parameterRows(_ r: CalibrationResult) -> String {
    var h = ""
    let (tcZero, tcSpan) = r.measuredTemperatureCoefficients
    for (k, c) in r.cells.enumerated() {
      let p = r.record.cells[k]
      h += "<tr\(c.responds ? "" : " class=\"failed\"")><td>\(k)</td><td class=\"num\">\(Format.fixed(p.offset_counts, 0))</td><td class=\"num\">\(Format.fixed(p.gain_counts_per_n, 0))</td>"
      h += "<td class=\"num\">\(sci(p.linearity_per_n))</td><td class=\"num\">\(tcZero ? Format.short(p.tcZero_counts_per_c) : "–")</td><td class=\"num\">\(tcSpan ? sci(p.tcSpan_per_c) : "–")</td>"
      h += "<td class=\"num\">\(Format.short(c.noise_counts))</td><td class=\"num\">\(Format.short(c.fullScale_n))</td><td class=\"num\">\(Format.short(c.nonlinearity_pct))</td>"
      h += "<td class=\"num\">\(c.hysteresis_pct.map(Format.short) ?? "–")</td><td class=\"num\">\(c.zeroReturn_pct.map(Format.short) ?? "–")</td></tr>\n"
    }
    return h
  }

  /// What the parameters' table leaves out: coefficients not measured,
  /// placements left out of the fit.
  static func parameterNotes(_ r: CalibrationResult) -> String {
    var h = ""
    let (tcZero, tcSpan) = r.measuredTemperatureCoefficients
    if !tcZero || !tcSpan {
      h += "<p class=\"note\">–: not measured: \([!tcZero ? "the zero's temperature coefficient (tares within 1 °C of each other)" : nil, !tcSpan ? "the span's (fit placements within 2 °C)" : nil].compactMap { $0 }.joined(separator: "; ")); the record applies none.</p>\n"
    }
    let rejected = r.steps.filter { !$0.used }
    if !rejected.isEmpty {
      h += "<p class=\"note\">Left out of the fit: " + rejected.map { HTML.escape($0.step.name) }.joined(separator: ", ") + ".</p>\n"
    }
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
}
