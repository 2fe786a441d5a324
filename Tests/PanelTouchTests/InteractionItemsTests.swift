import ForceCore
import PanelFirmware
import PanelTestSupport
import Testing

@testable import PanelFormats
@testable import PanelSimulation
@testable import PanelStreaming
@testable import PanelTouch

/// What touches do on the host's items: peek quick actions, icon menus,
/// Live Photos, edit menus, the touch-and-hold fallback and capability.
@Suite struct InteractionItemsTests {
  static let actions = [QuickAction(title: "Reply", icon: "arrowshape.turn.up.left"), QuickAction(title: "Mark as Read")]

  /// A message row (peek, pop, quick actions), two icons (quick actions
  /// only), a Live Photo and a text field (edit menu).
  static func regions() -> RegionMap {
    try! RegionMap(
      items: [
        RegionItem(name: "message", x_mm: 50, y_mm: 30, width_mm: 60, height_mm: 16, peek: true, pop: true, quickActions: actions),
        RegionItem(name: "mail", x_mm: 8, y_mm: 8, width_mm: 24, height_mm: 24, quickActions: [QuickAction(title: "New Message")]),
        RegionItem(name: "camera", x_mm: 128, y_mm: 68, width_mm: 24, height_mm: 24, quickActions: [QuickAction(title: "Selfie")]),
        RegionItem(name: "photo", x_mm: 8, y_mm: 60, width_mm: 30, height_mm: 30, livePhoto: true),
        RegionItem(name: "note", x_mm: 50, y_mm: 60, width_mm: 60, height_mm: 16, editMenu: true),
      ], panelWidth_mm: 160, panelHeight_mm: 100)
  }

  static func drive(forceTouch: Bool = true) -> InteractionDrive {
    InteractionDrive(board: InteractionDrive.board { $0.forceTouch = forceTouch }, regions: regions())
  }

  /// Press at (x, y) to `force` newtons, hold, lift.
  static func press(_ force: Double, x: Double, y: Double, hold: Double = 0.3) -> [Sample] {
    Profile.ramp(0.1, force, seconds: 0.2, x: x, y: y) + Profile.hold(force, seconds: hold, x: x, y: y) + [Sample(0.03, x, y)]
  }

  @Test func stagesAndEventsNameTheItem() {
    var d = Self.drive()
    d.press(Self.press(2.0, x: 80, y: 38))
    #expect(d.kinds() == [.peek, .peekCancelled])
    #expect(d.events.allSatisfy { $0.event.item == 0 })
    #expect(d.stages.allSatisfy { $0.item == 0 })
  }

  @Test func swipingUpWhilePeekingRevealsTheQuickActions() {
    var d = Self.drive()
    var samples = Self.press(1.6, x: 80, y: 38).dropLast()
    // Up by 12 mm (past the 10 mm swipe) at a lighter force, then lift.
    for i in 0...40 { samples.append(Sample(1.0, 80, 38 - 12 * Double(i) / 40)) }
    d.press(Array(samples) + [Sample(0.03, 80, 26)])
    // Lifting once the actions show keeps the preview with them (the user
    // lifts to choose one): peek_actions_kept in the lift frame, nothing
    // cancelled.
    #expect(d.kinds() == [.peek, .quickActions, .peekActionsKept])
    #expect(d.frame(of: .peekActionsKept) == d.frame - 1)
    // Only 6 mm: no quick actions.
    var e = Self.drive()
    var short = Self.press(1.6, x: 80, y: 38).dropLast()
    for i in 0...40 { short.append(Sample(1.0, 80, 38 - 6 * Double(i) / 40)) }
    e.press(Array(short) + [Sample(0.03, 80, 32)])
    #expect(e.kinds() == [.peek, .peekCancelled])
    // Down instead of up: none either.
    var f = Self.drive()
    var down = Self.press(1.6, x: 80, y: 38).dropLast()
    for i in 0...40 { down.append(Sample(1.0, 80, 38 + 12 * Double(i) / 40)) }
    f.press(Array(down) + [Sample(0.03, 80, 50)])
    #expect(f.kinds() == [.peek, .peekCancelled])
  }

  @Test func anIconPressShowsItsQuickActionsAndNeverPops() {
    var d = Self.drive()
    d.press(Self.press(5.2, x: 20, y: 20))
    #expect(d.kinds() == [.quickActions])
    #expect(d.stages.map(\.stage).max() == .peek)
    #expect(d.interaction.regions.placements[1] == MenuPlacement(side: .below, align: .left))
    #expect(d.interaction.regions.placements[2] == MenuPlacement(side: .above, align: .right))
    // A light press on it does nothing.
    var e = Self.drive()
    e.press(Self.press(0.8, x: 140, y: 80))
    #expect(e.kinds().isEmpty)
  }

  @Test func aLivePhotoPlaysWhilePressed() {
    var d = Self.drive()
    d.press(Self.press(2.0, x: 20, y: 75))
    #expect(d.kinds() == [.livePhoto, .livePhotoEnd])
  }

