import Foundation
import Testing

/// The end of a report stream (docs/formats.md): one line per
/// frame to the very end, `t_us` and `frame` strictly increasing, and the
/// touches still down when the input ends cancelled in the report of the
/// last frame, not on an extra line.
@Suite struct StreamEndTests {
  /// Every touch that began ends exactly once; lines strictly increase.
  static func checkStream(_ reports: [ReportLine]) {
    for (a, b) in zip(reports, reports.dropFirst()) {
      #expect(b.t_us > a.t_us, "t_us \(a.t_us) then \(b.t_us)")
      #expect(b.frame > a.frame, "frame \(a.frame) then \(b.frame)")
    }
    var open = Set<Int>()
    for line in reports {
      for t in line.touches {
        if t.phase == "began" { #expect(open.insert(t.id).inserted) }
        if t.phase == "ended" || t.phase == "cancelled" { #expect(open.remove(t.id) != nil, "touch \(t.id) ended twice") }
      }
    }
    #expect(open.isEmpty, "touches never ended: \(open)")
  }

  /// A recording cut in the middle of a press: its last row's frame
  /// carries the cancellation.
  @Test(arguments: ["sim-plate4", "sim-grid"])
  func aRecordingEndingMidTouchCancelsInItsLastFrame(_ board: String) throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("demo.csv").path
    let record = try Panelctl.run(["record", "--board", "boards/\(board).toml", "--out", csv, "--speed", "0"])
    #expect(record.status == 0, "\(record.stderr)")
    let replay = ["replay", csv, "--board", "boards/\(board).toml", "--calibration", "calibration/\(board).toml"]
    let whole = try ReportLine.decode(try Panelctl.run(replay).lines)
    // Cut at a frame in the middle of the firm press (peeking, not ending).
    let press = try #require(whole.first { l in l.touches.contains { $0.stage == "peek" && $0.phase != "ended" } })
    let down = Set(press.touches.filter { $0.phase != "ended" && $0.phase != "cancelled" }.map(\.id))
    let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map(String.init)
    let cut = try #require(rows.firstIndex { $0.hasPrefix("\(press.t_us),") })
    try (rows[...cut].joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)

    let r = try Panelctl.run(replay)
    #expect(r.status == 0, "\(r.stderr)")
    let reports = try ReportLine.decode(r.lines)
    Self.checkStream(reports)
    let last = try #require(reports.last)
    #expect(last.t_us == press.t_us, "the last line is the last frame's report")
    #expect(last.frame == press.frame)
    #expect(Set(last.touches.filter { $0.phase == "cancelled" }.map(\.id)) == down)
    #expect(reports.dropLast().allSatisfy { $0.t_us < press.t_us })
  }

  /// A live run stopped by its frame limit: the same rule.
  @Test func aLiveRunStoppedByItsFrameLimitCancelsInItsLastFrame() throws {
    // The second tap of the plate demo is down from about frame 292 to 317.
    let r = try Panelctl.run(["stream", "--board", "boards/sim-plate4.toml", "--speed", "0", "--frames", "300"])
    #expect(r.status == 0, "\(r.stderr)")
    let reports = try ReportLine.decode(r.lines)
    Self.checkStream(reports)
    let last = try #require(reports.last)
    #expect(last.frame == 299)
    #expect(last.touches.map(\.phase) == ["cancelled"])
  }

  /// A malformed row after a touch began: the row before it is the last
  /// frame, and its report cancels the touch; then the error.
  @Test func aMalformedRowEndsTheStreamAtTheRowBefore() throws {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let csv = dir.appendingPathComponent("demo.csv").path
    #expect(try Panelctl.run(["record", "--board", "boards/sim-plate4.toml", "--out", csv, "--speed", "0"]).status == 0)
    let replay = ["replay", csv, "--board", "boards/sim-plate4.toml", "--calibration", "calibration/sim-plate4.toml"]
    let whole = try ReportLine.decode(try Panelctl.run(replay).lines)
    let press = try #require(whole.first { l in l.touches.contains { $0.stage == "peek" && $0.phase != "ended" } })
    var rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map(String.init)
    let bad = try #require(rows.firstIndex { $0.hasPrefix("\(press.t_us),") })
    rows[bad] = rows[bad].replacingOccurrences(of: "\(press.t_us),", with: "\(press.t_us),x")
    try (rows.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
    let r = try Panelctl.run(replay)
    #expect(r.status == 1)
    let reports = try ReportLine.decode(r.lines)
    Self.checkStream(reports)
    let previous = try #require(rows[bad - 1].split(separator: ",").first.flatMap { Int64($0) })
    #expect(reports.last?.t_us == previous)
    #expect(reports.last?.touches.map(\.phase) == ["cancelled"])
  }
}
