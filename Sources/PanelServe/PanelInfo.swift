import ForceCore
import PanelFirmware

/// `/panel.json`: what a page needs to draw the panel and read its stream.
/// The board (outline, cells, grid, frame rate), the interaction settings
/// with the stage thresholds at each sensitivity (normalized force, as
/// reports give `force`), the calibration the run uses with its checks
/// (the panel's certificate), and the requester's access.
public struct PanelInfo: Sendable {
  /// Everything but the access, written once.
  let body: String

  /// `factoryReport`: the path of the factory's report when serve has a
  /// database (`serve --db`), written as `factory_report` (null without).
  public init(board: Board, calibration: CalibrationRecord, factoryReport: String? = nil) {
    var o = JSONWriter.object()
    o.raw("board", PanelInfo.board(board))
    o.raw("interaction", PanelInfo.interaction(board.interaction))
    o.raw("calibration", PanelInfo.calibration(calibration))
    if let factoryReport { o.add("factory_report", factoryReport) } else { o.raw("factory_report", "null") }
    body = o.text
  }

  /// The document for a requester who may (`control`) or may not send
  /// control lines; `tokenRequired` when control needs the token.
  public func json(control: Bool, tokenRequired: Bool) -> String {
    var access = JSONWriter.object()
    access.add("control", control)
    access.add("token_required", tokenRequired)
    return body + ",\"access\":" + access.done + "}"
  }

  static func board(_ b: Board) -> String {
    var o = JSONWriter.object()
    o.add("name", b.name)
    o.add("description", b.description)
    o.add("width_mm", b.width_mm)
    o.add("height_mm", b.height_mm)
    o.add("rate_hz", b.rate_hz)
    var cells = JSONWriter.array()
    for c in b.cells { cells.raw("[\(JSONWriter.number(c.x_mm)),\(JSONWriter.number(c.y_mm))]") }
    o.raw("cells", cells.done)
    if let g = b.grid {
      var grid = JSONWriter.object()
      grid.add("cols", g.columns)
      grid.add("rows", g.rows)
      grid.add("pitch_mm", g.pitch_mm)
      o.raw("grid", grid.done)
    } else {
      o.raw("grid", "null")
    }
    return o.done
  }

  static func interaction(_ s: InteractionSettings) -> String {
    var o = JSONWriter.object()
    o.add("average_touch_n", s.averageTouch_n)
    o.add("max_force", s.maxForce)
    o.add("sensitivity", s.sensitivity.rawValue)
    o.add("force_touch", s.forceTouch)
    var all = JSONWriter.object()
    for sensitivity in Sensitivity.allCases {
      let t = StageThresholds(settings: s, sensitivity: sensitivity)
      // Q21.10 millinewtons to normalized force (newtons / average touch).
      func normalized(_ raw: Int32) -> String {
        JSONWriter.number(Double(raw) / 1024 / 1000 / s.averageTouch_n, decimals: 3)
      }
      var one = JSONWriter.object()
      one.raw("hint", normalized(t.hintOn))
      one.raw("peek", normalized(t.peekOn))
      one.raw("pop", normalized(t.popOn))
      all.raw(sensitivity.rawValue, one.done)
    }
    o.raw("thresholds", all.done)
    return o.done
  }

  /// The record's identity, fit and checks: what its certificate says.
  static func calibration(_ r: CalibrationRecord) -> String {
    var o = JSONWriter.object()
    o.add("nominal", r.isNominal)
    o.add("serial", r.serial)
    o.add("created", r.created)
    o.add("source", r.source)
    o.add("plan", r.plan)
    o.add("result", r.result)
    o.add("reference_temp_c", r.referenceTemperature_c)
    if let fit = r.fit {
      var f = JSONWriter.object()
      f.add("model", fit.model)
      f.add("spread_mm", fit.spread_mm)
      f.add("placements", fit.placements)
      f.add("residual_pct", fit.residual_pct)
      o.raw("fit", f.done)
    } else {
      o.raw("fit", "null")
    }
    var cells = JSONWriter.array()
    for c in r.cells {
      var e = JSONWriter.object()
      e.add("gain_counts_per_n", c.gain_counts_per_n)
      e.add("linearity_per_n", c.linearity_per_n)
      e.add("noise_counts", c.noise_counts)
      cells.raw(e.done)
    }
    o.raw("cells", cells.done)
    var checks = JSONWriter.array()
    for c in r.checks {
      var e = JSONWriter.object()
      e.add("name", c.name)
      e.add("subject", c.subject)
      e.add("value", c.value)
      e.add("limit", c.limit)
      e.add("unit", c.unit)
      e.add("passed", c.passed)
      e.add("note", c.note)
      checks.raw(e.done)
    }
    o.raw("checks", checks.done)
    return o.done
  }
}
