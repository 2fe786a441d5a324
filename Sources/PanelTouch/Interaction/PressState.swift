import ForceCore

/// What a frame's press step works with: the thresholds and limits in
/// effect, in the frame path's integer units.
struct PressRules: Sendable {
  var thresholds: StageThresholds
  /// Frames a stage's force must hold before it commits.
  var holdFrames: UInt16
  /// Squared distances, um^2.
  var dragSlop2: Int64
  var holdSlop2: Int64
  /// A position must be this certain (spread, um: half the drag slop) to
  /// anchor the touch-down point.
  var anchorNoise: Int32
  var swipeUp_um: Int32
  var longPress_us: Int64

  init(settings s: InteractionSettings, sensitivity: Sensitivity, rate_hz: Int) {
    thresholds = StageThresholds(settings: s, sensitivity: sensitivity)
    holdFrames = UInt16(s.holdFrames(rate_hz: rate_hz))
    let drag = Int64(Length_um(millimetres: s.dragSlop_mm).rawValue)
    let hold = Int64(Length_um(millimetres: s.longPressSlop_mm).rawValue)
    dragSlop2 = drag * drag
    holdSlop2 = hold * hold
    anchorNoise = Int32(truncatingIfNeeded: drag / 2)
    swipeUp_um = Length_um(millimetres: s.swipeUp_mm).rawValue
    longPress_us = Saturating.int64(rounding: s.longPress_s * 1e6)
  }
}

/// One touch's interaction state: its force stage (none -> hint -> peek ->
/// pop) or, on the touch-and-hold fallback, its hold timer; and what it has
/// already raised. Fixed size; stepping it allocates nothing.
///
/// Force mode, per frame:
/// - Each stage above the current one is *armed* by a frame at or above its
///   entry force and stays armed while the force stays at or above its exit
///   force (entry x exit ratio); it commits once armed for `holdFrames`
///   frames. A fast press may commit several stages in one frame; each
///   stage's event is raised in order (peek before pop).
/// - Hint is left (to none) below its exit force. Peek holds until the
///   finger lifts or the press pops; pop is latched until lift.
/// - Moving beyond the drag slop before peek makes the touch a drag: stage
///   none, no deep stages until lift (NSEvent's deep-click drag rule).
///   Movement is measured from where the touch was when its force first
///   reached the anchor force (half an average touch) with its position
///   known within half the slop; before that, a light contact's position
///   is noisy (its error grows as 1/force), so only moving twice the slop
///   from the touch-down point counts. Every slop is widened by three
///   spreads of the positions compared.
/// - While peeking, moving up by `swipeUp` reveals the quick actions.
/// - Lifting while peeking raises `peek_cancelled`; lifting once the quick
///   actions are revealed raises `peek_actions_kept` instead: the preview
///   and its actions stay until the user picks one (3D Touch: the finger
///   lifts to choose).
///
/// Touch-and-hold (force off or unavailable, and edit menus always): held
/// for the long-press time within the hold slop, the item's hold action
/// fires once.
struct PressState: Sendable {
  var id: UInt32 = 0
  var used = false
  var item: Int16 = -1
  var traits = ItemTraits()
  /// The item is decided: the position was certain enough (`place`), or
  /// the touch reached a stage, fired its hold action or became a drag.
  /// Until then the item is the one under the touch's current position.
  var itemDecided = false
  /// On the touch-and-hold fallback (decided at touch-down; force lost
  /// mid-touch moves a touch onto it).
  var holdMode = false
  var stage = Stage.none
  var armHint: UInt16 = 0
  var armPeek: UInt16 = 0
  var armPop: UInt16 = 0
  var originX: Int32 = 0
  var originY: Int32 = 0
  var lastX: Int32 = 0
  var lastY: Int32 = 0
  var lastNoise: Int32 = 0
  var peekY: Int32 = 0
  /// The position's spread (um) where the origin and the peek were taken:
  /// movement is judged against it and the current one.
  var originNoise: Int32 = 0
  var peekNoise: Int32 = 0
  var down_us: Int64 = 0
  /// The origin was re-anchored at a confident force.
  var anchored = false
  /// Moved beyond the drag slop before peek.
  var dragging = false
  /// Moved beyond the long-press slop.
  var holdBroken = false
  /// The hold action fired.
  var held = false
  /// The quick actions were revealed from peek.
  var actionsShown = false
  /// A `peek` event was raised (a preview is showing until pop, lift or
  /// force lost). What dismisses it: this, not the item's traits, which
  /// the host may replace mid-touch.
  var peekShown = false
  /// A Live Photo is playing.
  var playing = false

