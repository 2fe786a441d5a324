import Foundation
import Testing

/// The runner the other panelctl tests use: a run that does not end is
/// killed and fails its test instead of hanging `swift test`.
@Suite struct PanelctlRunTests {
  @Test func aRunThatDoesNotEndIsKilledAndFails() {
    let started = Date()
    #expect(throws: Panelctl.Timeout.self) {
      _ = try Panelctl.run(
        ["stream", "--board", "boards/sim-plate4.toml", "--idle", "--duration", "600"], input: nil, timeout: 1)
    }
    #expect(Date().timeIntervalSince(started) < 60)
  }
}
