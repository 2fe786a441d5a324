import Foundation
import Testing

/// What hosts and people see, through the real binary: the report stream
/// of presses that used to mislead a host (issue 16).
@Suite struct HostViewTests {
  static func stream(_ scenario: String, board: String = "boards/sim-plate4.toml", _ extra: [String] = []) throws
    -> (Panelctl.Result, [InteractionLine])
  {
    let dir = try Panelctl.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = try BadInputTests.write(scenario, "scenario.toml", in: dir)
    let r = try Panelctl.run(["stream", "--board", board, "--scenario", path, "--speed", "0"] + extra)
    #expect(r.status == 0, "\(r.stderr)")
    return (r, try InteractionLine.decode(r))
  }

  @Test func an8NewtonPressReportsForceWithinMaxForce() throws {
    let (r, lines) = try Self.stream(
      """
      [[touch]]
      start_s = 0.5
      x_mm = 80.0
      y_mm = 50.0
      force_n = 8.0
      rise_s = 0.1
      hold_s = 0.3
      """)
    let touches = try ReportLine.decode(r.stdout.split(separator: "\n").map(String.init)).flatMap(\.touches)
    #expect(touches.contains { $0.force_n > 7.5 }, "the press reaches 8 N")
    #expect(touches.allSatisfy { $0.force <= $0.max_force && $0.max_force == 6.67 })
    #expect(touches.map(\.force).max() == 6.67)
    #expect(lines.flatMap(\.touches).allSatisfy { $0.force <= 6.67 })
  }

  /// Two fingers at 0.8 N on the grid; the second comes within 30 mm of
  /// the first (one blob to the grid) and leaves again. It never lifted,
  /// so it is not `ended`: `cancelled`, reason `merged`, into the first;
  /// parting again, it is a new touch. Every `ended` comes after its
  /// finger lifted.
  @Test func aMergeIsNotReportedAsALift() throws {
    let (r, _) = try Self.stream(
      """
      [[touch]]
      start_s = 0.5
      x_mm = 50.0
      y_mm = 60.0
      force = [[0.0, 0.0], [0.1, 0.8], [3.0, 0.8], [3.1, 0.0]]

      [[touch]]
      start_s = 0.7
      path = [[0.0, 130.0, 60.0], [0.2, 130.0, 60.0], [1.2, 80.0, 60.0], [1.6, 80.0, 60.0], [2.2, 130.0, 60.0]]
      force = [[0.0, 0.0], [0.1, 0.8], [2.2, 0.8], [2.3, 0.0]]
      """, board: "boards/sim-grid.toml")
    struct Final: Decodable {
      var id: Int
      var phase: String
      var reason: String?
      var into: Int?
    }
    struct Line: Decodable {
      var t_us: Int64
      var touches: [Final]
    }
    let lines = try r.lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    let finals = lines.flatMap { line in
      line.touches.filter { $0.phase == "ended" || $0.phase == "cancelled" }.map { (Double(line.t_us) / 1e6, $0) }
    }
    let merged = finals.filter { $0.1.phase == "cancelled" }
    #expect(merged.count == 1, "\(finals)")
    #expect(merged.first?.1.id == 2 && merged.first?.1.reason == "merged" && merged.first?.1.into == 1)
    // The second finger lifts at 3.0 s, the first at 3.6 s: no touch ends before.
    let ended = finals.filter { $0.1.phase == "ended" }
    #expect(ended.count == 2 && ended.allSatisfy { $0.0 >= 2.9 }, "\(ended)")
  }

  /// The press: cell 2 of the plate open (from 0.3 s), a press at
  /// (80, 38) on the message. Its position is estimated from the three
  /// working cells and flagged `degraded` on every line while the cell is
  /// dead; it lands on the message, and the touch-and-hold fallback offers
  /// the message's actions. A press after the repair is not degraded.
  @Test func aPressOnAFailedCellIsFlaggedAndItsFallbackFires() throws {
    let (r, lines) = try Self.stream(
      """
      [[touch]]
      start_s = 1.0
      x_mm = 80.0
      y_mm = 38.0
      force_n = 0.8
      rise_s = 0.05
      hold_s = 1.0
      fall_s = 0.05

      [[touch]]
      start_s = 3.5
      x_mm = 80.0
      y_mm = 38.0
      force_n = 0.7
      rise_s = 0.03
      hold_s = 0.1
      fall_s = 0.03

      [[fault]]
      cell = 2
      start_s = 0.3
      end_s = 2.5
      """, ["--regions", "regions/home.toml"])
    struct Touch: Decodable {
      var id: Int
      var x_mm: Double
      var y_mm: Double
      var item: String?
      var degraded: Bool?
    }
    struct Line: Decodable { var touches: [Touch] }
    let touches = try r.lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }.flatMap(\.touches)
    let first = touches.filter { $0.id == 1 }
    #expect(!first.isEmpty && first.allSatisfy { $0.degraded == true && $0.item == "message" })
    let distances: [Double] = first.map { t in
      let dx = t.x_mm - 80
      let dy = t.y_mm - 38
      return (dx * dx + dy * dy).squareRoot()
    }
    let far = distances.max() ?? 99
    #expect(far < 10, "estimated positions up to \(far) mm from the press")
    let events = InteractionStreamTests.seen(lines)
    #expect(events.contains { $0.type == "long_press" && $0.touch == 1 && $0.item == "message" }, "\(events)")
    let second = touches.filter { $0.id == 2 }
    #expect(!second.isEmpty && second.allSatisfy { $0.degraded == nil && $0.item == "message" })
  }

  /// On the grid only touches near the dead cell are degraded: a press on
  /// cell 19 (70, 50) is, one at (140, 100) is not.
  @Test func onTheGridOnlyTouchesNearTheDeadCellAreDegraded() throws {
    let (r, _) = try Self.stream(
      """
      [[touch]]
      start_s = 1.0
      x_mm = 70.0
      y_mm = 50.0
      force_n = 1.0
      hold_s = 0.4

      [[touch]]
      start_s = 2.0
      x_mm = 140.0
      y_mm = 100.0
      force_n = 1.0
      hold_s = 0.4

      [[fault]]
      cell = 19
      start_s = 0.3
      end_s = 5.0
      """, board: "boards/sim-grid.toml")
    struct Touch: Decodable {
      var id: Int
      var degraded: Bool?
    }
    struct Line: Decodable { var touches: [Touch] }
    let touches = try r.lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }.flatMap(\.touches)
    #expect(Set(touches.map(\.id)) == [1, 2])
    #expect(touches.filter { $0.id == 1 }.allSatisfy { $0.degraded == true })
    #expect(touches.filter { $0.id == 2 }.allSatisfy { $0.degraded == nil })
  }
}
