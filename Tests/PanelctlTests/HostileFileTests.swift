import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Files that are not files: `/dev/zero`, `/dev/urandom` and a named pipe
/// with no writer, given as every kind of file argument and named inside
/// files and control lines. Each is refused before it is read: exit 1, one
/// line naming the file (a watchdog kills a run that blocks in open() or
/// reads without end: 5 s, which a refusal — 20 ms on an idle machine —
/// meets on a loaded one too, and a read of /dev/zero never does).
@Suite struct HostileFileTests {
  /// What panelctl is handed instead of a file.
  enum Hostile: String, CaseIterable, CustomStringConvertible {
    case zero = "/dev/zero"
    case urandom = "/dev/urandom"
    case pipe = "a named pipe without a writer"

    var description: String { rawValue }

    /// The path, and what the refusal says.
    func path(in dir: URL) throws -> (path: String, says: String) {
      switch self {
      case .zero, .urandom: return (rawValue, "is a character device, not a regular file")
      case .pipe:
        let fifo = dir.appendingPathComponent("pipe").path
        if access(fifo, F_OK) != 0 { #expect(mkfifo(fifo, 0o600) == 0) }
        return (fifo, "is a named pipe, not a regular file")
    }
    }
  }

  /// Every kind of file argument, with `X` where the hostile path goes and
  /// `D` for a scratch directory.
  static let arguments: [(name: String, arguments: [String])] = [
    ("board", ["stream", "--board", "X", "--frames", "5", "--speed", "0"]),
    ("calibration", ["stream", "--board", "boards/sim-plate4.toml", "--calibration", "X", "--frames", "5", "--speed", "0"]),
    ("scenario", ["stream", "--board", "boards/sim-plate4.toml", "--scenario", "X", "--frames", "5", "--speed", "0"]),
    ("regions", ["stream", "--board", "boards/sim-plate4.toml", "--regions", "X", "--frames", "5", "--speed", "0"]),
    ("recording", ["replay", "X", "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml"]),
    ("record board", ["record", "--board", "X", "--out", "D/r.csv", "--frames", "5", "--speed", "0"]),
    ("plan", ["calibrate", "--board", "boards/sim-plate4.toml", "--plan", "X", "--mode", "unattended", "--speed", "0", "--session", "D/s", "--out", "D/c.toml"]),
    ("core script", ["core", "run", "X"]),
    ("core export recording", ["core", "export", "X", "--board", "boards/sim-plate4.toml"]),
    ("info board", ["info", "--board", "X"]),
    ("sim truth board", ["sim", "truth", "--board", "X", "--out", "D/t.toml"]),
  ]

  static func expectRefused(_ r: Panelctl.Result, path: String, says: String, _ what: String) {
    #expect(r.status == 1, "\(what): status \(r.status): \(r.stderr)")
    #expect(r.stderr == "panelctl: error: \(path): \(says)\n", "\(what): \(r.stderr)")
  }

  @Test(arguments: Hostile.allCases)
  func everyFileArgumentRefusesWhatIsNotAFile(_ hostile: Hostile) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (path, says) = try hostile.path(in: dir)
    for (name, template) in Self.arguments {
      let arguments = template.map { $0 == "X" ? path : $0.replacingOccurrences(of: "D/", with: dir.path + "/") }
      let r = try Panelctl.run(arguments, input: nil, timeout: 5)
      Self.expectRefused(r, path: path, says: says, name)
    }
  }

