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
}
