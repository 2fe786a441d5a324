import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One rule for every output of every command (`OutputFile`): a name that
/// exists and is neither a regular file nor a link to one is refused with
/// one line, exit 1, before any work, and left as it was; a link to a
/// regular file is followed (the file replaced, the link kept);
/// `/dev/null` and `/dev/stdout` are written to, never replaced.
@Suite struct OutputRuleTests {
  static let board = "boards/sim-plate4.toml"

  /// Every output option of every command, `X` where the output's name goes
  /// and `D` for a scratch directory.
  static let outputs: [(name: String, arguments: [String])] = [
    ("record --out", ["record", "--board", board, "--out", "X", "--frames", "5", "--speed", "0"]),
    ("stream --record", ["stream", "--board", board, "--record", "X", "--frames", "5", "--speed", "0"]),
    ("serve --record", ["serve", "--board", board, "--record", "X", "--frames", "5", "--speed", "0", "--listen", "127.0.0.1:0"]),
    ("sim truth --out", ["sim", "truth", "--board", board, "--out", "X"]),
    (
      "calibrate --out (live)",
      ["calibrate", "--board", board, "--plan", "calibration/plans/sim-plate4.toml", "--mode", "unattended", "--speed", "0",
       "--session", "D/session", "--out", "X"]
    ),
    ("sim evaluate --json", ["sim", "evaluate", "--quick", "--panels", "1", "--out", "D/eval", "--json", "X"]),
  ]

  static func arguments(_ template: [String], _ path: String, _ dir: String) -> [String] {
    template.map { $0 == "X" ? path : $0.replacingOccurrences(of: "D/", with: dir + "/") }
  }

  static func refusal(_ path: String, _ what: String) -> String {
    "panelctl: error: \(path): \(what): an output must be a new name, a regular file or a link to one (or /dev/null, /dev/stdout); nothing was written\n"
  }

