import Foundation
import PanelFirmware
import Testing

/// `panelctl calibrate`, live on the simulated boards (the simulator places
/// the masses) and from recorded sessions, as a factory would run it.
@Suite struct CalibrateTests {
  /// One live, unattended run per board, shared by the tests that need a
  /// session (a live grid run costs several seconds in a debug build).
  struct LiveRun: Sendable {
    var directory: URL
    var session: String { directory.appendingPathComponent("session").path }
    var record: String { directory.appendingPathComponent("live.toml").path }
    var summary: String { directory.appendingPathComponent("live.certificate.json").path }
    var result: Panelctl.Result
  }

  static func live(_ board: String) throws -> LiveRun {
    let dir = try Panelctl.temporaryDirectory()
    let r = try Panelctl.run([
      "calibrate", "--board", "boards/\(board).toml", "--plan", "calibration/plans/\(board).toml", "--mode",
      "unattended", "--speed", "0", "--session", dir.appendingPathComponent("session").path, "--out",
      dir.appendingPathComponent("live.toml").path,
    ])
    return LiveRun(directory: dir, result: r)
  }

  static let plate = Result { try live("sim-plate4") }
  static let grid = Result { try live("sim-grid") }
  static func run(_ board: String) throws -> LiveRun { try (board == "sim-plate4" ? plate : grid).get() }

  struct Summary: Decodable {
    struct Accuracy: Decodable {
      var placements: Int
      var worst_force_error_pct: Double
      var position_rms_mm: Double
      var position_max_mm: Double
    }
    struct Method: Decodable {
      var method: String
      var worst_force_error_pct: Double?
      var position_rms_mm: Double?
    }
    var result: String
    var accuracy: Accuracy
    var single_point: Method
  }

