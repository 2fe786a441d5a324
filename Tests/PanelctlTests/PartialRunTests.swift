import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Runs that end badly part-way: what was begun is ended, what was
/// recorded is on disk.
@Suite struct PartialRunTests {
  /// The plate demo recorded once, as fast as possible.
  static func demo(in dir: URL) throws -> String {
    let csv = dir.appendingPathComponent("demo.csv").path
    let r = try Panelctl.run(["record", "--board", "boards/sim-plate4.toml", "--out", csv, "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    return csv
  }

  /// A malformed row while a touch is down: the error is one line, and
  /// the stream still ends the touch (cancelled), as docs/formats.md
  /// requires of every touch that began.
  @Test func aMalformedRowMidTouchCancelsTheTouchAndFails() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = try Self.demo(in: dir)
    let replay = ["replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml"]
    let good = try ReportLine.decode(try Panelctl.run(replay).lines)
    // A frame in the middle of the firm press (a touch is down, not ending).
    let press = try #require(good.first { l in l.touches.contains { $0.stage == "peek" && $0.phase != "ended" } })
    var rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let index = try #require(rows.firstIndex { $0.hasPrefix("\(press.t_us),") })
    rows[index] = rows[index].replacingOccurrences(of: "\(press.t_us),", with: "\(press.t_us),x")
    try rows.joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)

    let r = try Panelctl.run(replay)
    #expect(r.status == 1)
    #expect(r.stderr == "panelctl: error: \(csv):\(index + 1): column raw_0: \"x\(rows[index].split(separator: ",")[1].dropFirst())\" is not an integer\n", "\(r.stderr)")
    let reports = try ReportLine.decode(r.lines)
    let last = try #require(reports.last)
    #expect(last.touches.map(\.phase) == ["cancelled"])
    #expect(last.t_us < press.t_us)
    var open = Set<Int>()
    for line in reports {
      for t in line.touches {
        if t.phase == "began" { open.insert(t.id) }
        if t.phase == "ended" || t.phase == "cancelled" { #expect(open.remove(t.id) != nil) }
      }
    }
    #expect(open.isEmpty)
  }

  /// `record` (and `stream --record`) flush every `rate_hz` frames (about
  /// once a second): while the run goes on, the `.partial` file holds
  /// whole seconds of rows long before the writer's 64 KiB buffer would
  /// fill (about 5 s of the plate), and a `kill -9` keeps them.
  @Test(arguments: [
    ["record", "--board", "boards/sim-plate4.toml", "--speed", "1", "--duration", "60", "--out"],
    ["stream", "--board", "boards/sim-plate4.toml", "--speed", "1", "--duration", "60", "--record"],
  ])
  func aRecordingGrowsOnDiskWhileItRuns(_ command: [String]) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("live.csv").path
    let run = try BackgroundPanelctl(command + [csv])
    defer { if run.process.isRunning { kill(run.process.processIdentifier, SIGKILL) } }
    let header = "t_us,raw_0,raw_1,raw_2,raw_3,temp_c\n"
    // Wait (up to 20 s) for a second's rows to reach the file.
    let deadline = Date().addingTimeInterval(20)
    var size = 0
    while Date() < deadline {
      size = ((try? FileManager.default.attributesOfItem(atPath: csv + ".partial"))?[.size] as? Int) ?? 0
      if size > header.utf8.count { break }
      Thread.sleep(forTimeInterval: 0.05)  // polling the file's size, not waiting for a result
    }
    #expect(size > header.utf8.count, "the .partial file stayed at \(size) bytes")
    // A flush is a second of rows (about 13 KB); a full buffer would be 64 KiB.
    #expect(size < 48 * 1024, "the first rows reached the file only with a full buffer (\(size) bytes)")
    #expect(run.process.isRunning, "the run ended before the file grew")
    kill(run.process.processIdentifier, SIGKILL)
    _ = run.wait(timeout: 10)
    let text = try String(contentsOfFile: csv + ".partial", encoding: .utf8)
    #expect(text.hasPrefix(header))
    let rows = text.dropFirst(header.count).split(separator: "\n")
    // Whole seconds of the plate's 320 Hz.
    #expect(rows.count >= 320 && rows.count % 320 == 0, "\(rows.count) rows")
    #expect(rows.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 6 })
    #expect(text.hasSuffix("\n"))
  }
}