  /// The control channel takes a named pipe (that is what it is for) but
  /// no device.
  @Test(arguments: [Hostile.zero, .urandom])
  func theControlChannelRefusesADevice(_ hostile: Hostile) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (path, _) = try hostile.path(in: dir)
    let r = try Panelctl.run(
      ["stream", "--board", "boards/sim-plate4.toml", "--control", path, "--frames", "5", "--speed", "0"], input: nil,
      timeout: 5)
    Self.expectRefused(r, path: path, says: "is a character device, not a regular file or a named pipe", "control")
  }

  /// Files named inside files: a session's plan and its step recordings.
  @Test(arguments: Hostile.allCases)
  func filesNamedInsideASessionAreRefused(_ hostile: Hostile) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (path, says) = try hostile.path(in: dir)
    let session = dir.appendingPathComponent("s")
    try FileManager.default.createDirectory(at: session, withIntermediateDirectories: true)
    // The plan itself.
    try FileManager.default.createSymbolicLink(atPath: session.path + "/plan.toml", withDestinationPath: path)
    var r = try Panelctl.run(
      ["calibrate", "--board", "boards/sim-plate4.toml", "--session", session.path, "--out", dir.path + "/c.toml"],
      input: nil, timeout: 5)
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: \(session.path)/plan.toml: \(says)\n", "\(r.stderr)")
    // A step's recording, named by the plan.
    try FileManager.default.removeItem(atPath: session.path + "/plan.toml")
    let steps = "[[step]]\nfile = \"\(path)\"\nload_g = 0.0\n\n[[step]]\nfile = \"\(path)\"\nload_g = 200.0\nx_mm = 80.0\ny_mm = 50.0\n"
    try ("board = \"sim-plate4\"\nserial = \"P-1\"\n\n" + steps).write(
      toFile: session.path + "/plan.toml", atomically: true, encoding: .utf8)
    r = try Panelctl.run(
      ["calibrate", "--board", "boards/sim-plate4.toml", "--session", session.path, "--out", dir.path + "/c.toml"],
      input: nil, timeout: 5)
    #expect(r.status == 1)
    #expect(r.stderr.hasPrefix("panelctl: error: \(path): \(says)"), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
  }

  /// A control line `regions FILE` naming a device or a pipe: a warning,
  /// and the stream runs to its end.
  @Test(arguments: Hostile.allCases)
  func aControlLineNamingWhatIsNotAFileIsAWarning(_ hostile: Hostile) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (path, says) = try hostile.path(in: dir)
    let control = dir.appendingPathComponent("c.control").path
    try "regions \(path)\n".write(toFile: control, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(
      ["stream", "--board", "boards/sim-plate4.toml", "--control", control, "--frames", "40", "--speed", "0", "--idle"],
      input: nil, timeout: 5)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.lines.count == 40)
    #expect(r.stderr == "panelctl: warning: \(path): \(says)\n", "\(r.stderr)")
  }

  /// A file over its size limit is refused, the limit named.
  @Test func aFileOverItsLimitIsRefusedNamingTheLimit() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let big = dir.appendingPathComponent("big.toml").path
    #expect(FileManager.default.createFile(atPath: big, contents: Data(count: (4 << 20) + 1)))
    var r = try Panelctl.run(["stream", "--board", big, "--frames", "5"], input: nil, timeout: 5)
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: \(big): larger than 4 MiB (the limit for a TOML file)\n", "\(r.stderr)")
    let regions = dir.appendingPathComponent("regions.toml").path
    #expect(FileManager.default.createFile(atPath: regions, contents: Data(count: (256 << 10) + 1)))
    r = try Panelctl.run(
      ["stream", "--board", "boards/sim-plate4.toml", "--regions", regions, "--frames", "5"], input: nil, timeout: 5)
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: \(regions): larger than 256 KiB (the limit for a regions file)\n", "\(r.stderr)")
  }

  /// A fixture controller that sends an endless line: refused, one line.
  @Test func anEndlessFixtureAnswerIsRefused() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let command = [
      Panelctl.executable, "calibrate", "--board", "boards/sim-plate4.toml", "--plan", "calibration/plans/sim-plate4.toml",
      "--mode", "fixture", "--speed", "0", "--session", dir.path + "/s", "--out", dir.path + "/c.toml",
    ].map { "'\($0)'" }.joined(separator: " ")
    let r = try Shell.run("exec \(command) < /dev/zero")
    #expect(r.status == 1)
    #expect(
      r.stderr.hasPrefix("panelctl: error: calibration stopped: ")
        && r.stderr.hasSuffix("the fixture controller sent a line longer than 4096 bytes\n"), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  /// Structure without end: a 20 000-part header, 200 000 `[[touch]]`s,
  /// 200 000 `[[step]]`s, a megabyte-long value. One line each, at once,
  /// quoting at most 60 characters.
  @Test func unboundedStructureIsOneLine() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let board = try String(contentsOfFile: Panelctl.root + "/boards/sim-plate4.toml", encoding: .utf8)
    func file(_ name: String, _ text: String) throws -> String {
      let path = dir.appendingPathComponent(name).path
      try text.write(toFile: path, atomically: false, encoding: .utf8)
      return path
    }
    let header = try file("header.toml", "[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n")
    let touches = try file("touches.toml", String(repeating: "[[touch]]\n", count: 200_000))
    let steps = try file("steps.toml", "board = \"sim-plate4\"\n" + String(repeating: "[[step]]\n", count: 200_000))
    let value = try file(
      "value.toml", board.replacingOccurrences(of: "sensitivity = \"medium\"", with: "sensitivity = \"" + String(repeating: "\u{1B}x", count: 500_000) + "\""))
    let cases: [(arguments: [String], says: String)] = [
      (["stream", "--board", header, "--frames", "5"], "\(header):1: a key or table name of more than 32 parts (the limit)"),
      (["stream", "--board", "boards/sim-plate4.toml", "--scenario", touches, "--frames", "5", "--speed", "0"],
       "\(touches):10001: more than 10000 [[touch]] tables (the limit for an array of tables)"),
      (["calibrate", "--board", "boards/sim-plate4.toml", "--plan", steps, "--speed", "0", "--session", dir.path + "/s", "--out", dir.path + "/c.toml"],
       "\(steps):10002: more than 10000 [[step]] tables (the limit for an array of tables)"),
    ]
    for (arguments, says) in cases {
      let r = try Panelctl.run(arguments, input: nil, timeout: 5)
      #expect(r.status == 1)
      #expect(r.stderr == "panelctl: error: \(says)\n", "\(r.stderr.prefix(500))")
    }
    let r = try Panelctl.run(["stream", "--board", value, "--frames", "5"], input: nil, timeout: 5)
    #expect(r.status == 1)
    #expect(r.stderr.hasPrefix("panelctl: error: \(value):"), "\(r.stderr.prefix(500))")
    #expect(r.stderr.count < 300 && r.stderr.split(separator: "\n").count == 1 && !r.stderr.contains("\u{1B}"), "\(r.stderr.prefix(500))")
  }
}