  static func summary(_ path: String) throws -> Summary {
    try JSONDecoder().decode(Summary.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func liveUnattendedPassesAndTheSessionRecomputesToTheSameRecord(_ board: String) throws {
    let live = try Self.run(board)
    #expect(live.result.status == 0, "\(live.result.stderr)")
    #expect(live.result.stdout.isEmpty)
    // The session is the contract's: plan.toml and one recording per step.
    let plan = try String(contentsOfFile: live.session + "/plan.toml", encoding: .utf8)
    #expect(plan.contains("board = \"\(board)\""))
    let files = try FileManager.default.contentsOfDirectory(atPath: live.session)
    let steps = plan.components(separatedBy: "[[step]]").count - 1
    #expect(files.filter { $0.hasPrefix("step-") && $0.hasSuffix(".csv") }.count == steps)
    // Offline, from the recorded session: the same record, byte for byte.
    let offline = live.directory.appendingPathComponent("offline.toml").path
    let r = try Panelctl.run(["calibrate", "--board", "boards/\(board).toml", "--session", live.session, "--out", offline])
    #expect(r.status == 0, "\(r.stderr)")
    // A pass says so in one line, also when standard error is not a terminal.
    let stem = String(offline.dropLast(5))
    #expect(r.stderr == "calibration passed: \(offline); certificate \(stem).certificate.html\n", "\(r.stderr)")
    #expect(live.result.stderr.hasSuffix("; certificate \(String(live.record.dropLast(5))).certificate.html\n"), "\(live.result.stderr)")
    let a = try String(contentsOfFile: live.record, encoding: .utf8)
    let b = try String(contentsOfFile: offline, encoding: .utf8)
    #expect(a == b)
    #expect(a.contains("result = \"pass\""))
    // The record loads for the board and runs a replay.
    let record = try CalibrationRecord.load(path: live.record, board: Board.load(path: Panelctl.root + "/boards/\(board).toml"))
    #expect(record.source == "session")
    #expect(record.checks.allSatisfy { $0.passed })
  }

  /// docs/calibration.md's screenshot command opens a page that a fresh
  /// clone makes with the lines before it: they run (bash, panelctl on
  /// PATH) and the page is there.
  @Test func theScreenshotCommandMakesTheFileItOpens() throws {
    let doc = try String(contentsOfFile: Panelctl.root + "/docs/calibration.md", encoding: .utf8)
    let block = try #require(doc.components(separatedBy: "```sh\n").first { $0.contains("--screenshot=") })
    let lines = block.components(separatedBy: "```")[0]
    let before = try #require(lines.components(separatedBy: "chromium ").first)
    let opened = try #require(lines.range(of: "\"file://")).upperBound
    let page = String(lines[opened...].prefix { $0 != "\"" })
    let script = before + "\ntest -f \"\(page)\" || { echo \"no \(page)\" >&2; exit 3; }\nrm -r \"$dir\"\n"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-euc", script]
    process.currentDirectoryURL = URL(fileURLWithPath: Panelctl.root)
    var environment = ProcessInfo.processInfo.environment
    let bin = URL(fileURLWithPath: Panelctl.executable).deletingLastPathComponent().path
    environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    process.environment = environment
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(script)\n\(message)")
  }

  /// Accuracy on placements the fit never saw, through the pipeline, against
  /// the single-point method in the same run.
  @Test(arguments: ["sim-plate4", "sim-grid"])
  func accuracyOnVerificationPlacementsBeatsTheSinglePointMethod(_ board: String) throws {
    let live = try Self.run(board)
    let s = try Self.summary(live.summary)
    #expect(s.result == "pass")
    #expect(s.accuracy.placements >= 16)
    #expect(s.accuracy.worst_force_error_pct <= 1.0)
    #expect(s.accuracy.position_rms_mm <= (board == "sim-plate4" ? 1.0 : 1.5))
    let singleForce = try #require(s.single_point.worst_force_error_pct)
    let singlePosition = try #require(s.single_point.position_rms_mm)
    if board == "sim-plate4" {
      // Nominal shares put the centre of pressure millimetres off.
      #expect(singlePosition > 3 * s.accuracy.position_rms_mm && singlePosition > 1.0)
    } else {
      // One weight, one cell: the cell's neighbours carry much of the weight.
      #expect(singleForce > 10)
    }
    print("\(board): calibrated worst force \(s.accuracy.worst_force_error_pct) %, position RMS \(s.accuracy.position_rms_mm) mm (max \(s.accuracy.position_max_mm)); single point worst force \(singleForce) %, position RMS \(singlePosition) mm")
  }

  static func expectOneLine(_ r: Panelctl.Result, status: Int32, contains parts: [String]) {
    #expect(r.status == status, "status \(r.status): \(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1, "stderr: \(r.stderr)")
    #expect(r.stderr.hasPrefix("panelctl: error: "))
    for p in parts { #expect(r.stderr.contains(p), "missing \"\(p)\" in: \(r.stderr)") }
  }

  /// Faulty panels fail their checks (exit 2) naming the cell, and the
  /// previous calibration stays in place with its certificate; the failed
  /// run's certificate is written beside them under its own name.
  @Test(arguments: [
    ("sim-plate4-dead-cell", ["cell 2", "no response to load"]),
    ("sim-plate4-nonlinear-cell", ["cell 1", "non-linearity"]),
  ])
  func faultyPanelFailsNamingTheCell(_ panel: String, _ parts: [String]) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let cal = dir.appendingPathComponent("cal.toml").path
    let good = try String(contentsOfFile: Panelctl.root + "/calibration/sim-plate4.toml", encoding: .utf8)
    try good.write(toFile: cal, atomically: true, encoding: .utf8)
    let certificate = dir.appendingPathComponent("cal.certificate").path
    try "the good record's".write(toFile: certificate + ".json", atomically: true, encoding: .utf8)
    try "the good record's".write(toFile: certificate + ".html", atomically: true, encoding: .utf8)
    let r = try Panelctl.run([
      "calibrate", "--board", "Tests/Fixtures/calibration/\(panel).toml", "--plan", "calibration/plans/sim-plate4.toml",
      "--mode", "unattended", "--speed", "0", "--session", dir.appendingPathComponent("session").path, "--out", cal,
    ])
    Self.expectOneLine(r, status: 2, contains: ["calibration failed"] + parts + ["see \(dir.path)/cal.failed.certificate.html"])
    #expect(try String(contentsOfFile: cal, encoding: .utf8) == good, "a failed calibration replaced the good one")
    for ext in [".json", ".html"] {
      #expect(try String(contentsOfFile: certificate + ext, encoding: .utf8) == "the good record's")
    }
    let summary = try Self.summary(dir.appendingPathComponent("cal.failed.certificate.json").path)
    #expect(summary.result == "fail")
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("cal.failed.certificate.html").path))
  }