  @Test func anEditMenuAnswersTouchAndHoldInEitherMode() {
    for force in [true, false] {
      var d = Self.drive(forceTouch: force)
      d.press(Self.press(0.8, x: 80, y: 68, hold: 0.6))
      #expect(d.kinds() == [.editMenu], "force touch \(force)")
      // A firm press on text does nothing deep.
      var e = Self.drive(forceTouch: force)
      e.press(Self.press(4.5, x: 80, y: 68, hold: 0.1))
      #expect(e.kinds().isEmpty)
      #expect(e.stages.allSatisfy { $0.stage == .none })
    }
  }

  @Test func outsideEveryItemNothingHappens() {
    var d = Self.drive()
    d.press(Self.press(5.0, x: 140, y: 20))
    #expect(d.kinds().isEmpty)
    #expect(d.stages.allSatisfy { $0.stage == .none && $0.item == -1 })
  }

  @Test func withForceOffTouchAndHoldOffersTheSameActions() {
    var d = Self.drive(forceTouch: false)
    // The first frame announces the capability: off.
    d.idle(1)
    #expect(d.events.first?.event.kind == .capability)
    #expect(d.report.capability == .off)
    d.press(Self.press(0.8, x: 80, y: 38, hold: 0.7), id: 1)  // message row: peek item
    d.press(Self.press(0.8, x: 20, y: 20, hold: 0.7), id: 2)  // mail icon
    d.press(Self.press(0.8, x: 20, y: 75, hold: 0.7), id: 3)  // live photo
    d.press(Self.press(5.0, x: 80, y: 38, hold: 0.2), id: 4)  // hard and short: nothing
    #expect(d.kinds(1) == [.longPress])
    #expect(d.kinds(2) == [.longPress])
    #expect(d.kinds(3) == [.livePhoto, .livePhotoEnd])
    #expect(d.kinds(4).isEmpty)
    #expect(d.stages.allSatisfy { $0.stage == .none })
  }

  @Test func theLongPressFiresAfterHalfASecondWithinTenPoints() {
    var d = InteractionDrive(board: InteractionDrive.board { $0.forceTouch = false })
    d.press(Profile.hold(0.8, seconds: 0.8), id: 1)
    let down = d.stages.first { $0.id == 1 }!.frame
    let fired = d.frame(of: .longPress)!
    // 0.5 s at 320 Hz = 160 frames after touch-down.
    #expect(fired - down == 160)
    #expect(d.stages.first { $0.frame == fired }!.progress == 1000)
    #expect(d.stages.first { $0.frame == fired - 80 }!.progress == 500)
    // Moving 3 mm (beyond 1.6 mm) before the half second: no long press.
    var e = InteractionDrive(board: InteractionDrive.board { $0.forceTouch = false })
    var moving: [Sample] = []
    for i in 0..<256 { moving.append(Sample(0.8, 80 + 3 * Double(min(i, 100)) / 100, 50)) }
    e.press(moving)
    #expect(e.kinds().isEmpty)
    // Wobbling by 1 mm: still a long press.
    var f = InteractionDrive(board: InteractionDrive.board { $0.forceTouch = false })
    var wobble: [Sample] = []
    for i in 0..<256 { wobble.append(Sample(0.8, 80 + (i % 2 == 0 ? 0.5 : -0.5), 50)) }
    f.press(wobble)
    #expect(f.kinds() == [.longPress])
    // Too short: none.
    var g = InteractionDrive(board: InteractionDrive.board { $0.forceTouch = false })
    g.press(Profile.hold(0.8, seconds: 0.45))
    #expect(g.kinds().isEmpty)
  }

  @Test func forceSwitchedOffAndOnWhileRunning() {
    var d = Self.drive()
    d.press(Self.press(2.0, x: 80, y: 38), id: 1)
    d.interaction.setForceTouch(false)
    d.press(Self.press(2.0, x: 80, y: 38, hold: 0.7), id: 2)
    d.interaction.setForceTouch(true)
    d.press(Self.press(2.0, x: 80, y: 38), id: 3)
    #expect(d.kinds(1) == [.peek, .peekCancelled])
    #expect(d.kinds(2) == [.longPress])
    #expect(d.kinds(3) == [.peek, .peekCancelled])
    let announced = d.events.filter { $0.event.kind == .capability }
    #expect(announced.count == 2)
  }

  @Test func losingForceMidPeekCancelsThePreviewAndFallsBack() {
    var d = Self.drive()
    // Peek, then the calibration... a cell fails: force unavailable.
    var samples = Self.press(2.0, x: 80, y: 38, hold: 0.1)
    samples.removeLast()
    for s in samples { d.step([(1, d.stages.isEmpty ? .began : .stationary, s)]) }
    #expect(d.kinds() == [.peek])
    d.interaction.setForceTouch(false)
    for _ in 0..<200 { d.step([(1, .stationary, Sample(2.0, 80, 38))]) }
    d.step([(1, .ended, Sample(0.03, 80, 38))])
    #expect(d.kinds() == [.peek, .peekCancelled, .longPress])
    #expect(d.stages.last!.stage == .none)
  }

