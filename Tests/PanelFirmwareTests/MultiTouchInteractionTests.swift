import ForceCore
import PanelTestSupport
import Testing

@testable import PanelFirmware
@testable import PanelSimulation

/// Several touches on the simulated grid, through the whole pipeline: each
/// touch has its own stage machine, ids hold while fingers come close, and
/// the board caps how many touches are reported.
@Suite struct MultiTouchInteractionTests {
  /// Two fingers 80 mm apart slide to `gap` mm apart and back. The left one
  /// first presses to peek where it landed (before moving: moving first
  /// would make it a drag), then slides while peeking; the right one stays
  /// light.
  static func approach(gap: Double) -> Scenario {
    let mid = 80.0
    let left = ScriptedTouch(
      start_s: 0.3,
      force: [Keyframe(0, 0), Keyframe(0.1, 0.7), Keyframe(0.3, 1.6), Keyframe(0.6, 1.6), Keyframe(0.8, 0.9), Keyframe(2.4, 0.9), Keyframe(2.5, 0)],
      x: [Keyframe(0, mid - 40), Keyframe(0.7, mid - 40), Keyframe(1.3, mid - gap / 2), Keyframe(1.7, mid - gap / 2), Keyframe(2.3, mid - 40)],
      y: [Keyframe(0, 60)])
    let right = ScriptedTouch(
      start_s: 0.3,
      force: [Keyframe(0, 0), Keyframe(0.1, 0.6), Keyframe(2.4, 0.6), Keyframe(2.5, 0)],
      x: [Keyframe(0, mid + 40), Keyframe(0.7, mid + 40), Keyframe(1.3, mid + gap / 2), Keyframe(1.7, mid + gap / 2), Keyframe(2.3, mid + 40)],
      y: [Keyframe(0, 60)])
    return Scenario(name: "approach", touches: [left, right])
  }

  /// Down to 2.2 cell pitches (44 mm on the 20 mm grid) the two presses
  /// stay two contacts, and each keeps its id.
  @Test(arguments: [60.0, 50.0, 44.0])
  func idsStayStableWhenTouchesComeClose(gap: Double) throws {
    let run = try SimRun(board: try Repo.board("sim-grid"), scenario: Self.approach(gap: gap))
    #expect(run.ids.count == 2, "gap \(gap) mm: ids \(run.ids)")
    guard run.ids.count == 2 else { return }
    for id in run.ids {
      let p = run.phases(of: id)
      #expect(p.first == .began && p.last == .ended)
      #expect(p.filter { $0 == .began }.count == 1 && p.filter(\.isFinal).count == 1)
    }
    // The left finger keeps its id all the way: it is always the left one.
    let left = run.ids[0]
    for frame in Set(run.touches.map(\.frame)) {
      let here = run.touches.filter { $0.frame == frame }
      guard here.count == 2 else { continue }
      let l = here.first { $0.touch.id == left }!
      let r = here.first { $0.touch.id != left }!
      #expect(l.touch.x < r.touch.x, "frame \(frame): ids swapped")
    }
    // Each touch its own stages: the left one peeks, the right one does not.
    let kinds = run.events.filter { !$0.event.kind.isPanelEvent }.map { ($0.event.touch, $0.event.kind) }
    #expect(kinds.filter { $0.0 == left }.map(\.1) == [.peek, .peekCancelled], "gap \(gap)")
    #expect(kinds.filter { $0.0 != left }.isEmpty)
  }

  /// Closer than two pitches the presses are one blob to the grid (the
  /// sensing limit): one touch ends, the other keeps its id throughout, and
  /// when they part again the second is a new touch with a new id.
  @Test func pressesMergedByTheGridEndOneTouchAndNeverReuseAnId() throws {
    let run = try SimRun(board: try Repo.board("sim-grid"), scenario: Self.approach(gap: 30))
    #expect(run.ids.count == 3, "ids \(run.ids)")
    #expect(run.ids == run.ids.sorted() && Set(run.ids).count == run.ids.count)
    for id in run.ids {
      #expect(run.phases(of: id).first == .began)
      #expect(run.phases(of: id).filter(\.isFinal).count == 1)
    }
    // One of the first two lasts the whole gesture (2.5 s).
    let frames = { (id: UInt32) in run.touches.filter { $0.touch.id == id }.count }
    #expect(max(frames(run.ids[0]), frames(run.ids[1])) > 2 * 500)
  }

  @Test func theBoardCapsTheTouchesReported() throws {
    var board = try Repo.board("sim-grid")
    board.interaction.maxTouches = 2
    func press(_ start: Double, _ x: Double) -> ScriptedTouch {
      ScriptedTouch(start_s: start, x_mm: x, y_mm: 60, force_n: 0.8, hold_s: 0.6)
    }
    // Three fingers down together, far apart; then the first lifts and a
    // fourth comes.
    let scenario = Scenario(name: "three", touches: [press(0.3, 30), press(0.35, 80), press(0.4, 130), press(1.2, 80)])
    let run = try SimRun(board: board, scenario: scenario)
    var perFrame: [UInt64: Int] = [:]
    for t in run.touches where !t.touch.phase.isFinal { perFrame[t.frame, default: 0] += 1 }
    #expect(perFrame.values.max() == 2)
    // Every finger is one touch, begun once and ended once: the third is
    // reported once the first lifts (it is still down), the fourth once the
    // second lifts.
    #expect(run.ids.count == 4, "ids \(run.ids)")
    for id in run.ids {
      #expect(run.phases(of: id).filter { $0 == .began }.count == 1)
      #expect(run.phases(of: id).filter(\.isFinal).count == 1)
    }
    let board10 = try Repo.board("sim-grid")
    #expect(board10.interaction.maxTouches == 10)
    let all = try SimRun(board: board10, scenario: scenario)
    #expect(all.ids.count == 4)
  }
}
