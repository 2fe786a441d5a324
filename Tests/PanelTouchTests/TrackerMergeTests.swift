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

  /// A releasing finger next to a stronger one loses its own peak in the
  /// other's spread and ends; its peak flickering back for one frame is
  /// not a new touch (a strong contact elsewhere, or there after the
  /// settling frames, still starts on its first frame).
  @Test func aFlickerWhereATouchJustEndedIsNoNewTouch() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for _ in 0..<20 { seen = Self.step(&tracker, [(50, 80, 0.8), (50, 34, 0.9)]) }
    let releasing = try #require(seen.first { $0.y.rawValue > 60_000 }).id
    seen = []
    for _ in 0..<3 { seen += Self.step(&tracker, [(50, 34, 0.9)]) }
    #expect(seen.filter { $0.phase.isFinal }.map(\.id) == [releasing])
    seen = Self.step(&tracker, [(50, 80, 0.66), (50, 34, 0.9)])
    seen += Self.step(&tracker, [(50, 34, 0.9)])
    seen += Self.step(&tracker, [(50, 34, 0.9)])
    #expect(!seen.contains { $0.phase == .began }, "\(seen)")
    // Elsewhere, a strong contact is a touch on its first frame ...
    seen = Self.step(&tracker, [(120, 80, 0.66), (50, 34, 0.9)])
    #expect(seen.contains { $0.phase == .began && $0.id == 3 }, "\(seen)")
    // ... and where the touch ended too, once it has settled.
    for _ in 0..<10 { _ = Self.step(&tracker, [(50, 34, 0.9)]) }
    seen = Self.step(&tracker, [(50, 80, 0.66), (50, 34, 0.9)])
    #expect(seen.contains { $0.phase == .began && $0.id == 4 }, "\(seen)")
  }
}