  /// Copies the plate's live session and edits its plan.toml.
  static func editedSession(_ edit: (String) -> String) throws -> (URL, String) {
    let live = try run("sim-plate4")
    let dir = try Panelctl.temporaryDirectory()
    let session = dir.appendingPathComponent("session")
    try FileManager.default.copyItem(atPath: live.session, toPath: session.path)
    let plan = session.appendingPathComponent("plan.toml").path
    let text = try String(contentsOfFile: plan, encoding: .utf8)
    try edit(text).write(toFile: plan, atomically: true, encoding: .utf8)
    return (dir, session.path)
  }

  /// `text` with the first `key = ...` line after `file = "FILE"` replaced.
  static func set(_ key: String, _ value: String, step file: String, in text: String) -> String {
    var lines = text.components(separatedBy: "\n")
    guard let at = lines.firstIndex(of: "file = \"\(file)\"") else { return text }
    var i = at + 1
    while i < lines.count && !lines[i].hasPrefix("[[step]]") {
      if lines[i].hasPrefix("\(key) =") {
        lines[i] = "\(key) = \(value)"
        return lines.joined(separator: "\n")
      }
      i += 1
    }
    lines.insert("\(key) = \(value)", at: at + 1)
    return lines.joined(separator: "\n")
  }

  @Test func sessionWithAWrongMassFailsNamingTheStep() throws {
    // Step 8 is the 500 g at (80, 15); the session says 200 g.
    let (dir, session) = try Self.editedSession { Self.set("load_g", "200.0", step: "step-08.csv", in: $0) }
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run([
      "calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", dir.appendingPathComponent("c.toml").path,
    ])
    Self.expectOneLine(r, status: 2, contains: ["step 8 (step-08.csv)", "200 g", "500 g"])
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.toml").path))
  }

  // MARK: Bad input: one line, exit 1

  @Test func sessionWithAMissingStepFile() throws {
    let (dir, session) = try Self.editedSession { $0 }
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.removeItem(atPath: session + "/step-05.csv")
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", dir.path + "/c.toml"])
    Self.expectOneLine(r, status: 1, contains: ["plan.toml:", "step[5] file", "step-05.csv does not exist"])
  }

  @Test func sessionWithAFitStepWithoutLoad() throws {
    let (dir, session) = try Self.editedSession { Self.set("load_g", "0.0", step: "step-03.csv", in: $0) }
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", dir.path + "/c.toml"])
    Self.expectOneLine(r, status: 1, contains: ["plan.toml:", "step[3] load_g", "needs a load greater than 0"])
  }

  @Test func sessionWithAPositionOffThePanel() throws {
    let (dir, session) = try Self.editedSession { Self.set("x_mm", "171.0", step: "step-02.csv", in: $0) }
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", dir.path + "/c.toml"])
    Self.expectOneLine(r, status: 1, contains: ["plan.toml:", "step[2] x_mm", "off the panel"])
  }

  @Test func sessionFromAnotherBoard() throws {
    let live = try Self.run("sim-plate4")
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-grid.toml", "--session", live.session, "--out", dir.path + "/c.toml"])
    Self.expectOneLine(r, status: 1, contains: ["plan.toml:", "board", "for board \"sim-plate4\", not \"sim-grid\""])
  }

