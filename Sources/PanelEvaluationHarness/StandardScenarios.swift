import PanelFormats
import PanelSimulation

#if canImport(Glibc)
  import Glibc
#endif

/// The standard scenarios every panel of the evaluation is recorded with:
/// light taps; deep presses, half stopping in peek and half going to pop;
/// a slow +8 degC ramp with taps; a faster -8 degC cooling with taps; a
/// 3 N object parked for 90 s with taps before, during and after; two
/// fingers moving together (grids); then where users go: taps, peeks and
/// pops in the outer band (edges and corners), fingers held 30-120 s on a
/// peek with a finger's tremor and a parked object, a slow press from
/// start-up, and on grids two still fingers 25-45 mm apart and pinches.
/// Positions and forces are drawn from a seed; forces come from the
/// board's own thresholds (`PressForces`).
package struct StandardScenarios: Sendable {
  /// How long and how many: the full set, or the quick one for CI (the
  /// temperature changes at the same rate, for a shorter time).
  package struct Lengths: Sendable, Equatable {
    package var taps: Int
    package var presses: Int
    package var ramp_s: Double
    package var rampTapEvery_s: Double
    package var cooling_s: Double
    package var coolingTapEvery_s: Double
    package var parked_s: Double
    package var pairs: Int
    /// Presses in the outer band (a third each taps, peeks, pops).
    package var edges = 36
    /// Still pairs 30-45 mm apart, and 25-30 mm apart; pinches.
    package var stillPairs = 20
    package var closePairs = 10
    package var pinches = 12
    /// Fingers held on a peek, each for a time drawn in `held_s`, and how
    /// long the object of the same scenario stays.
    package var held = 3
    package var held_s: ClosedRange<Double> = 30...120
    package var heldObject_s = 75.0

    package static let full = Lengths(
      taps: 40, presses: 24, ramp_s: 600, rampTapEvery_s: 10, cooling_s: 300, coolingTapEvery_s: 15, parked_s: 90,
      pairs: 12)
    package static let quick = Lengths(
      taps: 12, presses: 8, ramp_s: 60, rampTapEvery_s: 10, cooling_s: 30, coolingTapEvery_s: 10, parked_s: 30,
      pairs: 4, edges: 9, stillPairs: 4, closePairs: 2, pinches: 2, held: 1, held_s: 30...30, heldObject_s: 25)
  }

  /// The ramp: +8 degC over 600 s; the cooling: -8 degC over 300 s (the
  /// same rates for shorter lengths), each with a gradient across the panel
  /// growing to 1 degC (x) and 0.5 degC (y) of the same sign.
  package static let rampRate_c_per_s = 8.0 / 600
  package static let coolingRate_c_per_s = -8.0 / 300
  package static let parkedForce_n = 3.0

  package let board: Board
  package let lengths: Lengths
  package let forces: PressForces
  var random: SimRandom

  package init(board: Board, seed: UInt64, lengths: Lengths) {
    self.board = board
    self.lengths = lengths
    forces = PressForces(board: board)
    random = SimRandom(seed: seed ^ 0x5CE7_A210_5CE7_A210)
  }

  /// Every scenario for the board, in table order.
  /// Every scenario's name, in the order `all()` draws them (grids' only
  /// ones included).
  package static let names = [
    "taps", "presses", "ramp", "cooling", "parked", "two-finger", "edges", "held", "startup", "pairs", "close-pairs",
    "pinch",
  ]

  package mutating func all() -> [EvaluationScenario] {
    var list = [taps(), presses(), ramp(), cooling(), parked()]
    if board.grid != nil { list.append(twoFingers()) }
    // Where users go (drawn after the scenarios above, which stay as they were).
    list += [edges(), held(), startup()]
    if board.grid != nil { list += [stillPairs(), closePairs(), pinches()] }
    return list
  }

  // MARK: The scenarios

  package mutating func taps() -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    for _ in 0..<lengths.taps {
      presses.append(tap(at: t, position: point()))
      t += 0.6
    }
    return scenario(
      "taps", presses, end: t + 0.5, "\(lengths.taps) light taps, \(range(forces.tap)) N, 60-150 ms")
  }

  package mutating func presses() -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    for i in 0..<lengths.presses {
      let role: PressRole = i % 2 == 0 ? .peek : .pop
      let f = draw(role == .peek ? forces.peek : forces.pop)
      let rise = 0.15 + 0.15 * random.uniform()
      let hold = 0.4 + 0.2 * random.uniform()
      let p = point()
      presses.append(
        TruthPress(ScriptedTouch(start_s: t, x_mm: p.x, y_mm: p.y, force_n: f, hold_s: hold, rise_s: rise, fall_s: 0.15), role))
      t += 1.5
    }
    return scenario(
      "presses", presses, end: t + 0.5,
      "\(lengths.presses) deep presses: half held at \(range(forces.peek)) N (peek, no pop), half at \(range(forces.pop)) N (pop)")
  }

  package mutating func ramp() -> EvaluationScenario {
    drift("ramp", rate: StandardScenarios.rampRate_c_per_s, length: lengths.ramp_s, tapEvery: lengths.rampTapEvery_s)
  }

  package mutating func cooling() -> EvaluationScenario {
    drift(
      "cooling", rate: StandardScenarios.coolingRate_c_per_s, length: lengths.cooling_s,
      tapEvery: lengths.coolingTapEvery_s)
  }

  /// Temperature changing at `rate` for `length` seconds (after 10 s at 25
  /// degC, and held 20 s after), a tap every `tapEvery` seconds.
  mutating func drift(_ name: String, rate: Double, length: Double, tapEvery: Double) -> EvaluationScenario {
    let change = rate * length
    let end = 10 + length + 20
    var presses: [TruthPress] = []
    var t = 15.0
    while t < end - 5 {
      presses.append(tap(at: t, position: point()))
      t += tapEvery
    }
    var s = Scenario(
      name: name, duration_s: end,
      temperature: [Keyframe(0, 25), Keyframe(10, 25), Keyframe(10 + length, 25 + change), Keyframe(end, 25 + change)],
      touches: presses.map(\.touch))
    let sign = change < 0 ? -1.0 : 1.0
    s.gradientX = [Keyframe(0, 0), Keyframe(10, 0), Keyframe(10 + length, sign), Keyframe(end, sign)]
    s.gradientY = [Keyframe(0, 0), Keyframe(10, 0), Keyframe(10 + length, sign * 0.5), Keyframe(end, sign * 0.5)]
    let verb = change < 0 ? "cooling" : "warming"
    return EvaluationScenario(
      name: name, scenario: s, presses: presses,
      summary: "\(verb) \(Format.short(change)) degC over \(Format.short(length)) s (\(Format.short(sign)) degC across x, \(Format.short(sign * 0.5)) across y), a light tap every \(Format.short(tapEvery)) s")
  }

  package mutating func parked() -> EvaluationScenario {
    var presses: [TruthPress] = []
    let spot = point()
    var t = 1.0
    for _ in 0..<5 {
      presses.append(tap(at: t, position: point(awayFrom: spot)))
      t += 0.8
    }
    let placed = t + 1
    let rise = 0.3
    let object = ScriptedTouch(
      start_s: placed, x_mm: spot.x, y_mm: spot.y, force_n: StandardScenarios.parkedForce_n, hold_s: lengths.parked_s - rise,
      rise_s: rise, fall_s: 0.3)
    presses.append(TruthPress(object, .object))
    // Taps beside it once the panel has absorbed it, then after it is lifted
    // (the first where it stood).
    t = placed + board.detection.maxOn_s + 3
    while t < object.end_s - 2 {
      presses.append(tap(at: t, position: point(awayFrom: spot)))
      t += 3
    }
    t = object.end_s + 2
    presses.append(tap(at: t, position: spot))
    for _ in 0..<4 {
      t += 0.8
      presses.append(tap(at: t, position: point()))
    }
    return scenario(
      "parked", presses, end: t + 1,
      "a \(Format.short(StandardScenarios.parkedForce_n)) N object parked \(Format.short(lengths.parked_s)) s at (\(Format.short(spot.x)), \(Format.short(spot.y))) mm; light taps before, beside it and after")
  }

  package mutating func twoFingers() -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    let pitch = board.grid?.pitch_mm ?? 20
    for pair in 0..<lengths.pairs {
      let pinch = pair % 2 == 1
      // Fingers at least 2.5 pitches apart all the way.
      var a0 = (x: 0.0, y: 0.0), a1 = a0, b0 = a0, b1 = a0
      for attempt in 0...100 {
        // The last attempt: side by side about the panel's centre, which fits.
        let c = attempt < 100 ? point() : (x: board.width_mm / 2, y: board.height_mm / 2)
        let angle = attempt < 100 ? random.uniform() * 2 * Double.pi : 0
        let (ux, uy) = (cos(angle), sin(angle))
        let start = pinch ? 4.0 * pitch : 3.5 * pitch
        let finish = pinch ? 2.5 * pitch : 3.5 * pitch
        let shift = pinch ? (x: 0.0, y: 0.0) : (x: 1.5 * pitch * cos(angle + 1.3), y: 1.5 * pitch * sin(angle + 1.3))
        a0 = (c.x - ux * start / 2, c.y - uy * start / 2)
        b0 = (c.x + ux * start / 2, c.y + uy * start / 2)
        a1 = (c.x - ux * finish / 2 + shift.x, c.y - uy * finish / 2 + shift.y)
        b1 = (c.x + ux * finish / 2 + shift.x, c.y + uy * finish / 2 + shift.y)
        if [a0, a1, b0, b1].allSatisfy(inside) { break }
      }
      // A panel too small for 2.5 pitches inside the margins: on the panel.
      if ![a0, a1, b0, b1].allSatisfy(inside) {
        func clamp(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) {
          (min(max(p.x, 1), board.width_mm - 1), min(max(p.y, 1), board.height_mm - 1))
        }
        (a0, a1, b0, b1) = (clamp(a0), clamp(a1), clamp(b0), clamp(b1))
      }
      let fa = draw(0.8...1.2)
      let fb = draw(0.8...1.2)
      presses.append(TruthPress(finger(at: t, from: a0, to: a1, force: fa), .finger, pair: pair))
      presses.append(TruthPress(finger(at: t + 0.05, from: b0, to: b1, force: fb), .finger, pair: pair))
      t += 2
    }
    return scenario(
      "two-finger", presses, end: t + 0.5,
      "\(lengths.pairs) pairs of fingers at 0.8-1.2 N, 2.5 pitches apart or more, moving together or pinching")
  }

  /// Taps, peek presses and pop presses in the outer band: within a tenth
  /// of the panel's width or height of an edge (at least 4 mm in, where a
  /// fingertip's centre can be), a quarter of them in a corner.
  package mutating func edges() -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    for i in 0..<lengths.edges {
      let p = edgePoint(corner: i % 4 == 3)
      switch i % 3 {
      case 0:
        presses.append(tap(at: t, position: p))
        t += 0.6
      default:
        let role: PressRole = i % 3 == 1 ? .peek : .pop
        let f = draw(role == .peek ? forces.peek : forces.pop)
        let rise = 0.15 + 0.15 * random.uniform()
        let hold = 0.4 + 0.2 * random.uniform()
        presses.append(
          TruthPress(ScriptedTouch(start_s: t, x_mm: p.x, y_mm: p.y, force_n: f, hold_s: hold, rise_s: rise, fall_s: 0.15), role))
        t += 1.5
      }
    }
    return scenario(
      "edges", presses, end: t + 0.5,
      "\(lengths.edges) presses in the outer band (a tenth of the panel from its edges, a quarter in corners): light taps, peeks and pops")
  }

  /// Fingers held on a peek for 30-120 s each with a finger's tremor (force
  /// 4-8 % RMS, mostly below 4 Hz; the centroid wandering 0.1-0.3 mm), one
  /// after another; then a 3 N object set down, still, and lifted; a tap
  /// where it stood.
  package mutating func held() -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    for _ in 0..<lengths.held {
      let p = point()
      let f = draw(forces.peek.lowerBound...(forces.peek.lowerBound + 0.5 * (forces.peek.upperBound - forces.peek.lowerBound)))
      let hold = draw(lengths.held_s)
      let tremor = Tremor(
        force: draw(0.04...0.08), position_mm: draw(0.1...0.3), seed: random.next() % 1_000_000)
      var touch = ScriptedTouch(start_s: t, x_mm: p.x, y_mm: p.y, force_n: f, hold_s: hold, rise_s: 0.25, fall_s: 0.2)
      touch.tremor = tremor
      presses.append(TruthPress(touch, .held))
      t = touch.end_s + 2
    }
    let spot = point()
    let object = ScriptedTouch(
      start_s: t, x_mm: spot.x, y_mm: spot.y, force_n: StandardScenarios.parkedForce_n, hold_s: lengths.heldObject_s,
      rise_s: 0.3, fall_s: 0.3)
    presses.append(TruthPress(object, .object))
    t = object.end_s + 2
    presses.append(tap(at: t, position: spot))
    return scenario(
      "held", presses, end: t + 1,
      "\(lengths.held) finger(s) held \(range(lengths.held_s)) s on a peek with a tremor; a \(Format.short(StandardScenarios.parkedForce_n)) N object parked \(Format.short(lengths.heldObject_s)) s")
  }

  /// A slow press from start-up: from 0.5 s, rising to 5 N (at most 90 %
  /// of what the board reports) over 12-15 s, held 2 s; then light taps.
  package mutating func startup() -> EvaluationScenario {
    let p = point()
    let f = min(5, 0.9 * forces.max_n).rounded(toPlaces: 2)
    let rise = draw(12...15)
    var presses = [TruthPress(ScriptedTouch(start_s: 0.5, x_mm: p.x, y_mm: p.y, force_n: f, hold_s: 2, rise_s: rise, fall_s: 0.3), .slow)]
    var t = presses[0].touch.end_s + 1
    for _ in 0..<3 {
      presses.append(tap(at: t, position: point()))
      t += 0.8
    }
    return scenario(
      "startup", presses, end: t + 0.5,
      "a slow press from 0.5 s after start-up, 0 to \(Format.short(f)) N over \(Format.short(rise)) s; three light taps after")
  }

  /// Two still fingers of one hand 30-45 mm apart.
  package mutating func stillPairs() -> EvaluationScenario {
    pairs("pairs", count: lengths.stillPairs, apart: 30...45)
  }

  /// Two still fingers 25-30 mm apart: one merged contact or two, never
  /// alternating.
  package mutating func closePairs() -> EvaluationScenario {
    pairs("close-pairs", count: lengths.closePairs, apart: 25...29.9)
  }

  mutating func pairs(_ name: String, count: Int, apart: ClosedRange<Double>) -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    for pair in 0..<count {
      let d = draw(apart)
      let (a, b) = placePair(start: d, finish: d)
      presses.append(TruthPress(finger(at: t, from: a.0, to: a.1, force: draw(0.8...1.2)), .finger, pair: pair))
      presses.append(TruthPress(finger(at: t + 0.05, from: b.0, to: b.1, force: draw(0.8...1.2)), .finger, pair: pair))
      t += 2
    }
    return scenario(
      name, presses, end: t + 0.5, "\(count) pairs of still fingers \(range(apart)) mm apart at 0.8-1.2 N")
  }

  /// Two fingers moving towards each other, from 55-75 mm apart to 20-25.
  package mutating func pinches() -> EvaluationScenario {
    var presses: [TruthPress] = []
    var t = 1.0
    for pair in 0..<lengths.pinches {
      let (a, b) = placePair(start: draw(55...75), finish: draw(20...25))
      presses.append(TruthPress(finger(at: t, from: a.0, to: a.1, force: draw(0.8...1.2)), .finger, pair: pair))
      presses.append(TruthPress(finger(at: t + 0.05, from: b.0, to: b.1, force: draw(0.8...1.2)), .finger, pair: pair))
      t += 2
    }
    return scenario(
      "pinch", presses, end: t + 0.5, "\(lengths.pinches) pinches from 55-75 mm apart to 20-25 mm at 0.8-1.2 N")
  }

  /// Two fingers about a drawn centre on a drawn axis, `start` mm apart
  /// moving to `finish` mm apart, inside the margins (or at the panel's
  /// centre when nothing drawn fits, as far apart as the panel allows).
  mutating func placePair(start: Double, finish: Double) -> (
    ((x: Double, y: Double), (x: Double, y: Double)), ((x: Double, y: Double), (x: Double, y: Double))
  ) {
    var result = (((x: 0.0, y: 0.0), (x: 0.0, y: 0.0)), ((x: 0.0, y: 0.0), (x: 0.0, y: 0.0)))
    for attempt in 0...100 {
      let c = attempt < 100 ? point() : (x: board.width_mm / 2, y: board.height_mm / 2)
      let angle = attempt < 100 ? random.uniform() * 2 * Double.pi : (board.width_mm >= board.height_mm ? 0 : Double.pi / 2)
      let (ux, uy) = (cos(angle), sin(angle))
      // At the centre, on a panel too small for the pair: as far apart as
      // the panel allows, 4 mm in from its edges.
      var longest = Double.infinity
      if attempt == 100 {
        if abs(ux) > 1e-9 { longest = min(longest, (board.width_mm - 8) / abs(ux)) }
        if abs(uy) > 1e-9 { longest = min(longest, (board.height_mm - 8) / abs(uy)) }
      }
      func at(_ s: Double) -> (x: Double, y: Double) {
        let s = s < 0 ? max(s, -longest) : min(s, longest)
        return ((c.x + ux * s / 2).rounded(toPlaces: 1), (c.y + uy * s / 2).rounded(toPlaces: 1))
      }
      result = ((at(-start), at(-finish)), (at(start), at(finish)))
      if [result.0.0, result.0.1, result.1.0, result.1.1].allSatisfy(inside) { break }
    }
    return result
  }

  /// A point in the outer band, or in a corner of it.
  mutating func edgePoint(corner: Bool) -> (x: Double, y: Double) {
    let bandX = max(4.5, board.width_mm / 10)
    let bandY = max(4.5, board.height_mm / 10)
    func depth(_ band: Double) -> Double { 4 + random.uniform() * (band - 4) }
    func along(_ length: Double) -> Double { 4 + random.uniform() * (length - 8) }
    var x: Double
    var y: Double
    let side = Int(random.uniform() * 4)
    if corner {
      x = depth(bandX)
      y = depth(bandY)
      if side % 2 == 1 { x = board.width_mm - x }
      if side >= 2 { y = board.height_mm - y }
    } else if side < 2 {
      x = depth(bandX)
      if side == 1 { x = board.width_mm - x }
      y = along(board.height_mm)
    } else {
      y = depth(bandY)
      if side == 3 { y = board.height_mm - y }
      x = along(board.width_mm)
    }
    return (x.rounded(toPlaces: 1), y.rounded(toPlaces: 1))
  }

  // MARK: Pieces

  func scenario(_ name: String, _ presses: [TruthPress], end: Double, _ summary: String) -> EvaluationScenario {
    EvaluationScenario(
      name: name, scenario: Scenario(name: name, duration_s: end, touches: presses.map(\.touch)), presses: presses,
      summary: summary)
  }

  mutating func tap(at t: Double, position p: (x: Double, y: Double)) -> TruthPress {
    let f = draw(forces.tap)
    let rise = 0.03 + 0.02 * random.uniform()
    let hold = 0.06 + 0.09 * random.uniform()
    return TruthPress(ScriptedTouch(start_s: t, x_mm: p.x, y_mm: p.y, force_n: f, hold_s: hold, rise_s: rise, fall_s: rise), .tap)
  }

  func finger(at t: Double, from a: (x: Double, y: Double), to b: (x: Double, y: Double), force f: Double) -> ScriptedTouch {
    ScriptedTouch(
      start_s: t, force: [Keyframe(0, 0), Keyframe(0.08, f), Keyframe(1.0, f), Keyframe(1.08, 0)],
      x: [Keyframe(0, a.x), Keyframe(0.15, a.x), Keyframe(0.95, b.x)],
      y: [Keyframe(0, a.y), Keyframe(0.15, a.y), Keyframe(0.95, b.y)])
  }

  /// The area presses land in: a tenth of the panel (at least 15 mm) in
  /// from each edge.
  var margins: (x: Double, y: Double) {
    (max(15, board.width_mm / 10), max(15, board.height_mm / 10))
  }

  func inside(_ p: (x: Double, y: Double)) -> Bool {
    let m = margins
    return p.x >= m.x && p.x <= board.width_mm - m.x && p.y >= m.y && p.y <= board.height_mm - m.y
  }

  mutating func point() -> (x: Double, y: Double) {
    let m = margins
    return (
      (m.x + random.uniform() * (board.width_mm - 2 * m.x)).rounded(toPlaces: 1),
      (m.y + random.uniform() * (board.height_mm - 2 * m.y)).rounded(toPlaces: 1)
    )
  }

  /// A point at least 40 mm from `spot` (the best of a few draws).
  mutating func point(awayFrom spot: (x: Double, y: Double)) -> (x: Double, y: Double) {
    var best = point()
    for _ in 0..<50 {
      let d = ((best.x - spot.x) * (best.x - spot.x) + (best.y - spot.y) * (best.y - spot.y)).squareRoot()
      if d >= 40 { break }
      best = point()
    }
    return best
  }

  mutating func draw(_ r: ClosedRange<Double>) -> Double {
    (r.lowerBound + random.uniform() * (r.upperBound - r.lowerBound)).rounded(toPlaces: 3)
  }

  func range(_ r: ClosedRange<Double>) -> String { "\(Format.fixed(r.lowerBound, 2))-\(Format.fixed(r.upperBound, 2))" }
}

extension Double {
  /// Rounded to `places` decimals (scripts read better with round numbers).
  func rounded(toPlaces places: Int) -> Double {
    var p = 1.0
    for _ in 0..<places { p *= 10 }
    return (self * p).rounded() / p
  }
}
