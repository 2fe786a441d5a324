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

  /// Every press of the fault-free twin outside the faults' windows (a
  /// fault's start to a second after the panel is back) is the same touch
  /// on the faulted twin: it begins and ends within three frames of it.
  /// Its stage may differ (next test).
  @Test func everyPressOutsideTheWindowsIsTheSameTouch() throws {
    let r = try Self.result.get()
    #expect(r.compared > 20)
    #expect(r.unmatched == 0, "\(r.unmatched) of \(r.compared) presses not reported as the same touch")
  }

  /// Why identical stages cannot be asked for (docs/reliability.md,
  /// "Presses against the fault-free twin"): with no fault at all, the
  /// second twin's noise moved on by one draw at each fault's time (as a
  /// fault's retries or re-initialisation move it) is enough for a press
  /// to pop to be reported at stage none by one twin and pop by the other
  /// (seed 2: the press at 43.6 s). A press whose stage the drag rule
  /// decides on the noise of its first frames goes either way, on any two
  /// runs whose noise differs.
  @Test func theNoiseAloneMovesAPressToAnotherStage() throws {
    var soak = FaultSoak(board: try Repo.board("sim-plate4-nau7802"), seed: 2)
    soak.placebo = .noise
    let r = try soak.run(frames: 20_000)
    #expect(r.injected > 5)
    #expect(r.frontEnd.busErrors == 0 && r.core.invalidFrames == 0 && r.core.saturatedSamples == 0, "nothing injected")
    #expect(r.falseTouches == 0 && r.stuckTouches == 0)
    #expect(r.unmatched == 0)
    #expect(r.otherStage >= 1, "\(r.compared) presses compared, all at the same stage")
  }
}