  /// A new touch at `(x, y)` at time `t_us` on `item`.
  init(id: UInt32, x: Int32, y: Int32, t_us: Int64, item: Int16, traits: ItemTraits, holdMode: Bool) {
    self.id = id
    used = true
    self.item = item
    self.traits = traits
    self.holdMode = holdMode
    originX = x
    originY = y
    lastX = x
    lastY = y
    down_us = t_us
  }

  init() {}

  /// Until the item is decided: the item under the touch's current
  /// position `(x, y)` (spread `noise`, um), decided once the position is
  /// certain: three spreads within the distance to the nearest item's
  /// edge (a light contact's position is noisy, its error growing as
  /// 1/force: on a noisy plate a graze reads up to 20 mm off).
  mutating func place(x: Length_um, y: Length_um, noise: Int32, regions: RegionMap) {
    guard !itemDecided else { return }
    let hit = regions.hit(x: x, y: y)
    if hit != item {
      item = hit
      traits = regions.traits(of: hit)
    }
    if Int64(noise) * 3 <= Int64(regions.clearance(x: x, y: y)) { itemDecided = true }
  }

  /// What a stage, a hold action or a drag commits the touch to: its item
  /// stays from then on.
  mutating func commitItem() {
    if stage != .none || held || dragging { itemDecided = true }
  }

  /// What touch-and-hold does for this touch, if anything.
  var holdAction: EventKind? {
    if traits.contains(.editMenu) { return .editMenu }
    guard holdMode else { return nil }
    if traits.contains(.livePhoto) { return .livePhoto }
    if traits.contains(.peek) || traits.contains(.quickActions) { return .longPress }
    return nil
  }

  /// What reaching peek does: a preview, a quick-action menu, a Live Photo.
  var pressAction: EventKind {
    if traits.contains(.peek) { return .peek }
    if traits.contains(.quickActions) { return .quickActions }
    return .livePhoto
  }

  /// One frame of an active touch (not its last). Appends events to `report`
  /// and returns the progress in thousandths.
  /// `noise` is the position's spread (um, one standard deviation): a
  /// movement counts beyond a slop only when it is also beyond three
  /// spreads of the two positions it is measured between, so a still
  /// press on a noisy panel is never a drag.
  mutating func step(
    x: Int32, y: Int32, noise: Int32, force: Int32, t_us: Int64, rules: PressRules, report: inout FrameReport
  ) -> UInt16 {
    lastX = x
    lastY = y
    lastNoise = noise
    let dx = Int64(x) - Int64(originX)
    let dy = Int64(y) - Int64(originY)
    var d2 = dx * dx + dy * dy
    // Twice the distance (four times its square) until anchored.
    var scale: Int64 = 4
    if anchored {
      scale = 1
    } else if force >= rules.thresholds.anchor && noise <= rules.anchorNoise && !holdBroken && !dragging {
      anchored = true
      scale = 1
      originX = x
      originY = y
      originNoise = noise
      d2 = 0
    }
    let spread = PressState.spread(originNoise, noise)
    if PressState.beyond(d2, rules.holdSlop2 * scale, spread) { holdBroken = true }
    var progress: UInt16 = 0
    if !holdMode {
      if stage < .peek && !dragging && PressState.beyond(d2, rules.dragSlop2 * scale, spread) {
        dragging = true
        stage = .none
        armHint = 0
        armPeek = 0
        armPop = 0
      }
      progress = stepForce(y: y, noise: noise, force: force, rules: rules, report: &report)
    }
    // Touch-and-hold: the fallback, and edit menus in either mode.
    if let action = holdAction, !held {
      let elapsed = Saturating.subtract(t_us, down_us)
      if !holdBroken && elapsed >= rules.longPress_us {
        held = true
        if action == .livePhoto { playing = true }
        report.append(TouchEvent(kind: action, touch: id, item: item))
        progress = 1000
      } else if !holdBroken && (holdMode || traits.deepestStage == .none) {
        progress = UInt16(min(1000, max(0, Saturating.multiply(elapsed, 1000) / max(1, rules.longPress_us))))
      }
    } else if holdMode && held {
      progress = 1000
    }
    return progress
  }

