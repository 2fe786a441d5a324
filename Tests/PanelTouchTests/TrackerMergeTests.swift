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
    step(&tracker, contacts(list))
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
  /// other's spread as it fades and ends; its peak flickering back for one
  /// frame is not a new touch (a strong contact elsewhere, or there after
  /// the settling frames, still starts on its first frame).
  @Test func aFlickerWhereATouchJustEndedIsNoNewTouch() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for _ in 0..<20 { seen = Self.step(&tracker, [(50, 80, 0.8), (50, 34, 0.9)]) }
    let releasing = try #require(seen.first { $0.y.rawValue > 60_000 }).id
    for n in [0.5, 0.25, 0.1] { seen = Self.step(&tracker, [(50, 80, n), (50, 34, 0.9)]) }
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

  /// A contact the core reports as two presses it cannot separate
  /// (`merged`, `spread` mm half their fitted distance).
  static func merged(_ x: Double, _ y: Double, _ n: Double, spread: Double) -> ContactList {
    var c = Contact(x: Length_um(millimetres: x), y: Length_um(millimetres: y), force: Force_mN(newtons: n))
    c.merged = true
    c.spread = Length_um(millimetres: spread)
    var list = ContactList()
    list.insert(c)
    return list
  }

  static func step(_ tracker: inout Tracker, _ list: ContactList) -> [TrackedTouch] {
    tracker.update(contacts: list, outcome: .measured, loadAbsorbed: false)
    return (0..<tracker.count).map { tracker[$0] }
  }

  /// Two still fingers 30 mm apart that the core reports in turn as two
  /// contacts and as one `merged` contact (at the limit of what it
  /// separates): the stream keeps both touches with their ids, each on its
  /// own side, and nothing ends or begins.
  @Test func aPairTheCoreSplitsAndMergesInTurnDoesNotAlternate() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for _ in 0..<20 { seen += Self.step(&tracker, [(55, 60, 0.9), (85, 60, 0.8)]) }
    for _ in 0..<4 {
      for _ in 0..<15 { seen += Self.step(&tracker, Self.merged(69, 60, 1.7, spread: 14)) }
      for _ in 0..<15 { seen += Self.step(&tracker, [(55, 60, 0.9), (85, 60, 0.8)]) }
    }
    #expect(Set(seen.map(\.id)) == [1, 2])
    #expect(!seen.contains { $0.phase.isFinal }, "\(seen.filter { $0.phase.isFinal })")
    let left = seen.filter { $0.id == 1 }.map(\.x.millimetres)
    let right = seen.filter { $0.id == 2 }.map(\.x.millimetres)
    #expect(left.allSatisfy { $0 < 65 } && right.allSatisfy { $0 > 75 }, "\(left.max() ?? 0), \(right.min() ?? 0)")
    // Their force is shared out: each about its own, together the contact's.
    let last = seen.suffix(2)
    #expect(last.allSatisfy { $0.force.newtons > 0.6 && $0.force.newtons < 1.1 }, "\(last)")
  }

  /// Two fingers closing in (a pinch): their contacts become one merged
  /// contact between them for a while and come apart again. Each touch
  /// keeps its id and its side: where its finger is predicted to be picks
  /// its contact back.
  @Test func aPinchKeepsItsIdsThroughAMerge() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    // From 60 mm apart to 30 in 100 frames (0.15 mm a frame each).
    for k in 0..<100 {
      let d = 0.15 * Double(k)
      seen += Self.step(&tracker, [(50 + d, 60, 0.9), (110 - d, 60, 0.9)])
    }
    for k in 0..<40 { seen += Self.step(&tracker, Self.merged(80, 60, 1.8, spread: 15 - 0.1 * Double(k))) }
    for k in 0..<60 {
      let d = 0.15 * Double(k)
      seen += Self.step(&tracker, [(70 - d, 60, 0.9), (90 + d, 60, 0.9)])
    }
    #expect(Set(seen.map(\.id)) == [1, 2], "\(Set(seen.map(\.id)))")
    #expect(!seen.contains { $0.phase.isFinal })
    #expect(seen.filter { $0.id == 1 }.allSatisfy { $0.x.millimetres < 80 })
    #expect(seen.filter { $0.id == 2 }.allSatisfy { $0.x.millimetres > 80 })
  }

  /// A finger lifting next to another: its contact disappears into the
  /// other's spread while its own force is still above `touch_off_n`, but
  /// the other's contact does not carry it: a lift, `ended`, not a merge.
  @Test func aLiftNextToAnotherFingerEnds() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for _ in 0..<20 { seen += Self.step(&tracker, [(50, 60, 0.9), (78, 60, 0.9)]) }
    for k in 0..<5 { seen += Self.step(&tracker, [(50, 60, 0.9), (78, 60, 0.9 - 0.1 * Double(k))]) }
    // (It coasts while its force, fading at its trend, would still be
    // above touch-off: at most three times `settleFrames`.)
    for _ in 0..<(3 * Int(Tracker.settleFrames)) { seen += Self.step(&tracker, [(51, 60, 0.95)]) }
    let final = seen.filter { $0.phase.isFinal }
    #expect(final.count == 1 && final.first?.id == 2 && final.first?.phase == .ended, "\(final)")
  }

  /// A firm finger's contact missing for a few frames (the core lost its
  /// peak in the noise; seen on sim-grid-noisy with pairs 44 mm apart):
  /// the touch keeps its id through the gap. Gone for longer, it ends.
  @Test func aFirmTouchKeepsItsIdThroughAShortDropout() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for gap in [1, 2, 4, 6] {
      for _ in 0..<20 { seen += Self.step(&tracker, [(16, 16, 1.1), (60, 19, 1.0)]) }
      for _ in 0..<gap { seen += Self.step(&tracker, [(17, 16, 1.2)]) }
    }
    for _ in 0..<20 { seen += Self.step(&tracker, [(16, 16, 1.1), (60, 19, 1.0)]) }
    #expect(Set(seen.map(\.id)) == [1, 2] && !seen.contains { $0.phase.isFinal }, "\(seen.filter { $0.phase.isFinal })")
    for _ in 0..<Int(Tracker.settleFrames) { seen += Self.step(&tracker, [(17, 16, 1.2)]) }
    #expect(seen.filter { $0.phase.isFinal }.map(\.phase) == [.ended])
  }

  /// A finger lifting 30 mm from another: its fading contact is pulled
  /// toward the other's (12 mm here, as the joint fit of a weak press in a
  /// strong one's spread does); the touch lifts where it was, never nearer
  /// the other finger, and keeps its id to the end.
  @Test func aLiftingTouchHoldsItsPosition() throws {
    let board = try Repo.board("sim-grid")
    var tracker = Tracker(settings: TrackerSettings(board: board))
    var seen: [TrackedTouch] = []
    for _ in 0..<20 { seen = Self.step(&tracker, [(50, 60, 1.0), (80, 60, 0.9)]) }
    let lifting = try #require(seen.first { $0.x.rawValue > 65_000 }).id
    var xs: [Double] = []
    for k in 0..<16 {
      let f = 0.9 * Double(16 - k) / 16
      let x = k < 4 ? 80 : 80 - 12 * Double(k - 4) / 12
      seen = Self.step(&tracker, [(50, 60, 1.0), (x, 60, f)])
      xs += seen.filter { $0.id == lifting }.map { $0.x.millimetres }
    }
    #expect(xs.count == 16 && xs.allSatisfy { $0 > 74 }, "\(xs)")
  }
}
