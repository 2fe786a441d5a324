import Foundation
import PanelFirmware
import Testing

/// Values far beyond anything physical, in every kind of input panelctl
/// reads: each is one line naming where it came from and the bound, and
/// a non-zero exit, never an arithmetic trap (exit 132 with a backtrace).
@Suite struct HugeValueTests {
  static let plate = Panelctl.root + "/boards/sim-plate4.toml"
  static let calibration = ["--calibration", Panelctl.root + "/calibration/sim-plate4.toml"]

  /// The plate's board with `change` applied, written to `dir`.
  static func board(_ change: (String, String), in dir: URL) throws -> String {
    let text = try String(contentsOfFile: plate, encoding: .utf8)
      .replacingOccurrences(of: "\"../scenarios/", with: "\"\(Panelctl.root)/scenarios/")
      .replacingOccurrences(of: change.0, with: change.1)
    return try BadInputTests.write(text, "b.toml", in: dir)
  }

  @Test(arguments: [
    ("rate_hz = 320", "rate_hz = 320\n[detection]\nmax_on_s = 1e300", "[detection] max_on_s", "0...86400 s"),
    ("rate_hz = 320", "rate_hz = 320\n[detection]\nhold_s = 1e15", "[detection] hold_s", "0...3600 s"),
    ("rate_hz = 320", "rate_hz = 320\n[detection]\ndrift_up_s = 1e13", "[detection] drift_up_s", "at most 3600 s"),
    ("rate_hz = 320", "rate_hz = 320\n[detection]\ndrift_down_s = 1e300", "[detection] drift_down_s", "at most 3600 s"),
    ("average_touch_n = 0.8", "average_touch_n = 1e10", "[interaction] average_touch_n", "at most 100 N"),
    ("max_force = 6.67", "max_force = 1e16", "[interaction] max_force", "at most 1000"),
    ("max_force = 6.67", "max_force = 1e300", "[interaction] max_force", "at most 1000"),
  ])
  func boardFile(_ change: (String, String, String, String)) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let board = try Self.board((change.0, change.1), in: dir)
    let r = try Panelctl.run(["stream", "--board", board, "--speed", "0", "--frames", "400"] + Self.calibration)
    BadInputTests.expectOneLineError(r, contains: [board + ":", change.2, change.3])
  }

  @Test func aGridOfHugeSize() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = try String(contentsOfFile: Panelctl.root + "/boards/sim-grid.toml", encoding: .utf8)
      .replacingOccurrences(of: "cols = 8", with: "cols = 4611686018427387904")
    let board = try BadInputTests.write(text, "g.toml", in: dir)
    let r = try Panelctl.run(["record", "--board", board, "--out", dir.path + "/r.csv", "--frames", "2"])
    BadInputTests.expectOneLineError(r, contains: [board + ":15:", "[grid] cols", "must be 1...256, is 4611686018427387904"])
  }

  @Test(arguments: [
    ("[scenario]\nduration_s = 1e300\n", "[scenario] duration_s", "at most 10000000 s"),
    ("[[touch]]\nstart_s = 1e300\nx_mm = 80.0\ny_mm = 50.0\nforce_n = 1.0\nhold_s = 0.1\n", "touch[1] start_s", "0...10000000 s"),
  ])
  func scenario(_ change: (String, String, String)) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let scenario = try BadInputTests.write(change.0, "s.toml", in: dir)
    let r = try Panelctl.run(["record", "--board", Self.plate, "--scenario", scenario, "--speed", "0", "--out", dir.path + "/r.csv"])
    BadInputTests.expectOneLineError(r, contains: [scenario + ":", change.1, change.2])
  }

  @Test(arguments: ["window_s", "settle_s", "timeout_s", "record_s"])
  func plan(_ key: String) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let lines = try String(contentsOfFile: Panelctl.root + "/calibration/plans/sim-plate4.toml", encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.hasPrefix(key + " = ") ? "\(key) = 1e300" : String($0) }
    let plan = try BadInputTests.write(lines.joined(separator: "\n"), "p.toml", in: dir)
    let r = try Panelctl.run([
      "calibrate", "--board", Self.plate, "--plan", plan, "--mode", "unattended", "--speed", "0",
      "--session", dir.path + "/s", "--out", dir.path + "/c.toml",
    ])
    BadInputTests.expectOneLineError(r, contains: [plan + ":", "[timing] \(key)", "s, is 1e+300"])
  }

  /// A record whose CRC matches its (absurd) content: the CRC says nothing
  /// was changed, the bound says it cannot be used.
  @Test func calibrationRecord() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var record = try CalibrationRecord.load(path: Panelctl.root + "/calibration/sim-plate4.toml")
    record.cells[1].offset_counts = 1e300
    let path = dir.path + "/c.toml"
    try record.write(to: path)
    let r = try Panelctl.run(["stream", "--board", Self.plate, "--calibration", path, "--speed", "0", "--frames", "10"])
    BadInputTests.expectOneLineError(r, contains: [path + ":", "cell[2] offset_counts", "-16777216...16777216 counts, is 1e+300"])
  }

  /// A control line is checked when it is read: a warning naming its line,
  /// and the run goes on (as for every bad control line).
  @Test func controlLine() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let control = try BadInputTests.write("at 1e300 sensitivity firm\nat 0.1 sensitivity light\n", "c.txt", in: dir)
    let r = try Panelctl.run(
      ["stream", "--board", Self.plate, "--control", control, "--speed", "0", "--frames", "200"] + Self.calibration)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("panelctl: warning: \(control):1: at: must be 0...10000000 s, is 1e+300"), "\(r.stderr)")
    #expect(!r.stderr.contains("Fatal error"))
    #expect(r.stdout.contains("\"sensitivity\": \"light\"") || r.stdout.contains("\"sensitivity\":\"light\""), "\(r.stdout.prefix(300))")
  }

  @Test(arguments: [
    (["stream", "--board", "boards/sim-plate4.toml", "--duration", "1e300"], "--duration 1e+300 is out of range (allowed: greater than 0 and at most 10000000 s)"),
    (["record", "--board", "boards/sim-plate4.toml", "--out", "/dev/null", "--duration", "1e300"], "is out of range (allowed: greater than 0 and at most 10000000 s)"),
    (["monitor", "--board", "boards/sim-plate4.toml", "--duration", "1e300"], "is out of range (allowed: greater than 0 and at most 10000000 s)"),
    (["listen", "--duration", "1e300"], "is out of range (allowed: greater than 0 and at most 10000000 s)"),
    (["stream", "--board", "boards/sim-plate4.toml", "--speed", "1e-300"], "--speed 1e-300 is out of range (allowed: 0 (as fast as possible) or 0.001...1000)"),
    // (--session and --out where nothing can be written, should it run.)
    (["calibrate", "--board", "boards/sim-plate4.toml", "--plan", "calibration/plans/sim-plate4.toml", "--speed", "1e300",
      "--session", "/dev/null/s", "--out", "/dev/null/c.toml"], "is out of range (allowed: 0 (as fast as possible) or 0.001...1000)"),
    (["stream", "--board", "boards/sim-plate4.toml", "--frames", "9223372036854775807"], "--frames 9223372036854775807 is out of range (allowed: 1...1000000000000)"),
  ])
  func commandLineOption(_ c: ([String], String)) throws {
    let r = try Panelctl.run(c.0)
    BadInputTests.expectOneLineError(r, contains: [c.1], status: 64)
  }

  /// Times near the ends of Int64 (whose differences overflow) are refused
  /// at the row that has them.
  @Test func recordingTimes() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = try BadInputTests.write(
      "t_us,raw_0,raw_1,raw_2,raw_3\n-9000000000000000000,1,2,3,4\n9000000000000000000,1,2,3,4\n", "r.csv", in: dir)
    let r = try Panelctl.run(["replay", csv, "--board", Self.plate] + Self.calibration)
    BadInputTests.expectOneLineError(r, contains: [csv + ":2: column t_us: -9000000000000000000 is outside", "2^62"])
  }
}