  @Test(arguments: [
    ("loads_g = [100.0, 250.0, 500.0]", "loads_g = [100.0, 0.0, 500.0]", ["step[2] loads_g", "needs a load greater than 0"]),
    ("[6.0, 6.0], [154.0, 6.0]", "[6.0, 6.0], [154.0, -6.0]", ["step[2] positions[11]", "off the panel"]),
    ("board = \"sim-plate4\"", "board = \"sim-grid\"", ["[plan] board", "for boards \"sim-grid\", \"sim-plate4-nau7802\"", "not \"sim-plate4\""]),
  ])
  func badPlan(_ from: String, _ to: String, _ parts: [String]) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try String(contentsOfFile: Panelctl.root + "/calibration/plans/sim-plate4.toml", encoding: .utf8)
    #expect(text.contains(from))
    let plan = dir.appendingPathComponent("plan.toml").path
    try text.replacingOccurrences(of: from, with: to).write(toFile: plan, atomically: true, encoding: .utf8)
    let r = try Panelctl.run([
      "calibrate", "--board", "boards/sim-plate4.toml", "--plan", plan, "--mode", "unattended", "--speed", "0",
      "--session", dir.path + "/s", "--out", dir.path + "/c.toml",
    ])
    Self.expectOneLine(r, status: 1, contains: [plan + ":"] + parts)
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/s"))
  }

  // MARK: Fixture controller on stdin

  @Test func fixtureControllerAdvancesTheStepsOnItsLines() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let steps = try CalibrationPlan.load(
      path: Panelctl.root + "/calibration/plans/sim-plate4.toml",
      board: Board.load(path: Panelctl.root + "/boards/sim-plate4.toml")).steps.count
    let r = try Panelctl.run(
      [
        "calibrate", "--board", "boards/sim-plate4.toml", "--plan", "calibration/plans/sim-plate4.toml", "--mode",
        "fixture", "--speed", "0", "--session", dir.path + "/s", "--out", dir.path + "/c.toml",
      ], input: String(repeating: "ready\n", count: steps))
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.lines
    #expect(lines.first == "step=1 of=\(steps) role=tare load_g=0.0")
    #expect(lines.contains("step=2 of=\(steps) role=fit load_g=100.0 x_mm=20.0 y_mm=15.0"))
    #expect(lines.filter { $0.hasPrefix("done step=") }.count == steps)
    #expect(lines.last == "result=pass")
  }

  @Test func fixtureControllerAborts() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run(
      [
        "calibrate", "--board", "boards/sim-plate4.toml", "--plan", "calibration/plans/sim-plate4.toml", "--mode",
        "fixture", "--speed", "0", "--session", dir.path + "/s", "--out", dir.path + "/c.toml",
      ], input: "ready\nready\nabort\n")
    #expect(r.status == 1)
    #expect(r.stderr.contains("stopped at step 3 (step-03.csv): the fixture controller aborted"), "\(r.stderr)")
    // Incomplete: no plan.toml, no record.
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/s/plan.toml"))
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/c.toml"))
  }
}

extension CalibrateTests {
  /// A support that also feels its neighbour's load: the residuals show it,
  /// the fit adds a coupling matrix, and the panel passes; a healthy panel
  /// gets none.
  @Test func crossTalkIsCorrectedByACouplingMatrix() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run([
      "calibrate", "--board", "Tests/Fixtures/calibration/sim-plate4-crosstalk.toml", "--plan",
      "calibration/plans/sim-plate4.toml", "--mode", "unattended", "--speed", "0", "--session", dir.path + "/s",
      "--out", dir.path + "/c.toml",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let record = try String(contentsOfFile: dir.path + "/c.toml", encoding: .utf8)
    #expect(record.contains("[coupling]"))
    let s = try Self.summary(dir.path + "/c.certificate.json")
    #expect(s.accuracy.worst_force_error_pct <= 1.0)
    #expect(s.accuracy.position_rms_mm <= 1.0)
    let healthy = try String(contentsOfFile: try Self.run("sim-plate4").record, encoding: .utf8)
    #expect(!healthy.contains("[coupling]"))
  }
}

extension CalibrateTests {
  /// The same plan on the plate's simulated twin: the real NAU7802 drivers
  /// on simulated chips; the passing record also goes to the panel's 24C32.
  @Test func aTwinBoardIsCalibratedThroughItsDriversAndStoresTheRecordOnThePanel() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run([
      "calibrate", "--board", "boards/sim-plate4-nau7802.toml", "--plan", "calibration/plans/sim-plate4.toml",
      "--mode", "unattended", "--speed", "0", "--session", dir.path + "/s", "--out", dir.path + "/c.toml",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    struct Stored: Decodable { var result: String; var stored: String }
    let s = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: dir.appendingPathComponent("c.certificate.json")))
    #expect(s.result == "pass")
    #expect(s.stored.hasPrefix("stored on the panel (sim address 0x50 (24C32)): two copies, sequence 1, read back and verified"), "\(s.stored)")
    let record = try String(contentsOfFile: dir.path + "/c.toml", encoding: .utf8)
    #expect(record.contains("board = \"sim-plate4-nau7802\"") && record.contains("serial = \"SIM-PLATE4-N-0001\""))
  }
}

