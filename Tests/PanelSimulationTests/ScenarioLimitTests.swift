import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelSimulation

/// A script's touches down at once are bounded (the campaign's 10 000
/// simultaneous touches made the simulated grid 75 times slower than real
/// time): 20 may overlap, the 21st is refused naming its line.
@Suite struct ScenarioLimitTests {
  static func script(_ count: Int, overlapping: Bool) -> String {
    (0..<count).map { k in
      let start = overlapping ? 1.0 : 1.0 + Double(k)
      return "[[touch]]\nstart_s = \(start)\nx_mm = 80.0\ny_mm = 50.0\nforce_n = 1.0\nhold_s = 0.5\n"
    }.joined(separator: "\n")
  }

  @Test func twentyTouchesMayOverlapNotTwentyOne() throws {
    let board = try Repo.board("sim-grid")
    let twenty = try Scenario(table: TOML.parse(Self.script(20, overlapping: true), file: "s.toml"), board: board)
    #expect(twenty.touches.count == 20)
    // Many touches one after another are fine.
    let sequential = try Scenario(table: TOML.parse(Self.script(500, overlapping: false), file: "s.toml"), board: board)
    #expect(sequential.touches.count == 500)
    #expect {
      _ = try Scenario(table: TOML.parse(Self.script(21, overlapping: true), file: "s.toml"), board: board)
    } throws: { error in
      let e = error as? FileError
      return (e?.line ?? 0) % 7 == 2 && e?.message == "21 touches down at 1.0 s: at most 20 at once (the simulator's limit)"
    }
  }
}
