import PanelFormats

/// The figures of one scenario's report stream against its scripted
/// presses (the ground truth). A figure that does not apply (no press of
/// that kind in the scenario) is nil.
///
/// - recall: finger presses with a touch / finger presses;
/// - precision: presses found / touches reported, where a press's second
///   touch (a split) and a touch that belongs to no finger count against it;
/// - false touches: touches no finger made (an object's own first touch is
///   expected: it is absorbed as a parked load), and how long they lasted;
/// - latency: from the scripted force reaching the board's `touch_on_n` to
///   the touch's first report (median, ms);
/// - position and force on plateaus: the still part of each tap and press
///   (from 20 ms after the rise to the fall): the RMS of every reported
///   position's distance from the scripted one, and the median over presses
///   of the mean reported force's relative error;
/// - stages: light taps that never peek, peek presses that peek once and do
///   not pop, pop presses that pop exactly once (fractions);
/// - pairs: two-finger pairs where each finger has one touch of its own,
///   from its start to its end, never nearer the other finger (fraction);
///   merged: pairs not so that end as one touch without coming apart again;
///   alternating: pairs whose count of touches changes while both fingers
///   press (still fingers: at all; moving ones: back and forth); id swaps:
///   how often a touch of a pair goes from being clearly nearer one finger
///   to clearly nearer the other (`PairScore`);
/// - held: fingers held on a peek that keep one touch with its peek from
///   their start to their lift, not cancelled (fraction);
/// - absorbed s: the longest time from an object's placing to the end of
///   its touch (absorbed as a parked load); an object never absorbed counts
///   its whole time;
/// - CRB mm (plates): the Cramér–Rao bound on the plateau positions for
///   that panel's noise and the presses' forces (`PlateBound`), which the
///   position figure is compared with where it is above 0.8 mm.
package struct ScenarioScore: Sendable, Equatable {
  package var fingers = 0
  package var found = 0
  package var touches = 0
  package var splits = 0
  package var falseTouches = 0
  package var falseSeconds = 0.0
  package var recall: Double?
  package var precision: Double?
  package var latency_ms: Double?
  package var positionRMS_mm: Double?
  package var forceError_pct: Double?
  package var taps = 0
  package var tapsWithoutPeek: Double?
  package var peekPresses = 0
  package var peekOnly: Double?
  package var popPresses = 0
  package var popOnce: Double?
  package var pairs = 0
  package var pairsStable: Double?
  package var pairsMerged: Double?
  package var pairsAlternating: Double?
  package var idSwaps: Int?
  package var heldFingers = 0
  package var heldKept: Double?
  package var absorbed_s: Double?
  package var positionBound_mm: Double?

  package init() {}

  /// Scores `log` against `presses` on `board` (its `touch_on_n` for the
  /// latency; tracks are matched within 25 mm on a plate, 1.5 pitches on a
  /// grid).
  package init(log: ReportLog, presses: [TruthPress], board: Board) {
    let radius = board.grid.map { 1.5 * $0.pitch_mm } ?? 25
    let tracks = TouchTracks(log: log, presses: presses, radius_mm: radius)
    touches = tracks.tracks.count
    var latencies: [Double] = []
    var squares = 0.0
    var positions = 0
    var forceErrors: [Double] = []
    var tapsOK = 0
    var peekOK = 0
    var popOK = 0
    var heldOK = 0
    for (p, press) in presses.enumerated() {
      let mine = tracks.byPress[p]
      if press.role == .object {
        // The object's first touch is expected (then absorbed); any other is false.
        for k in mine.dropFirst() { countFalse(tracks.tracks[k]) }
        let lasted = mine.first.map { Double(tracks.tracks[$0].end_us) / 1e6 - press.touch.start_s } ?? 0
        let absorbed = lasted < press.touch.end_s - press.touch.start_s - 0.5 ? lasted : press.touch.end_s - press.touch.start_s
        absorbed_s = max(absorbed_s ?? 0, absorbed)
        continue
      }
      fingers += 1
      if !mine.isEmpty { found += 1 }
      splits += max(0, mine.count - 1)
      if let first = mine.first, let crossing = press.firstTime(reaching: board.detection.touchOn_n) {
        latencies.append((Double(tracks.tracks[first].begin_us) / 1e6 - crossing) * 1000)
      }
      if let plateau = press.plateau(), !mine.isEmpty {
        let at = press.position(at: plateau.start)
        var sum = 0.0
        var count = 0
        for k in mine {
          for i in tracks.tracks[k].samples {
            let s = log.samples[i]
            let t = Double(s.t_us) / 1e6
            guard t >= plateau.start && t <= plateau.end else { continue }
            let dx = s.x_mm - at.x
            let dy = s.y_mm - at.y
            squares += dx * dx + dy * dy
            positions += 1
            sum += s.force_n
            count += 1
          }
        }
        if count > 0 { forceErrors.append(abs(sum / Double(count) / plateau.force_n - 1) * 100) }
      }
      let ids = Set(mine.map { tracks.tracks[$0].id })
      let peeks = log.events.filter { $0.kind == .peek && ids.contains($0.touch) }.count
      let pops = log.events.filter { $0.kind == .pop && ids.contains($0.touch) }.count
      let deepest = mine.flatMap { tracks.tracks[$0].samples }.map { log.samples[$0].stage }.max() ?? .none
      switch press.role {
      case .tap:
        taps += 1
        if peeks == 0 && pops == 0 && deepest < .peek { tapsOK += 1 }
      case .peek:
        peekPresses += 1
        if peeks == 1 && pops == 0 { peekOK += 1 }
      case .pop:
        popPresses += 1
        if pops == 1 { popOK += 1 }
      case .held:
        heldFingers += 1
        if mine.count == 1, peeks >= 1, pops == 0, ScenarioScore.lasts(tracks.tracks[mine[0]], press: press, log: log) {
          heldOK += 1
        }
      case .finger, .object, .slow:
        break
      }
    }
    for track in tracks.tracks where track.press == nil { countFalse(track) }
    if fingers > 0 { recall = Double(found) / Double(fingers) }
    if touches > 0 || fingers > 0 {
      let reported = found + splits + falseTouches
      precision = reported > 0 ? Double(found) / Double(reported) : nil
    }
    latency_ms = ScenarioScore.median(latencies)
    if positions > 0 { positionRMS_mm = (squares / Double(positions)).squareRoot() }
    forceError_pct = ScenarioScore.median(forceErrors)
    if taps > 0 { tapsWithoutPeek = Double(tapsOK) / Double(taps) }
    if peekPresses > 0 { peekOnly = Double(peekOK) / Double(peekPresses) }
    if popPresses > 0 { popOnce = Double(popOK) / Double(popPresses) }
    if heldFingers > 0 { heldKept = Double(heldOK) / Double(heldFingers) }
    scorePairs(presses: presses, tracks: tracks, log: log)
  }

  /// Whether a touch lasts from its press's start to its lift and ends
  /// with it (not cancelled: absorbed, merged, or lost).
  static func lasts(_ track: TouchTracks.Track, press: TruthPress, log: ReportLog) -> Bool {
    let begin = Double(track.begin_us) / 1e6
    let end = Double(track.end_us) / 1e6
    guard begin <= press.touch.start_s + 0.3, end >= press.touch.end_s - 0.3, let last = track.samples.last else {
      return false
    }
    return log.samples[last].phase != .cancelled
  }

  mutating func countFalse(_ track: TouchTracks.Track) {
    falseTouches += 1
    falseSeconds += Double(track.end_us - track.begin_us) / 1e6
  }

  mutating func scorePairs(presses: [TruthPress], tracks: TouchTracks, log: ReportLog) {
    var members: [Int: [Int]] = [:]
    for (p, press) in presses.enumerated() where press.role == .finger {
      if let pair = press.pair { members[pair, default: []].append(p) }
    }
    guard !members.isEmpty else { return }
    var stable = 0
    var merged = 0
    var alternating = 0
    var swaps = 0
    for (_, fingers) in members where fingers.count == 2 {
      pairs += 1
      let (a, b) = (fingers[0], fingers[1])
      let pair = PairScore(presses[a], presses[b], tracks: (tracks.byPress[a] + tracks.byPress[b]).map { tracks.tracks[$0] }, log: log)
      swaps += pair.swaps
      if pair.alternating { alternating += 1 } else if pair.merged { merged += 1 }
      guard tracks.byPress[a].count == 1, tracks.byPress[b].count == 1 else { continue }
      let ta = tracks.tracks[tracks.byPress[a][0]]
      let tb = tracks.tracks[tracks.byPress[b][0]]
      guard ta.id != tb.id else { continue }
      if ScenarioScore.follows(ta, own: presses[a], other: presses[b], log: log)
        && ScenarioScore.follows(tb, own: presses[b], other: presses[a], log: log)
      {
        stable += 1
      }
    }
    if pairs > 0 {
      pairsStable = Double(stable) / Double(pairs)
      pairsMerged = Double(merged) / Double(pairs)
      pairsAlternating = Double(alternating) / Double(pairs)
      idSwaps = swaps
    }
  }

  /// Whether a finger's track lasts from its start to its end (within the
  /// pipeline's delays) and stays nearer to it than to the other finger.
  static func follows(_ track: TouchTracks.Track, own: TruthPress, other: TruthPress, log: ReportLog) -> Bool {
    let begin = Double(track.begin_us) / 1e6
    let end = Double(track.end_us) / 1e6
    guard begin <= own.touch.start_s + 0.1, end >= own.touch.end_s - 0.2 else { return false }
    for i in track.samples {
      let s = log.samples[i]
      let t = Double(s.t_us) / 1e6
      guard t >= max(own.touch.start_s, other.touch.start_s), t <= min(own.touch.end_s, other.touch.end_s) else {
        continue
      }
      if TouchTracks.distance(s, own, at: t) > TouchTracks.distance(s, other, at: t) { return false }
    }
    return true
  }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let v = values.sorted()
    let n = v.count
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
  }
}
