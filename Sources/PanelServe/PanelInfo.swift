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
    o.field("board", json: PanelInfo.board(board))
    o.field("interaction", json: PanelInfo.interaction(board.interaction))
    o.field("calibration", json: PanelInfo.calibration(calibration))
    if let factoryReport { o.field("factory_report", factoryReport) } else { o.field("factory_report", json: "null") }
    body = o.text
  }

  /// The document for a requester who may (`control`) or may not send
  /// control lines; `tokenRequired` when control needs the token.
  public func json(control: Bool, tokenRequired: Bool) -> String {
    var access = JSONWriter.object()
    access.field("control", control)
    access.field("token_required", tokenRequired)
    return body + ",\"access\":" + access.done + "}"
  }

  static func board(_ b: Board) -> String {
    var o = JSONWriter.object()
    o.field("name", b.name)
    o.field("description", b.description)
    o.field("width_mm", b.width_mm)
    o.field("height_mm", b.height_mm)
    o.field("rate_hz", b.rate_hz)
    var cells = JSONWriter.array()
    for c in b.cells { cells.value("[\(JSONWriter.number(c.x_mm)),\(JSONWriter.number(c.y_mm))]") }
    o.field("cells", json: cells.done)
    if let g = b.grid {
      var grid = JSONWriter.object()
      grid.field("cols", g.columns)
      grid.field("rows", g.rows)
      grid.field("pitch_mm", g.pitch_mm)
      o.field("grid", json: grid.done)
    } else {
      o.field("grid", json: "null")
    }
    return o.done
  }

  static func interaction(_ s: InteractionSettings) -> String {
    var o = JSONWriter.object()
    o.field("average_touch_n", s.averageTouch_n)
    o.field("max_force", s.maxForce)
    o.field("sensitivity", s.sensitivity.rawValue)
    o.field("force_touch", s.forceTouch)
    var all = JSONWriter.object()
    for sensitivity in Sensitivity.allCases {
      let t = StageThresholds(settings: s, sensitivity: sensitivity)
      // Q21.10 millinewtons to normalized force (newtons / average touch).
      func normalized(_ raw: Int32) -> String {
        JSONWriter.number(Double(raw) / 1024 / 1000 / s.averageTouch_n, decimals: 3)
      }
      var one = JSONWriter.object()
      one.field("hint", json: normalized(t.hintOn))
      one.field("peek", json: normalized(t.peekOn))
      one.field("pop", json: normalized(t.popOn))
      all.field(sensitivity.rawValue, json: one.done)
    }
    o.field("thresholds", json: all.done)
    return o.done
  }

  /// The record's identity, fit and checks: what its certificate says.
  static func calibration(_ r: CalibrationRecord) -> String {
    var o = JSONWriter.object()
    o.field("nominal", r.isNominal)
    o.field("serial", r.serial)
    o.field("created", r.created)
    o.field("source", r.source)
    o.field("plan", r.plan)
    o.field("result", r.result)
    o.field("reference_temp_c", r.referenceTemperature_c)
    if let fit = r.fit {
      var f = JSONWriter.object()
      f.field("model", fit.model)
      f.field("spread_mm", fit.spread_mm)
      f.field("placements", fit.placements)
      f.field("residual_pct", fit.residual_pct)
      o.field("fit", json: f.done)
    } else {
      o.field("fit", json: "null")
    }
    var cells = JSONWriter.array()
    for c in r.cells {
      var e = JSONWriter.object()
      e.field("gain_counts_per_n", c.gain_counts_per_n)
      e.field("linearity_per_n", c.linearity_per_n)
      e.field("noise_counts", c.noise_counts)
      cells.value(e.done)
    }
    o.field("cells", json: cells.done)
    var checks = JSONWriter.array()
    for c in r.checks {
      var e = JSONWriter.object()
      e.field("name", c.name)
      e.field("subject", c.subject)
      e.field("value", c.value)
      e.field("limit", c.limit)
      e.field("unit", c.unit)
      e.field("passed", c.passed)
      e.field("note", c.note)
      checks.value(e.done)
    }
    o.field("checks", json: checks.done)
    return o.done
  }
}
