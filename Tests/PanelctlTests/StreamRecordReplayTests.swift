import Foundation
import Testing

@Suite(.serialized) struct StreamRecordReplayTests {
  /// The demo scenario of the README's first command, as fast as possible.
  @Test(arguments: ["sim-plate4", "sim-grid"])
  func streamsTheDemoScenario(_ board: String) throws {
    let r = try Panelctl.run(["stream", "--board", "boards/\(board).toml", "--speed", "0"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty)
    let reports = try ReportLine.decode(r.lines)
    #expect(reports.count > 100)
    // Every touch begins once and ends once, in order, with stable ids.
    var phases: [Int: [String]] = [:]
    for line in reports {
      for t in line.touches { phases[t.id, default: []].append(t.phase) }
      #expect(Set(line.touches.map(\.id)).count == line.touches.count)
    }
    for (id, p) in phases {
      #expect(p.first == "began", "touch \(id)")
      #expect(p.filter { $0 == "began" }.count == 1)
      #expect(p.last == "ended" || p.last == "cancelled", "touch \(id)")
      #expect(p.filter { $0 == "ended" || $0 == "cancelled" }.count == 1)
    }
    // Taps, the firm press (peek then pop) and the slide: 4 touches on the
    // plate, 5 on the grid (two fingers at the end).
    #expect(phases.count == (board == "sim-plate4" ? 4 : 5), "touches: \(phases.keys.sorted())")
    let events = reports.flatMap(\.events).map(\.type)
    #expect(events.contains("peek"))
    #expect(events.contains("pop"))
    #expect(reports.flatMap(\.touches).contains { $0.phase == "moved" })
    // Frame times are the panel's: strictly increasing.
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.t_us < $1.t_us && $0.frame < $1.frame })
  }

  @Test(arguments: ["sim-plate4", "sim-grid"])
  func recordThenReplayGivesTheSameTouches(_ board: String) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("demo.csv").path
    let record = try Panelctl.run(["record", "--board", "boards/\(board).toml", "--out", csv, "--speed", "0"])
    #expect(record.status == 0, "\(record.stderr)")
    #expect(FileManager.default.fileExists(atPath: csv))
    #expect(!FileManager.default.fileExists(atPath: csv + ".partial"))
    let header = try String(contentsOfFile: csv, encoding: .utf8).prefix { $0 != "\n" }
    #expect(header.hasPrefix("t_us,raw_0,raw_1,"))
    #expect(header.hasSuffix(",temp_c"))

    let live = try Panelctl.run(["stream", "--board", "boards/\(board).toml", "--speed", "0"])
    let replay = try Panelctl.run([
      "replay", csv, "--board", "boards/\(board).toml", "--calibration", "calibration/\(board).toml",
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    let a = try ReportLine.decode(live.lines)
    let b = try ReportLine.decode(replay.lines)
    #expect(a.count == b.count)
    let ta = a.flatMap { l in l.touches.map { (l.t_us, $0) } }
    let tb = b.flatMap { l in l.touches.map { (l.t_us, $0) } }
    #expect(ta.count == tb.count)
    #expect(Set(ta.map(\.1.id)).count == Set(tb.map(\.1.id)).count)
    for (x, y) in zip(ta, tb) {
      #expect(x.0 == y.0)
      #expect(x.1.id == y.1.id)
      #expect(x.1.phase == y.1.phase)
      #expect(abs(x.1.x_mm - y.1.x_mm) <= 0.5)
      #expect(abs(x.1.y_mm - y.1.y_mm) <= 0.5)
    }
  }
}

extension StreamRecordReplayTests {
  /// A recording with a column another program added replays, with one
  /// warning naming the column.
  @Test func aRecordingWithAnExtraColumnReplaysWithAWarning() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("r.csv").path
    let record = try Panelctl.run(["record", "--board", "boards/sim-plate4.toml", "--out", csv, "--speed", "0"])
    #expect(record.status == 0, "\(record.stderr)")
    let arguments = ["replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml"]
    let plain = try Panelctl.run(arguments)
    let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
    let widened = ["\u{FEFF}" + rows[0] + ",operator"] + rows.dropFirst().map { $0 + ",bob" }
    try (widened.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(arguments)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr == "panelctl: warning: \(csv):1: column 7: \"operator\" is not a recording column: ignored\n")
    #expect(r.stdout == plain.stdout)
  }
}
