import Foundation
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelCalibration
@testable import PanelFormats

/// Sessions are written by factory fixtures (other programs): what they add
/// is skipped with a warning; what they give is checked and found where
/// the checks found it.
@Suite struct SessionFileTests {
  /// A contract-only plate session in `dir`: a tare and one load, with the
  /// step files named `files` (relative or absolute).
  static func write(in dir: String, files: [String], extraPlan: String = "", extraStep: String = "", header: String = "t_us,raw_0,raw_1,raw_2,raw_3") throws {
    var plan = "board = \"sim-plate4\"\nserial = \"P-1\"\n\(extraPlan)"
    for (i, file) in files.enumerated() {
      let path = file.hasPrefix("/") ? file : dir + "/" + file
      try (header + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      plan += "\n[[step]]\nfile = \"\(file)\"\nload_g = \(i == 0 ? 0 : 200)\n\(extraStep)"
      if i > 0 { plan += "x_mm = 80.0\ny_mm = 50.0\n" }
    }
    try plan.write(toFile: dir + "/plan.toml", atomically: true, encoding: .utf8)
  }

  /// An absolute step path is read where the loader checked it exists.
  @Test func anAbsoluteStepFileIsReadFromWhereItIs() throws {
    let board = try Repo.board("sim-plate4")
    let dir = try CalibrationTests.temporaryDirectory()
    let elsewhere = try CalibrationTests.temporaryDirectory()
    defer {
      try? FileManager.default.removeItem(atPath: dir)
      try? FileManager.default.removeItem(atPath: elsewhere)
    }
    try Self.write(in: dir, files: ["step-01.csv", elsewhere + "/loaded.csv"])
    let session = try CalibrationSession.load(directory: dir, board: board)
    #expect(session.path(of: session.steps[0]) == dir + "/step-01.csv")
    #expect(session.path(of: session.steps[1]) == elsewhere + "/loaded.csv")
  }

  @Test func aMissingSessionDirectoryIsNamed() throws {
    let board = try Repo.board("sim-plate4")
    let dir = try CalibrationTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(
      ErrorText.message { _ = try CalibrationSession.load(directory: dir + "/nope", board: board) }
        == "\(dir)/nope: no such session directory")
    try "x".write(toFile: dir + "/file", atomically: true, encoding: .utf8)
    #expect(
      ErrorText.message { _ = try CalibrationSession.load(directory: dir + "/file", board: board) }
        == "\(dir)/file: is not a directory (a session is a directory)")
    #expect(
      ErrorText.message { _ = try CalibrationSession.load(directory: dir, board: board) }
        == "\(dir)/plan.toml: no such file: the session is incomplete (plan.toml is written last) or not a session")
  }

  /// Fields a fixture adds (docs/formats.md: "a field may be added to any
  /// format") are warnings, one line each, naming file, line and key.
  @Test func keysAndColumnsAFixtureAddsAreWarnings() throws {
    let board = try Repo.board("sim-plate4")
    let dir = try CalibrationTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Self.write(
      in: dir, files: ["a.csv", "b.csv"], extraPlan: "operator = \"bob\"\n", extraStep: "fixture_id = 7\n",
      header: "t_us,raw_0,raw_1,raw_2,raw_3,temp_c,humidity")
    let session = try CalibrationSession.load(directory: dir, board: board)
    #expect(session.steps.count == 2)
    #expect(
      session.warnings.map(\.description) == [
        "\(dir)/plan.toml:3: operator: not a key panelctl reads: ignored",
        "\(dir)/plan.toml:8: step[1] fixture_id: not a key panelctl reads: ignored",
        "\(dir)/plan.toml:13: step[2] fixture_id: not a key panelctl reads: ignored",
        "\(dir)/a.csv:1: column 7: \"humidity\" is not a recording column: ignored",
        "\(dir)/b.csv:1: column 7: \"humidity\" is not a recording column: ignored",
      ])
  }

  /// Plans are edited by hand: there an unknown key is still a typo.
  @Test func aPlansUnknownKeyIsStillAnError() throws {
    let board = try Repo.board("sim-plate4")
    let text = try TextFile.read(path: Repo.path("calibration/plans/sim-plate4.toml"))
      .replacingOccurrences(of: "creep_pct = 1.0", with: "creep_pct = 1.0\nnoise_nn = 1")
    let error = ErrorText.message { _ = try CalibrationPlan(table: TOML.parse(text, file: "p.toml"), board: board) }
    #expect(error?.contains("[limits] noise_nn: unknown key") == true, "\(error ?? "loaded")")
  }

  @Test(arguments: [
    ("temp_c = 151", "step[1] temp_c: must be -60...150 degC, is 151.0"),
    ("record_s = 1e300", "step[1] record_s: must be greater than 0 and at most 3600 s, is 1e+300"),
  ])
  func sessionStepValuesAreBounded(_ change: (String, String)) throws {
    let board = try Repo.board("sim-plate4")
    let dir = try CalibrationTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Self.write(in: dir, files: ["a.csv", "b.csv"])
    let plan = try TextFile.read(path: dir + "/plan.toml")
      .replacingOccurrences(of: "load_g = 0\n", with: "load_g = 0\n\(change.0)\n")
    try plan.write(toFile: dir + "/plan.toml", atomically: true, encoding: .utf8)
    let error = ErrorText.message { _ = try CalibrationSession.load(directory: dir, board: board) }
    #expect(error == "\(dir)/plan.toml:7: \(change.1)")
  }
}