  /// What a name is (its type and device numbers), to see it left intact.
  static func identity(_ path: String) -> (type: mode_t, device: dev_t)? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return (info.st_mode & S_IFMT, info.st_rdev)
  }

  /// The reproduction: as root, `record --out` on a device node
  /// (a private one, made with mknod in a temporary directory: the same
  /// numbers as /dev/full) is refused and the node is left as it was.
  @Test(.enabled(if: geteuid() == 0, "mknod needs root (CI runs as root)"))
  func aDeviceNodeIsRefusedAndLeftIntact() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let node = dir.appendingPathComponent("node").path
    // makedev(1, 7) in Linux's encoding (major << 8 | minor for small numbers).
    #expect(mknod(node, S_IFCHR | 0o600, dev_t(1 << 8 | 7)) == 0)
    let before = try #require(Self.identity(node))
    for (name, template) in Self.outputs {
      let r = try Panelctl.run(Self.arguments(template, node, dir.path))
      #expect(r.status == 1, "\(name): \(r.stderr)")
      #expect(r.stderr == Self.refusal(node, "is a character device"), "\(name)")
      #expect(r.stdout.isEmpty, "\(name): \(r.stdout)")
      let after = try #require(Self.identity(node), "\(name): the node is gone")
      #expect(after.type == before.type && after.device == before.device, "\(name)")
    }
    // Nothing beside it: no .partial, no runs, no session recorded.
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(left == ["node"], "\(left)")
  }

  /// A named pipe (nobody reading it: a writer would block) and a
  /// directory, for every output option: refused at once, left intact.
  @Test func aNamedPipeOrADirectoryIsRefused() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let fifo = dir.appendingPathComponent("fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let folder = dir.appendingPathComponent("folder").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    let link = dir.appendingPathComponent("link").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "fifo")
    let dangling = dir.appendingPathComponent("dangling").path
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "nowhere/x")
    let cases = [
      (fifo, "is a named pipe"), (folder, "is a directory"), (link, "leads to a named pipe (\(dir.path)/fifo)"),
      (dangling, "is a symbolic link to nothing (\(dir.path)/nowhere/x)"),
    ]
    for (path, what) in cases {
      for (name, template) in Self.outputs {
        let r = try Panelctl.run(Self.arguments(template, path, dir.path), input: nil, timeout: 20)
        #expect(r.status == 1, "\(name) \(path): \(r.stderr)")
        #expect(r.stderr == Self.refusal(path, what), "\(name)")
      }
    }
    #expect(Self.identity(fifo)?.type == S_IFIFO)
    #expect(Self.identity(link)?.type == S_IFLNK)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(left == ["dangling", "fifo", "folder", "link"], "\(left)")
  }

  /// A link to a regular file is followed: the file it names is replaced
  /// (atomically, through a `.partial` beside it), the link stays a link.
  @Test func aLinkToARegularFileIsFollowedAndKept() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let data = dir.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: false)
    let real = data.appendingPathComponent("run.csv").path
    try "old\n".write(toFile: real, atomically: true, encoding: .utf8)
    let link = dir.appendingPathComponent("latest.csv").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "data/run.csv")
    let r = try Panelctl.run(["record", "--board", Self.board, "--out", link, "--frames", "5", "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "data/run.csv")
    let text = try String(contentsOfFile: real, encoding: .utf8)
    #expect(text.hasPrefix("t_us,raw_0,raw_1,raw_2,raw_3,temp_c\n") && text.split(separator: "\n").count == 6, "\(text)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: data.path) == ["run.csv"])

    // The calibration record: the file the link names becomes the set.
    let record = data.appendingPathComponent("cal.toml").path
    try "old\n".write(toFile: record, atomically: true, encoding: .utf8)
    let calLink = dir.appendingPathComponent("cal.toml").path
    try FileManager.default.createSymbolicLink(atPath: calLink, withDestinationPath: "data/cal.toml")
    let t = try Panelctl.run(["sim", "truth", "--board", Self.board, "--out", calLink])
    #expect(t.status == 0, "\(t.stderr)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: calLink) == "data/cal.toml")
    #expect(try String(contentsOfFile: calLink, encoding: .utf8).contains("[integrity]"))
  }

  /// `/dev/null` and `/dev/stdout`, named as such, are written to and
  /// stay what they are.
  @Test func devNullAndDevStdoutAreWrittenTo() throws {
    let before = try #require(Self.identity("/dev/null"))
    #expect(before.type == S_IFCHR)
    for arguments in [
      ["record", "--board", Self.board, "--out", "/dev/null", "--frames", "5", "--speed", "0"],
      ["stream", "--board", Self.board, "--record", "/dev/null", "--frames", "5", "--speed", "0"],
      ["sim", "truth", "--board", Self.board, "--out", "/dev/null"],
    ] {
      let r = try Panelctl.run(arguments)
      #expect(r.status == 0, "\(arguments): \(r.stderr)")
      let after = try #require(Self.identity("/dev/null"))
      #expect(after.type == S_IFCHR && after.device == before.device, "\(arguments)")
    }
    #expect(access("/dev/null.partial", F_OK) != 0)
    let r = try Panelctl.run(["record", "--board", Self.board, "--out", "/dev/stdout", "--frames", "5", "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.lines.first == "t_us,raw_0,raw_1,raw_2,raw_3,temp_c" && r.lines.count == 6, "\(r.stdout)")
    let t = try Panelctl.run(["sim", "truth", "--board", Self.board, "--out", "/dev/stdout"])
    #expect(t.status == 0 && t.stdout.contains("[integrity]"), "\(t.stderr)")
  }

  /// A `.partial` left beside the output (here a link to a device) is
  /// replaced, never written through.
  @Test func aStalePartialLinkIsReplacedNotFollowed() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("r.csv").path
    let victim = dir.appendingPathComponent("victim").path
    try "keep\n".write(toFile: victim, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: out + ".partial", withDestinationPath: victim)
    let r = try Panelctl.run(["record", "--board", Self.board, "--out", out, "--frames", "5", "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep\n")
    #expect(Self.identity(out)?.type == S_IFREG)
  }
}