  @Test func noValidCalibrationMeansUnavailableAndTheFallback() {
    var d = InteractionDrive(regions: Self.regions(), calibrated: false)
    d.press(Self.press(2.0, x: 80, y: 38, hold: 0.7))
    #expect(d.report.capability == ForceCapability(state: .unavailable, reason: .noCalibration))
    #expect(d.kinds() == [.longPress])
  }

  @Test func regionsReplacedAtRunTimeAreAnnouncedAndUsed() throws {
    var d = Self.drive()
    try d.interaction.replaceQuickActions(of: "mail", with: [QuickAction(title: "Inbox"), QuickAction(title: "VIP")])
    d.idle(1)
    #expect(d.events.map(\.event.kind) == [.regions])
    #expect(d.report.regions.items[1].quickActions.map(\.title) == ["Inbox", "VIP"])
    d.interaction.replaceRegions(RegionMap.whole(panelWidth_mm: 160, panelHeight_mm: 100))
    d.press(Self.press(2.0, x: 20, y: 20))
    #expect(d.kinds() == [.peek, .peekCancelled])
  }

  /// The items replaced while a touch peeks: its preview is still
  /// dismissed at the lift, whatever is under it now.
  @Test func aPeekIsDismissedAfterTheItemsAreReplacedUnderIt() throws {
    var d = Self.drive()
    var samples = Self.press(2.0, x: 80, y: 38)
    samples.removeLast()
    for (i, s) in samples.enumerated() { d.step([(1, i == 0 ? .began : .moved, s)]) }
    #expect(d.kinds() == [.peek])
    let elsewhere = RegionItem(name: "b", x_mm: 0, y_mm: 0, width_mm: 10, height_mm: 10, peek: true, pop: true)
    d.interaction.replaceRegions(try RegionMap(items: [elsewhere], panelWidth_mm: 160, panelHeight_mm: 100))
    d.step([(1, .moved, Sample(2.0, 80, 38))])
    d.step([(1, .ended, Sample(0.03, 80, 38))])
    #expect(d.kinds() == [.peek, .peekCancelled])
    // The same when force goes away instead of the finger.
    var e = Self.drive()
    for (i, s) in samples.enumerated() { e.step([(1, i == 0 ? .began : .moved, s)]) }
    e.interaction.replaceRegions(try RegionMap(items: [elsewhere], panelWidth_mm: 160, panelHeight_mm: 100))
    e.interaction.setForceTouch(false)
    e.step([(1, .moved, Sample(2.0, 80, 38))])
    #expect(e.kinds() == [.peek, .peekCancelled])
  }

  /// An icon's menu is not a preview: an icon made peekable mid-press
  /// neither pops nor dismisses a preview it never showed.
  @Test func aMenuPressOnAnItemMadePeekableNeitherPopsNorCancels() throws {
    var d = Self.drive()
    var samples = Self.press(1.6, x: 20, y: 20, hold: 0.1)
    samples.removeLast()
    for (i, s) in samples.enumerated() { d.step([(1, i == 0 ? .began : .moved, s)]) }
    #expect(d.kinds() == [.quickActions])
    let peekable = RegionItem(name: "mail", x_mm: 8, y_mm: 8, width_mm: 24, height_mm: 24, peek: true, pop: true)
    d.interaction.replaceRegions(try RegionMap(items: [peekable], panelWidth_mm: 160, panelHeight_mm: 100))
    for s in Profile.ramp(1.6, 6.0, seconds: 0.3, x: 20, y: 20) { d.step([(1, .moved, s)]) }
    d.step([(1, .ended, Sample(0.03, 20, 20))])
    #expect(d.kinds() == [.quickActions])
  }
}

/// A cell failing at its rail on the simulated panels: masked, counted, no
/// false touch, force unavailable and back.
@Suite struct CellFaultTests {
  @Test(arguments: ["sim-plate4", "sim-grid"])
  func aFailedCellMakesNoTouchAndForceUnavailable(_ name: String) throws {
    let board = try Repo.board(name)
    let scenario = Scenario(name: "fault", duration_s: 4, touches: [], faults: [CellFault(cell: 1, start_s: 1, end_s: 2)])
    let parameters = try board.simulationParameters
    let panel = SimulatedPanel(board: board, parameters: parameters, scenario: scenario)
    let loop = ScanLoop(source: panel, board: board, calibration: panel.trueCalibration(created: "test"))
    var states: [(Double, ForceCapability)] = []
    var touches = 0
    while try loop.step() {
      touches += loop.report.touchCount
      states.append((Double(loop.report.time.rawValue) / 1e6, loop.report.capability))
    }
    #expect(touches == 0)
    let rate = Double(board.rate_hz)
    #expect(loop.interaction.health.railSamples == UInt64(rate))  // one second at the rail
    let unavailable = states.filter { !$0.1.isAvailable }
    #expect(unavailable.first?.1 == ForceCapability(state: .unavailable, reason: .cellFault, cell: 1))
    // From a quarter second after the failure to half a second after the repair.
    #expect(abs(unavailable.first!.0 - 1.25) < 2 / rate)
    #expect(abs(unavailable.last!.0 - 2.5) < 2.5 / rate)
  }
}