  /// The force stages; returns the progress toward the next stage.
  mutating func stepForce(
    y: Int32, noise: Int32, force f: Int32, rules: PressRules, report: inout FrameReport
  ) -> UInt16 {
    let th = rules.thresholds
    let deepest = dragging ? Stage.none : traits.deepestStage
    if stage == .pop { return 1000 }
    // Arm the stages above the current one.
    if stage < .hint && deepest >= .hint { PressState.arm(&armHint, f, th.hintOn, th.hintOff) }
    if stage < .peek && deepest >= .peek { PressState.arm(&armPeek, f, th.peekOn, th.peekOff) }
    if deepest >= .pop { PressState.arm(&armPop, f, th.popOn, th.popOff) }
    // Commit the deepest stage held long enough.
    let hold = rules.holdFrames
    var target = stage
    if deepest >= .hint && stage < .hint && armHint >= hold { target = .hint }
    if deepest >= .peek && stage < .peek && armPeek >= hold { target = .peek }
    // Pop is the press past a preview: not past a quick-action menu or a
    // Live Photo whose item the host has made peekable since.
    if deepest >= .pop && armPop >= hold && (stage == .peek ? peekShown : target == .peek) { target = .pop }
    if target > stage {
      if stage < .peek && target >= .peek {
        peekY = y
        peekNoise = noise
        let action = pressAction
        if action == .livePhoto { playing = true }
        if action == .peek { peekShown = true }
        report.append(TouchEvent(kind: action, touch: id, item: item))
      }
      if target == .pop { report.append(TouchEvent(kind: .pop, touch: id, item: item)) }
      stage = target
    } else if stage == .hint && f < th.hintOff {
      stage = .none
    }
    // While peeking, an upward swipe reveals the quick actions.
    if stage == .peek && !actionsShown && traits.contains(.peek) && traits.contains(.quickActions)
      && Int64(peekY) - Int64(y) >= Int64(rules.swipeUp_um) + 3 * PressState.spread(peekNoise, noise)
    {
      actionsShown = true
      report.append(TouchEvent(kind: .quickActions, touch: id, item: item, origin: .peek))
    }
    if stage == .pop || (stage == deepest && stage != .none) { return 1000 }
    if stage >= deepest { return 0 }
    let lower = Int64(th.on(stage))
    let upper = Int64(th.on(Stage(rawValue: stage.rawValue + 1) ?? .pop))
    let p = (Int64(f) - lower) * 1000 / max(1, upper - lower)
    return UInt16(min(1000, max(0, p)))
  }

  /// The spread of the distance between two positions of spreads `a` and
  /// `b` (um): sqrt(a^2 + b^2).
  @inline(__always)
  static func spread(_ a: Int32, _ b: Int32) -> Int64 {
    FixedMath.squareRoot(Int64(a) * Int64(a) + Int64(b) * Int64(b))
  }

  /// Whether a squared distance `d2` (um^2) lies beyond a slop of square
  /// `slop2` plus three spreads `spread` (um).
  @inline(__always)
  static func beyond(_ d2: Int64, _ slop2: Int64, _ spread: Int64) -> Bool {
    let r = FixedMath.squareRoot(slop2) + 3 * spread
    return d2 > r * r
  }

  /// Counts the frames a stage has been armed: a frame at or above `on`
  /// arms it, frames at or above `off` keep it armed.
  @inline(__always)
  static func arm(_ count: inout UInt16, _ f: Int32, _ on: Int32, _ off: Int32) {
    if f >= on || (count > 0 && f >= off) {
      if count < UInt16.max { count += 1 }
    } else {
      count = 0
    }
  }

  /// The touch's last frame (ended or cancelled).
  mutating func finish(report: inout FrameReport) {
    endPeek(report: &report)
    if playing {
      playing = false
      report.append(TouchEvent(kind: .livePhotoEnd, touch: id, item: item))
    }
    used = false
  }

  /// The preview's end when the finger lifts or force is lost while
  /// peeking: dismissed, or kept with the quick actions it revealed.
  func endPeek(report: inout FrameReport) {
    guard peekShown && stage == .peek else { return }
    report.append(TouchEvent(kind: actionsShown ? .peekActionsKept : .peekCancelled, touch: id, item: item))
  }

  /// Force stopped being usable mid-touch: dismiss what force started and
  /// continue on the touch-and-hold fallback from here.
  mutating func loseForce(t_us: Int64, report: inout FrameReport) {
    guard !holdMode else { return }
    endPeek(report: &report)
    peekShown = false
    if playing && !held {
      playing = false
      report.append(TouchEvent(kind: .livePhotoEnd, touch: id, item: item))
    }
    holdMode = true
    stage = .none
    armHint = 0
    armPeek = 0
    armPop = 0
    originX = lastX
    originY = lastY
    originNoise = lastNoise
    anchored = true
    down_us = t_us
    holdBroken = false
  }
}
