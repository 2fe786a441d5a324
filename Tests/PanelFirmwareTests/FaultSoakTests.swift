import PanelTestSupport
import Testing

@testable import PanelFirmware

/// The soak with faults, short (CI): 60 000 frames of the NAU7802 twin
/// (about three minutes of the panel) with every kind of fault injected
/// several times under scripted touches. The long run's figures are in
/// docs/reliability.md (`panelctl sim soak`).
@Suite struct FaultSoakTests {
  static let result = Result { try FaultSoak(board: Repo.board("sim-plate4-nau7802"), seed: 7).run(frames: 60_000) }

  /// Every fault is seen in the health counters and the panel comes back
  /// from each (a valid frame, the fault-free panel's touches and force
  /// capability) within the soak's time; memory stays flat.
  @Test func everyFaultIsReportedAndRecoveredFrom() throws {
    let r = try Self.result.get()
    #expect(r.frames == 60_000)
    #expect(r.touches > 50, "\(r.touches) touches")
    for fault in FaultSoak.Fault.allCases {
      let t = r.tally(fault)
      #expect(t.injected >= 3, "\(fault): \(t.injected) injected")
      #expect(t.reported == t.injected, "\(fault): \(t.reported) of \(t.injected) seen in the health counters")
      #expect(t.recovered == t.injected, "\(fault): \(t.recovered) of \(t.injected) recovered")
    }
    #expect(r.residentEnd_kib - r.residentEarly_kib < 1024, "\(r.residentEarly_kib) -> \(r.residentEnd_kib) KiB")
    #expect(r.compared > 20)
  }

  /// Not yet true (docs/reliability.md, "A soak with faults"): a chip that
  /// comes back after an outage of most of a second (a brownout, a NACK
  /// burst that made it re-initialise) can report a touch for a few frames
  /// with no finger on the panel: its raw counts are the fault-free
  /// twin's, so the core's held baselines are what differs.
  @Test(.disabled("false and stuck touches after a chip's outage: the held baselines are stale"))
  func noFalseOrStuckTouchAndPressesAsTheFaultFreePanel() throws {
    let r = try Self.result.get()
    #expect(r.falseTouches == 0)
    #expect(r.stuckTouches == 0)
    #expect(r.differing == 0, "\(r.differing) of \(r.compared) presses reported otherwise")
  }
}
