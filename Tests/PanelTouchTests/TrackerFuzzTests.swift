import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelTouch

/// Random fingers (appearing, wandering, pressing, lifting), invalid
/// frames, absorbed loads and force switched on and off mid-run, through
/// the tracker and the interaction layer: the contract's promises hold for
/// every touch of every seed.
@Suite struct TrackerFuzzTests {
  struct Run {
    var tracker: Tracker
    var interaction: Interaction
    var report = FrameReport()
    /// id -> still active
    var active: [UInt32: Bool] = [:]
    var open = 0
    var peeks: [UInt32: Int] = [:]
    var cancels: [UInt32: Int] = [:]
    /// Touches showing a preview (peek raised, not yet popped or dismissed).
    var peeking: Set<UInt32> = []
    var failures: [String] = []
    var log: [UInt32: [String]] = [:]

    init(board: Board) {
      tracker = Tracker(settings: TrackerSettings(board: board))
      interaction = Interaction(board: board)
    }

    /// Reports the tracker's touches through the interaction layer and
    /// checks every touch's life.
    mutating func report(frame: Int, seed: UInt64) {
      report.removeAll()
      report.time = Time_us(rawValue: Int64(frame) * 3125)
      report.frame = UInt64(max(0, frame))
      for i in 0..<tracker.count { report.append(TouchReport(touch: tracker[i])) }
      interaction.update(&report)
      var seen = Set<UInt32>()
      var ended: [UInt32] = []
      for i in 0..<report.touchCount {
        let t = report[touch: i].touch
        let at = "seed \(seed) frame \(frame): id \(t.id)"
        if !seen.insert(t.id).inserted { failures.append("\(at) twice") }
        switch (active[t.id], t.phase) {
        case (nil, .began):
          active[t.id] = true
          open += 1
        case (nil, _): failures.append("\(at) \(t.phase) before began")
        case (true, .began): failures.append("\(at) began twice")
        case (true, .ended), (true, .cancelled):
          active[t.id] = false
          open -= 1
          ended.append(t.id)
        case (true, _): break
        default: failures.append("\(at) \(t.phase) after its end")
        }
      }
      if tracker.activeCount != open {
        failures.append("seed \(seed) frame \(frame): activeCount \(tracker.activeCount), \(open) open")
      }
      for i in 0..<report.eventCount {
        let e = report[event: i]
        log[e.touch, default: []].append("\(frame):\(e.kind)")
        switch e.kind {
        case .peek:
          peeks[e.touch, default: 0] += 1
          peeking.insert(e.touch)
        case .peekCancelled:
          cancels[e.touch, default: 0] += 1
          if peeking.remove(e.touch) == nil { failures.append("seed \(seed) frame \(frame): id \(e.touch) peek_cancelled without a preview") }
        case .pop:
          // Pop is the press past peek: never without a preview.
          if peeking.remove(e.touch) == nil { failures.append("seed \(seed) frame \(frame): id \(e.touch) popped without a preview \(log[e.touch]!)") }
        default:
          break
        }
      }
      for id in ended where peeking.contains(id) {
        failures.append("seed \(seed) frame \(frame): id \(id) lifted while peeking, no peek_cancelled")
      }
    }
  }

  static func regions(_ rng: inout TestRandom) throws -> RegionMap {
    if rng.uniform() < 0.3 { return .whole(panelWidth_mm: 160, panelHeight_mm: 100) }
    let peek = rng.uniform() < 0.5
    let item = RegionItem(
      name: "item", x_mm: rng.uniform() * 80, y_mm: rng.uniform() * 50, width_mm: 80, height_mm: 50, peek: peek, pop: peek,
      quickActions: peek ? [] : [QuickAction(title: "Go")])
    return try RegionMap(items: [item], panelWidth_mm: 160, panelHeight_mm: 100)
  }

  /// 200 seeds of 3000 frames, in 8 groups that run in parallel.
  @Test(arguments: 0..<8)
  func everyTouchThatBeganEndsOnceAndEveryPeekIsDismissedOnce(_ group: Int) throws {
    var board = InteractionDrive.board()
    board.grid = GridSpec(columns: 8, rows: 5, pitch_mm: 20)
    board.interaction.maxTouches = 4
    var failures: [String] = []
    var touches = 0
    var peeks = 0
    for seed in UInt64(group * 25)..<UInt64(group * 25 + 25) {
      var rng = TestRandom(seed: seed)
      var run = Run(board: board)
      var fingers: [(x: Double, y: Double, f: Double)] = []
      for frame in 0..<3000 {
        if rng.uniform() < 0.02 && fingers.count < 8 { fingers.append((rng.uniform() * 160, rng.uniform() * 100, 0)) }
        if rng.uniform() < 0.01 && !fingers.isEmpty { fingers.remove(at: Int(rng.uniform() * Double(fingers.count))) }
        for i in fingers.indices {
          fingers[i].x = min(160, max(0, fingers[i].x + rng.gaussian() * 2))
          fingers[i].y = min(100, max(0, fingers[i].y + rng.gaussian() * 2))
          fingers[i].f = max(0, fingers[i].f + rng.gaussian() * 0.3)
        }
        var contacts = ContactList()
        for f in fingers where f.f > 0.02 {
          contacts.insert(
            Contact(x: Length_um(millimetres: f.x), y: Length_um(millimetres: f.y), force: Force_mN(newtons: f.f)))
        }
        let outcome: FrameOutcome = rng.uniform() < 0.02 ? .invalid : .measured
        let absorbed = rng.uniform() < 0.001
        run.tracker.update(contacts: contacts, outcome: outcome, loadAbsorbed: absorbed)
        if rng.uniform() < 0.002 { run.interaction.setForceTouch(rng.uniform() < 0.5) }
        // The host replaces the items now and then: the whole panel, or
        // one item (peekable or not) somewhere.
        if rng.uniform() < 0.002 { run.interaction.replaceRegions(try Self.regions(&rng)) }
        run.report(frame: frame, seed: seed)
      }
      // The end of the run: whatever is still down is cancelled.
      run.tracker.cancelAll()
      run.report(frame: 3000, seed: seed)
      for (id, open) in run.active where open { run.failures.append("seed \(seed): id \(id) never ended") }
      for (id, n) in run.peeks where n > 1 { run.failures.append("seed \(seed): id \(id) peeked \(n) times") }
      for (id, n) in run.cancels where n > 1 || run.peeks[id] == nil {
        run.failures.append("seed \(seed): id \(id) peek_cancelled \(n) times (peeks \(run.peeks[id] ?? 0))")
      }
      failures += run.failures
      touches += run.active.count
      peeks += run.peeks.count
    }
    #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(10))")
    // The fuzz does exercise what it checks.
    #expect(touches > 1000)
    #expect(peeks > 100)
  }
}
