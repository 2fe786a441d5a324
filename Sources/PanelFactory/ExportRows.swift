import FoundationEssentials
import PanelFirmware

/// Calibrations for an MES: whole rows as JSON (one object a line), or
/// one CSV line a calibration.
public enum ExportRows {
  /// One row as one line of JSON (keys sorted; the model's bytes base64).
  public static func json(_ row: CalibrationRow) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return String(decoding: try encoder.encode(row), as: UTF8.self)
  }

  public static func ndjson(_ rows: [CalibrationRow]) throws -> String {
    try rows.map { try json($0) + "\n" }.joined()
  }

  public static let csvColumns = [
    "id", "serial", "board", "plan", "plan_sha256", "station", "fixture", "operator", "lot", "firmware", "started_at",
    "ended_at", "result", "failure", "residual_pct", "accuracy_method", "accuracy_force_pct", "accuracy_position_mm",
    "creep_pct", "cells", "checks_failed", "record_path", "record_sha256", "certificate_path", "model_format",
    "model_sha256",
  ]

  public static func csv(_ rows: [CalibrationRow]) -> String {
    var out = csvColumns.joined(separator: ",") + "\n"
    for r in rows {
      let fields: [String] = [
        r.id, r.serial, r.board, r.plan, r.planSHA256, r.station, r.fixture ?? "", r.operatorID ?? "", r.lot ?? "",
        r.firmware, r.startedAt, r.endedAt, r.result, r.failure ?? "", number(r.residual_pct), r.accuracyMethod,
        number(r.accuracyForce_pct), number(r.accuracyPosition_mm), r.creep_pct.map(number) ?? "", "\(r.cells.count)",
        "\(r.checks.filter { !$0.passed }.count)", r.recordPath ?? "", r.recordSHA256 ?? "", r.certificatePath,
        r.model.format, r.model.sha256,
      ]
      out += fields.map(CSVField.quoted).joined(separator: ",") + "\n"
    }
    return out
  }

  static func number(_ v: Double) -> String { v.isFinite ? "\(v)" : "" }
}

/// RFC 4180 quoting.
public enum CSVField {
  public static func quoted(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacing("\"", with: "\"\"") + "\""
  }
}
