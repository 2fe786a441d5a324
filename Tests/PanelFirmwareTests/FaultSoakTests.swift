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
  /// capability) within the soak's time. (Memory is checked in a process
  /// of its own, `SoakCommandTests`: tests running beside this one in the
  /// same process move its resident size.)
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
    #expect(r.compared > 20)
  }

  /// No touch begins while no scripted finger is on the panel, none stays
  /// down half a second after the last one left: a chip's outage in the
  /// middle of a press once left the press in the median filter's history
  /// and reported it again when the chip came back
  /// (`ForcePipeline.resume`, docs/reliability.md).
  @Test func noFalseOrStuckTouch() throws {
    let r = try Self.result.get()
    #expect(r.falseTouches == 0)
    #expect(r.stuckTouches == 0)
  }

  /// Not true, and not a fault's doing (docs/reliability.md, "A soak with
  /// faults"): the simulated cells draw their noise conversion by
  /// conversion, so once a fault has moved a chip's conversions the two
  /// twins' noise differs, and a press whose stage the drag rule decides
  /// on noise (a press to pop reported at stage none) goes either way —
  /// the fault-free twin's own presses included.
  @Test(.disabled("the twins' noise differs after the first fault: presses near the drag rule's decision go either way"))
  func pressesAsTheFaultFreePanel() throws {
    let r = try Self.result.get()
    #expect(r.differing == 0, "\(r.differing) of \(r.compared) presses reported otherwise")
  }
}
