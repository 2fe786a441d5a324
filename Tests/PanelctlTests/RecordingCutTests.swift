import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Recordings cut short: by a kill, a file size limit or a full disk. Only
/// whole rows reach the file when a write fails; `replay` of a `.partial`
/// reads up to its last whole row and says so in one line; `stream
/// --record` on a full disk stops the recording and keeps streaming.
@Suite struct RecordingCutTests {
  static let board = Panelctl.root + "/boards/sim-plate4.toml"
  static let calibration = Panelctl.root + "/calibration/sim-plate4.toml"

  static func replay(_ path: String) throws -> Panelctl.Result {
    try Panelctl.run(["replay", path, "--board", board, "--calibration", calibration, "--idle"])
  }

  @Test func aPartialCutMidRowReplaysItsWholeRows() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let whole = dir.appendingPathComponent("r.csv").path
    let r = try Panelctl.run(["record", "--board", Self.board, "--out", whole, "--frames", "200", "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    // Cut in the middle of row 101 (line 102).
    let newlines = bytes.indices.filter { bytes[$0] == 10 }
    let cut = newlines[100] + 5
    let partial = dir.appendingPathComponent("cut.csv.partial").path
    try bytes.prefix(cut).write(to: URL(fileURLWithPath: partial))
    let replayed = try Self.replay(partial)
    #expect(replayed.status == 0, "\(replayed.stderr)")
    #expect(replayed.lines.count == 100)
    #expect(
      replayed.stderr
        == "panelctl: note: \(partial):102: the last row is cut off (the recording was interrupted); read the 100 whole rows before it\n")
    // The same cut in a file that is not a .partial is an error at that row.
    let plain = dir.appendingPathComponent("cut.csv").path
    try bytes.prefix(cut).write(to: URL(fileURLWithPath: plain))
    let refused = try Self.replay(plain)
    #expect(refused.status == 1)
    #expect(refused.stderr.hasPrefix("panelctl: error: \(plain):102:"), "\(refused.stderr)")
  }

  /// `record` killed (SIGKILL) at random moments: its `.partial` always
  /// replays, every whole row of it.
  @Test func aRecordingKilledAtRandomMomentsAlwaysReplays() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    for i in 0..<20 {
      // Its own file each time: the previous run's .partial must not count
      // as this one having begun writing.
      let out = dir.appendingPathComponent("r\(i).csv").path
      let run = try TimedRun(
        ["record", "--board", Self.board, "--out", out, "--scenario", Panelctl.root + "/scenarios/warm-up.toml", "--frames", "100000000", "--speed", "0"])
      // Once it has begun writing, at a random moment.
      let began = TimedRun.now_ns()
      while (try? FileManager.default.attributesOfItem(atPath: out + ".partial")[.size] as? Int) ?? 0 == 0,
        TimedRun.now_ns() - began < 10_000_000_000
      {
        usleep(1000)
      }
      usleep(useconds_t.random(in: 0...400_000))
      run.send(SIGKILL)
      _ = run.waitForExit(timeout: 30)
      let replayed = try Self.replay(out + ".partial")
      #expect(replayed.status == 0, "\(replayed.stderr)")
      // Every whole row, however few reached the file before the kill (a
      // loaded machine may not get past the header).
      let bytes = try Data(contentsOf: URL(fileURLWithPath: out + ".partial"))
      #expect(replayed.lines.count == max(bytes.filter { $0 == 10 }.count - 1, 0))
      let notes = replayed.stderr.split(separator: "\n")
      #expect(notes.count <= 1 && notes.allSatisfy { $0.hasPrefix("panelctl: note: ") }, "\(replayed.stderr)")
    }
  }

  /// A file size limit met mid-row (a short write, then EFBIG): the file
  /// is cut back to its last whole row; exit 1 with one line.
  @Test func aFailedWriteLeavesWholeRowsOnly() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("r.csv").path
    let r = try Shell.run(
      "ulimit -f 20; exec '\(Panelctl.executable)' record --board '\(Self.board)' --out '\(out)' --frames 100000 --speed 0")
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: \(out).partial: cannot write: File too large\n", "\(r.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: out + ".partial"))
    #expect(bytes.count > 10_000 && bytes.count <= 20 * 1024)
    #expect(bytes.last == 10)
    let replayed = try Self.replay(out + ".partial")
    #expect(replayed.status == 0 && replayed.stderr.isEmpty, "\(replayed.stderr)")
  }

  /// `stream --record` onto a full disk (a small tmpfs, where the test may
  /// mount one), or meeting a file size limit part-way: the stream goes
  /// on, every report written; the recording stops with one warning, keeps
  /// its whole rows, and the run ends saying so (exit 1).
  @Test(arguments: SmallDisk.available ? ["full disk", "ulimit"] : ["ulimit"])
  func streamRecordOnAFullDiskKeepsStreaming(_ how: String) throws {
    let scratch = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let disk = how == "full disk" ? try SmallDisk(kib: 256) : nil
    defer { disk?.unmount() }
    let dir = disk.map { URL(fileURLWithPath: $0.path) } ?? scratch
    let out = dir.appendingPathComponent("r.csv").path
    let stream = ["stream", "--board", Self.board, "--calibration", Self.calibration, "--speed", "0"]
    let plain = try Panelctl.run(stream)
    #expect(plain.status == 0)
    let r: Panelctl.Result
    let why: String
    if let disk {
      try disk.fill(leavingKiB: 8)
      r = try Panelctl.run(stream + ["--record", out])
      why = "No space left on device"
    } else {
      let command = ([Panelctl.executable] + stream + ["--record", out]).map { "'\($0)'" }.joined(separator: " ")
      r = try Shell.run("ulimit -f 40; exec \(command)")
      why = "File too large"
      let bytes = try Data(contentsOf: URL(fileURLWithPath: out + ".partial"))
      #expect(bytes.count > 20_000 && bytes.count <= 40 * 1024 && bytes.last == 10)
    }
    #expect(r.status == 1)
    #expect(r.stdout == plain.stdout)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 2, "\(r.stderr)")
    #expect(lines.first?.hasPrefix("panelctl: warning: recording stopped at frame ") == true, "\(r.stderr)")
    #expect(lines.first?.hasSuffix(", the stream goes on: \(out).partial: cannot write: \(why)") == true, "\(r.stderr)")
    #expect(lines.last?.hasPrefix("panelctl: error: recording stopped at frame ") == true, "\(r.stderr)")
  }

  /// Lines ending in CR alone (old Mac files) are refused, not read as one
  /// header of nothing.
  @Test func crOnlyLineEndsAreRefused() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("cr.csv").path
    try "t_us,raw_0,raw_1,raw_2,raw_3\r0,1,2,3,4\r3125,1,2,3,4\r".write(toFile: path, atomically: true, encoding: .utf8)
    let r = try Self.replay(path)
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: \(path):1: a carriage return inside the line (lines must end in LF or CR LF)\n")
  }
}
