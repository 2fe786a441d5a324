import ForceCore

/// Force stages per touch: none -> hint -> peek -> pop, entry thresholds
/// from the board scaled by the sensitivity, exits at 0.83 of the entry
/// (hysteresis), pop latched until lift, `peek` and `pop` events on entry,
/// `peek_cancelled` when a touch lifts while peeking.
public struct StageMachine: Sendable {
  struct Slot: Sendable {
    var id: UInt32 = 0
    var stage = Stage.none
    var used = false
  }
  let hint: Int64
  let peek: Int64
  let pop: Int64
  var slots: InlineArray<16, Slot> = InlineArray(repeating: Slot())

  /// Thresholds in Q21.10 mN from normalized values times the average touch.
  public init(settings: InteractionSettings) {
    let factor: Double
    switch settings.sensitivity {
    case .light: factor = 0.83
    case .medium: factor = 1
    case .firm: factor = 1.2
    }
    let unit = settings.averageTouch_n * factor
    hint = Int64(Force_mN(newtons: 0.5 * unit).rawValue)
    peek = Int64(Force_mN(newtons: settings.peek * unit).rawValue)
    pop = Int64(Force_mN(newtons: settings.pop * unit).rawValue)
  }

  /// Sets each touch's stage in `report` and appends the frame's events.
  public mutating func update(_ report: inout FrameReport) {
    for i in 0..<report.touchCount {
      let t = report.touch(i).touch
      let s = slot(for: t.id)
      var stage = slots[s].stage
      let f = Int64(t.force.rawValue)
      if t.phase.isFinal {
        if stage == .peek && t.phase == .ended { report.append(TouchEvent(kind: .peekCancelled, touch: t.id)) }
        slots[s].used = false
        report.setStage(stage, at: i)
        continue
      }
      let before = stage
      if stage != .pop {
        if f >= pop && stage >= .peek {
          stage = .pop
        } else if f >= peek {
          stage = .peek
        } else if stage == .peek && f >= peek * 83 / 100 {
          stage = .peek
        } else if f >= hint || (stage >= .hint && f >= hint * 83 / 100) {
          stage = stage == .peek ? .peek : .hint
        } else {
          stage = stage == .peek ? .peek : .none
        }
      }
      if stage != before {
        if stage == .peek { report.append(TouchEvent(kind: .peek, touch: t.id)) }
        if stage == .pop { report.append(TouchEvent(kind: .pop, touch: t.id)) }
      }
      slots[s].stage = stage
      report.setStage(stage, at: i)
    }
  }

  mutating func slot(for id: UInt32) -> Int {
    var free = 0
    for i in 0..<16 {
      if slots[i].used && slots[i].id == id { return i }
      if !slots[i].used { free = i }
    }
    slots[free] = Slot(id: id, stage: .none, used: true)
    return free
  }
}
