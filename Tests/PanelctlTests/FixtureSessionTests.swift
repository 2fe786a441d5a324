import Foundation
import Testing

/// A factory fixture's session: only the keys every session has (docs/formats.md,
/// "Calibration session") plus the panel's own serial. Its calibration belongs to that
/// panel: a replay of a recording (which names no panel) takes it with a
/// note, a live panel with another serial refuses it; and the certificate
/// estimates the accuracy by cross-validation, since such a session has no
/// verification placements, and never shows an unmeasured figure as 0 or
/// as a pass.
@Suite struct FixtureSessionTests {
  static let serial = "P-000123"

  /// The live plate session rewritten as a fixture writes it: `board`,
  /// `serial`, and per step `file`, `load_g`, `x_mm`, `y_mm`; nothing else.
  static func fixtureSession(in dir: URL) throws -> String {
    let live = try CalibrateTests.run("sim-plate4")
    let session = dir.appendingPathComponent("fixture").path
    try FileManager.default.createDirectory(atPath: session, withIntermediateDirectories: true)
    var plan = "board = \"sim-plate4\"\nserial = \"\(serial)\"\n"
    let recorded = try String(contentsOfFile: live.session + "/plan.toml", encoding: .utf8)
    for line in recorded.split(separator: "\n") {
      let key = line.split(separator: " ").first.map(String.init) ?? ""
      if key == "[[step]]" { plan += "\n[[step]]\n" }
      if ["file", "load_g", "x_mm", "y_mm"].contains(key) { plan += line + "\n" }
    }
    try plan.write(toFile: session + "/plan.toml", atomically: true, encoding: .utf8)
    for file in try FileManager.default.contentsOfDirectory(atPath: live.session) where file.hasSuffix(".csv") {
      try FileManager.default.copyItem(atPath: live.session + "/" + file, toPath: session + "/" + file)
    }
    return session
  }

  @Test func aFixturesCalibrationReplaysItsPanelsRecordingsAndALivePanelRefusesIt() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let session = try Self.fixtureSession(in: dir)
    let cal = dir.appendingPathComponent("p.toml").path
    let c = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", cal])
    #expect(c.status == 0, "\(c.stderr)")
    #expect(try String(contentsOfFile: cal, encoding: .utf8).contains("serial = \"\(Self.serial)\""))

