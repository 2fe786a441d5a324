import Foundation
import Testing

/// Bad input: one line on standard error naming the file, line or field,
/// a non-zero exit, no stack trace.
@Suite struct BadInputTests {
  static func expectOneLineError(_ r: Panelctl.Result, contains parts: [String], status: Int32 = 1) {
    #expect(r.status == status, "status \(r.status): \(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1, "stderr: \(r.stderr)")
    #expect(r.stderr.hasPrefix("panelctl: error: "))
    for p in parts { #expect(r.stderr.contains(p), "missing \"\(p)\" in: \(r.stderr)") }
    #expect(!r.stderr.contains("Fatal error"))
    #expect(r.stdout.isEmpty)
  }

  static func write(_ text: String, _ name: String, in dir: URL) throws -> String {
    let path = dir.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func boardText() throws -> String {
    try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4.toml", encoding: .utf8)
  }

  @Test func boardWithAMissingKey() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try Self.boardText().replacingOccurrences(of: "rate_hz = 320", with: "")
    let board = try Self.write(text, "b.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", board, "--frames", "5"])
    Self.expectOneLineError(r, contains: [board + ":", "[sampling] rate_hz", "missing"])
  }

  @Test func boardWithAWronglyTypedKey() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try Self.boardText().replacingOccurrences(of: "width_mm = 160.0", with: "width_mm = \"wide\"")
    let board = try Self.write(text, "b.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", board, "--frames", "5"])
    Self.expectOneLineError(r, contains: [board + ":11:", "[panel] width_mm", "string"])
  }

  @Test func recordingWithAShortRow() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = try Self.write("t_us,raw_0,raw_1,raw_2,raw_3\n0,1,2,3,4\n3125,1,2,3\n", "r.csv", in: dir)
    let r = try Panelctl.run(["replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml"])
    Self.expectOneLineError(r, contains: [csv + ":3:"])
  }

  @Test func recordingWithANonNumber() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = try Self.write("t_us,raw_0,raw_1,raw_2,raw_3\n0,1,2,3,4\n3125,1,2,x3,4\n", "r.csv", in: dir)
    let r = try Panelctl.run(["replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml"])
    Self.expectOneLineError(r, contains: [csv + ":3:", "raw_2"])
  }

  @Test func scenarioOffThePanel() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let scenario = try Self.write(
      "[[touch]]\nstart_s = 0.1\nx_mm = 200.0\ny_mm = 50.0\nforce_n = 1.0\nhold_s = 0.1\n", "s.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--scenario", scenario, "--speed", "0"])
    Self.expectOneLineError(r, contains: [scenario + ":3:", "touch[1]", "off the panel"])
  }

  @Test func unknownOption() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--bogus"])
    Self.expectOneLineError(r, contains: ["--bogus"], status: 64)
  }

  @Test func missingBoardFile() throws {
    let r = try Panelctl.run(["stream", "--board", "boards/nope.toml"])
    Self.expectOneLineError(r, contains: ["boards/nope.toml"])
  }

  @Test func calibrationForAnotherBoard() throws {
    let r = try Panelctl.run([
      "replay", "/dev/null", "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-grid.toml",
    ])
    Self.expectOneLineError(r, contains: ["calibration/sim-grid.toml", "sim-grid", "sim-plate4"])
  }
}
