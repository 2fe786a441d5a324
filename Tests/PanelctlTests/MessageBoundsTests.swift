import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What panelctl prints stays one bounded line, and names from files cannot
/// drive the terminal; runs started together get folders of their own.
@Suite struct MessageBoundsTests {
  /// A board file under a long path (about 900 characters) with an
  /// unknown key in a simulated `[frontend]` (whose message lists every
  /// key it knows): the error is one line of at most 500 characters,
  /// `panelctl: error: ` and the closing `...` included.
  @Test func anErrorLineIsAtMost500CharactersWhole() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var folder = dir
    for k in 0..<9 { folder.appendPathComponent(String(repeating: Character(String(k)), count: 100)) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let board = folder.appendingPathComponent("b.toml").path
    let text = try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4.toml", encoding: .utf8)
    try text.replacingOccurrences(of: "[frontend]\n", with: "[frontend]\nvolume = 11\n")
      .write(toFile: board, atomically: true, encoding: .utf8)
    for arguments in [["info", "--board", board], ["stream", "--board", board, "--frames", "1", "--speed", "0"]] {
      let r = try Panelctl.run(arguments)
      #expect(r.status == 1)
      let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(lines.count == 2 && lines[1].isEmpty, "\(r.stderr)")
      #expect(lines[0].count <= 500 && lines[0].hasPrefix("panelctl: error: ") && lines[0].hasSuffix("..."), "\(lines[0].count)")
    }
  }

  /// A board named with escape sequences (set the terminal's title, clear
  /// the screen): `info` prints them escaped.
  @Test func namesFromFilesArePrintedEscaped() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // The board names its scenario as ../scenarios/...: the folder beside it.
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("boards"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: dir.path + "/scenarios", withDestinationPath: Panelctl.root + "/scenarios")
    let board = dir.appendingPathComponent("boards/b.toml").path
    let text = try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4.toml", encoding: .utf8)
    try text.replacingOccurrences(of: "name = \"sim-plate4\"", with: #"name = "x\e]0;owned\u0007\e[2J""#)
      .write(toFile: board, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(["info", "--board", board, "--frames", "4"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\u{7}"))
    #expect(r.stdout.contains(#"x\u{1B}]0;owned\u{7}\u{1B}[2J"#), "\(r.stdout)")
  }

  /// Two live calibrations started in the same second with the default
  /// session folder: each records into a folder of its own, both pass.
  @Test func liveCalibrationsStartedTogetherGetTheirOwnSessions() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let boards = dir.appendingPathComponent("boards")
    try FileManager.default.createDirectory(at: boards, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Panelctl.root + "/boards/sim-plate4.toml", toPath: boards.path + "/p.toml")
    let results = Panelctl.Collected()
    var statuses: [String] = []
    DispatchQueue.concurrentPerform(iterations: 2) { k in
      let r = try? Panelctl.run([
        "calibrate", "--board", boards.path + "/p.toml", "--plan", Panelctl.root + "/calibration/plans/sim-plate4.toml",
        "--mode", "unattended", "--speed", "0", "--out", dir.path + "/c\(k).toml",
      ])
      results.lock.lock()
      results.data.append(contentsOf: Array("\(r?.status ?? -1) \(r?.stderr ?? "no run")\n".utf8))
      results.lock.unlock()
    }
    statuses = String(decoding: results.data, as: UTF8.self).split(separator: "\n").map(String.init)
    #expect(statuses.filter { $0.hasPrefix("0 ") }.count == 2, "\(statuses)")
    let sessions = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/calibration/sessions")
    #expect(sessions.count == 2, "\(sessions)")
  }
}