    // A recording of that panel (the simulated plate stands in for it).
    let csv = dir.appendingPathComponent("run.csv").path
    #expect(try Panelctl.run(["record", "--board", "boards/sim-plate4.toml", "--out", csv, "--speed", "0"]).status == 0)
    let replay = try Panelctl.run(["replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", cal])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(try ReportLine.decode(replay.lines).flatMap(\.events).contains { $0.type == "pop" })
    #expect(
      replay.stderr == "panelctl: note: \(cal): using the calibration of panel \"\(Self.serial)\" (a recording names no panel)\n",
      "\(replay.stderr)")

    // A live panel knows its serial: the simulated twin's is SIM-PLATE4-0001.
    let live = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--calibration", cal])
    #expect(live.status == 1)
    #expect(
      live.stderr == "panelctl: error: \(cal): serial: calibration is for panel \"\(Self.serial)\", this panel is \"SIM-PLATE4-0001\"\n",
      "\(live.stderr)")
    #expect(live.stdout.isEmpty)
  }

  struct Summary: Decodable {
    struct Accuracy: Decodable {
      var method: String
      var folds: Int?
      var placements: Int
      var worst_force_error_pct: Double?
      var position_rms_mm: Double?
      var position_max_mm: Double?
    }
    struct Check: Decodable {
      var name: String
      var passed: Bool
    }
    struct NotRun: Decodable {
      var name: String
      var why: String
    }
    struct Cell: Decodable {
      var tc_zero_counts_per_c: Double?
      var tc_span_per_c: Double?
    }
    var accuracy: Accuracy
    var checks: [Check]
    var checks_not_run: [NotRun]
    var cells: [Cell]
    var verification: [[String: Double?]]?
    var cross_validation: [CrossValidated]
    struct CrossValidated: Decodable {
      var force_error_pct: Double
      var position_error_mm: Double
    }
  }

  @Test func withoutVerificationPlacementsTheCertificateCrossValidatesAndShowsNothingUnmeasuredAsPerfect() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let session = try Self.fixtureSession(in: dir)
    let cal = dir.appendingPathComponent("p.toml").path
    let c = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", cal])
    #expect(c.status == 0, "\(c.stderr)")
    let json = try Data(contentsOf: dir.appendingPathComponent("p.certificate.json"))
    let s = try JSONDecoder().decode(Summary.self, from: json)
    // Cross-validated figures, labelled, measured (not zero) and plausible.
    #expect(s.accuracy.method == "cross-validation")
    #expect((s.accuracy.folds ?? 0) >= 2)
    #expect(s.accuracy.placements == s.cross_validation.count && s.accuracy.placements >= 20)
    let force = try #require(s.accuracy.worst_force_error_pct)
    let rms = try #require(s.accuracy.position_rms_mm)
    #expect(force > 0 && force < 2, "worst force error \(force) %")
    #expect(rms > 0 && rms < 1, "position RMS \(rms) mm")
    #expect(s.accuracy.worst_force_error_pct == s.cross_validation.filter { _ in true }.map { abs($0.force_error_pct) }.max()
      || force <= (s.cross_validation.map { abs($0.force_error_pct) }.max() ?? 0))
    // Nothing unmeasured passes: verification is "not run", with its reason,
    // never in the list of passed checks; one temperature: no coefficients.
    #expect(!s.checks.contains { $0.name.hasPrefix("verification") })
    #expect(s.checks_not_run.contains { $0.name == "verification" && $0.why.contains("cross-validation") })
    #expect(s.checks_not_run.contains { $0.name == "temperature" })
    #expect(s.cells.allSatisfy { $0.tc_zero_counts_per_c == nil && $0.tc_span_per_c == nil })

    let html = try String(contentsOf: dir.appendingPathComponent("p.certificate.html"), encoding: .utf8)
    #expect(html.contains("<h2>Accuracy, cross-validated over the fit placements</h2>"))
    #expect(html.contains("cross-validated: \(s.accuracy.folds ?? 0) folds over \(s.accuracy.placements) fit placements"))
    #expect(html.contains("<h2>Cross-validated error across the panel</h2>"))
    #expect(html.contains("<td>verification</td><td>–</td><td>–</td><td>–</td><td>not run</td>"))
    // No figure of the accuracy row reads 0.
    let row = try #require(html.components(separatedBy: "<tr>").first { $0.contains("cross-validated: ") })
    let figures = row.components(separatedBy: "<td class=\"num\">").dropFirst().map { $0.prefix { $0 != "<" } }
    #expect(figures.count == 4)
    for f in figures {
      let value = try #require(Double(f.split(separator: " ")[0]), "\(f)")
      #expect(value > 0, "an accuracy figure reads \(f)")
    }
    #expect(html.contains("–: not measured: the zero's temperature coefficient"))
  }

  /// With no verification placements and too few positions to fold, the
  /// figures are "not measured": dashes with the reason, never 0, and no
  /// error map.
  @Test func withNothingToMeasureTheFiguresAreNotMeasured() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let full = try Self.fixtureSession(in: dir)
    // Keep the tare and the steps at one position (20, 15) only.
    let plan = try String(contentsOfFile: full + "/plan.toml", encoding: .utf8)
    let blocks = plan.components(separatedBy: "\n[[step]]\n")
    let kept = blocks.dropFirst().filter { !$0.contains("x_mm") || $0.contains("x_mm = 20.0\ny_mm = 15.0") }
    try (blocks[0] + kept.map { "\n[[step]]\n" + $0 }.joined()).write(toFile: full + "/plan.toml", atomically: true, encoding: .utf8)
    let c = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", full, "--out", dir.path + "/p.toml"])
    // One position cannot determine a plate's calibration: exit 1 or 2, but
    // whatever it wrote shows no accuracy as measured.
    let certificate = dir.appendingPathComponent(c.status == 0 ? "p.certificate.json" : "p.failed.certificate.json")
    guard FileManager.default.fileExists(atPath: certificate.path) else {
      #expect(c.status != 0 && c.stderr.contains("do not determine"), "\(c.stderr)")
      return
    }
    let s = try JSONDecoder().decode(Summary.self, from: Data(contentsOf: certificate))
    #expect(s.accuracy.method == "not measured")
    #expect(s.accuracy.worst_force_error_pct == nil && s.accuracy.position_rms_mm == nil)
  }
}