extension CalibrateTests {
  /// A fixture's session with only the contract's keys (no roles, no
  /// limits) is computed with roles inferred; a grid session that never
  /// loads most of the panel fails naming a cell it cannot calibrate.
  @Test func aContractOnlySessionThatLoadsOnlyOneRowFailsOnCoverage() throws {
    let live = try Self.run("sim-grid")
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // Steps 1-25 of the grid plan: the tare, then 200 g, 500 g and a zero on cells 0-7.
    var plan = "board = \"sim-grid\"\nserial = \"SIM-GRID-0001\"\n"
    for step in 1...25 {
      let file = String(format: "step-%03d.csv", step)
      try FileManager.default.copyItem(atPath: live.session + "/" + file, toPath: dir.path + "/" + file)
      let cell = (step - 2) / 3
      switch (step - 2) % 3 {
      case _ where step == 1: plan += "\n[[step]]\nfile = \"\(file)\"\nload_g = 0\n"
      case 0, 1:
        let load = (step - 2) % 3 == 0 ? 200 : 500
        plan += "\n[[step]]\nfile = \"\(file)\"\nload_g = \(load)\nx_mm = \(cell * 20 + 10)\ny_mm = 10\n"
      default: plan += "\n[[step]]\nfile = \"\(file)\"\nload_g = 0\n"
      }
    }
    try plan.write(toFile: dir.path + "/plan.toml", atomically: true, encoding: .utf8)
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-grid.toml", "--session", dir.path, "--out", dir.path + "/c.toml"])
    Self.expectOneLine(r, status: 2, contains: ["cell 16: coverage", "no fit placement within one pitch"])
    let s = try Self.summary(dir.path + "/c.failed.certificate.json")
    #expect(s.result == "fail")
  }
}

extension CalibrateTests {
  /// A fixture's session may carry fields of its own (docs/formats.md: "a
  /// field may be added to any format"): a key in plan.toml, a column in a
  /// step recording. They are warnings, and the calibration goes on.
  @Test func aSessionWithFieldsOfItsOwnIsComputedWithWarnings() throws {
    let (dir, session) = try Self.editedSession { "operator = \"bob\"\n" + $0 }
    defer { try? FileManager.default.removeItem(at: dir) }
    let step = session + "/step-05.csv"
    let rows = try String(contentsOfFile: step, encoding: .utf8).split(separator: "\n")
    let widened = [rows[0] + ",fixture_note"] + rows.dropFirst().map { $0 + ",ok" }
    try (widened.joined(separator: "\n") + "\n").write(toFile: step, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", session, "--out", dir.path + "/c.toml"])
    #expect(r.status == 0, "\(r.stderr)")
    let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("panelctl: warning: ") }
    #expect(
      warnings == [
        "panelctl: warning: \(session)/plan.toml:1: operator: not a key panelctl reads: ignored",
        "panelctl: warning: \(step):1: column 7: \"fixture_note\" is not a recording column: ignored",
      ], "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.path + "/c.toml"))
  }

  @Test func aMissingSessionDirectoryIsNamed() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try Panelctl.run(["calibrate", "--board", "boards/sim-plate4.toml", "--session", dir.path + "/none", "--out", dir.path + "/c.toml"])
    Self.expectOneLine(r, status: 1, contains: ["\(dir.path)/none: no such session directory"])
  }
}
