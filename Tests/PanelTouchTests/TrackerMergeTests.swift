import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelTouch

/// Two fingers whose contacts merge into one (closer than the grid tells
/// apart): the finger that did not lift is never `ended`.
@Suite struct TrackerMergeTests {
  /// Contacts at (x mm, y mm, newtons).
  static func contacts(_ list: [(Double, Double, Double)]) -> ContactList {
    var c = ContactList()
    for (x, y, n) in list {
      c.insert(Contact(x: Length_um(millimetres: x), y: Length_um(millimetres: y), force: Force_mN(newtons: n)))
    }
    return c
  }

  static func step(_ tracker: inout Tracker, _ list: [(Double, Double, Double)]) -> [TrackedTouch] {
    tracker.update(contacts: contacts(list), outcome: .measured, loadAbsorbed: false)
    return (0..<tracker.count).map { tracker[$0] }
  }

  @Test func aMergedFingerIsCancelledAsMergedNotEnded() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    // Two fingers at 0.8 N, 40 mm apart, for a while.
    for _ in 0..<20 { seen += Self.step(&tracker, [(50, 60, 0.8), (90, 60, 0.8)]) }
    #expect(tracker.activeCount == 2)
    // The grid sees one contact between them carrying both.
    for _ in 0..<20 { seen += Self.step(&tracker, [(68, 60, 1.6)]) }
    let final = seen.filter { $0.phase.isFinal }
    #expect(final.count == 1)
    #expect(final.first?.id == 2 && final.first?.phase == .cancelled)
    #expect(final.first?.reason == .merged && final.first?.mergedInto == 1)
    #expect(tracker.activeCount == 1)
    // A finger lifting (its force fading away) still ends.
    seen = []
    for i in 0..<20 { seen += Self.step(&tracker, [(68, 60, 1.6 * Double(20 - i) / 20)]) }
    for _ in 0..<5 { seen += Self.step(&tracker, []) }
    #expect(seen.filter { $0.phase.isFinal }.map(\.phase) == [.ended])
    #expect(seen.last { $0.phase.isFinal }?.reason == CancelReason.none)
  }

  /// A contact that vanishes while strong, with no other touch near it (a
  /// glitch, not a merge), ends as before.
  @Test func aVanishedContactFarFromOthersEnds() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for _ in 0..<20 { seen += Self.step(&tracker, [(20, 20, 0.8), (140, 100, 0.8)]) }
    for _ in 0..<20 { seen += Self.step(&tracker, [(20, 20, 0.8)]) }
    let final = seen.filter { $0.phase.isFinal }
    #expect(final.map(\.phase) == [.ended] && final.first?.id == 2)
  }
}
