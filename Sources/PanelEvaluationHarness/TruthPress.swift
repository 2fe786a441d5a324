import PanelSimulation

/// What a scripted press is, and so what the panel should make of it.
package enum PressRole: String, Sendable, CaseIterable {
  /// A light tap: one touch, never a peek.
  case tap
  /// A firm press that stops between peek and pop: peeks, never pops.
  case peek
  /// A deep press through peek to pop: pops exactly once.
  case pop
  /// An object set down on the panel: absorbed as a parked load; no finger.
  case object
  /// One finger of a two-finger gesture: one stable id of its own.
  case finger
  /// A finger held on a peek for a long time: one touch that keeps its
  /// peek until it lifts (never absorbed as an object).
  case held
  /// A slow press (from start-up): reported, with its force.
  case slow
}

/// A scripted press with its role: the ground truth the reports are
/// scored against.
package struct TruthPress: Sendable, Equatable {
  package var touch: ScriptedTouch
  package var role: PressRole
  /// The two-finger pair this finger belongs to.
  package var pair: Int?

  package init(_ touch: ScriptedTouch, _ role: PressRole, pair: Int? = nil) {
    self.touch = touch
    self.role = role
    self.pair = pair
  }

  /// Whether a person's finger makes it (everything but an object).
  package var isFinger: Bool { role != .object }

  /// The still plateau of a trapezoid press (rise, hold, fall): from
  /// `settle_s` after the rise to the start of the fall; nil for a press
  /// that moves or has another profile.
  package func plateau(settle_s: Double = 0.02) -> (start: Double, end: Double, force_n: Double)? {
    let f = touch.force
    guard touch.x.count == 1, touch.y.count == 1, f.count == 4, f[1].value == f[2].value, f[1].value > 0 else {
      return nil
    }
    let start = touch.start_s + f[1].t + settle_s
    let end = touch.start_s + f[2].t
    return end > start ? (start, end, f[1].value) : nil
  }

  /// When the scripted force first reaches `force_n` (absolute seconds),
  /// nil when it never does.
  package func firstTime(reaching force_n: Double) -> Double? {
    let f = touch.force
    for i in f.indices where f[i].value >= force_n {
      guard i > 0 else { return touch.start_s + f[i].t }
      let a = f[i - 1]
      let b = f[i]
      let fraction = b.value > a.value ? (force_n - a.value) / (b.value - a.value) : 1
      return touch.start_s + a.t + (b.t - a.t) * max(0, min(1, fraction))
    }
    return nil
  }

  /// The largest scripted force, N.
  package var peak_n: Double { touch.force.map(\.value).max() ?? 0 }
}

/// One of the evaluation's standard scenarios for one panel: the script and
/// what each press is.
package struct EvaluationScenario: Sendable {
  package var name: String
  package var scenario: Scenario
  package var presses: [TruthPress]
  /// One line saying what it is.
  package var summary: String

  package init(name: String, scenario: Scenario, presses: [TruthPress], summary: String) {
    self.name = name
    self.scenario = scenario
    self.presses = presses
    self.summary = summary
  }
}
