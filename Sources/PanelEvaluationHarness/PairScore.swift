/// What became of one pair of fingers pressing together: how the count of
/// their touches changed while both pressed, how it ended, and how often a
/// touch changed the finger it follows.
///
/// The window is from 0.15 s after the later finger lands to 0.1 s before
/// the first lifts. A touch is there from its first report to its last.
/// Still fingers should keep one count throughout (two, or one merged);
/// moving fingers may merge once as they close, but not come apart again.
/// A touch's finger is the one it is clearly nearer (by a fifth of the
/// fingers' separation at that moment); going from one to the other is a
/// swap.
struct PairScore {
  var alternating = false
  var merged = false
  var swaps = 0

  init(_ a: TruthPress, _ b: TruthPress, tracks: [TouchTracks.Track], log: ReportLog) {
    let start = max(a.touch.start_s, b.touch.start_s) + 0.15
    let end = min(a.touch.end_s, b.touch.end_s) - 0.1
    guard end > start else { return }
    let moving = a.touch.x.count > 1 || a.touch.y.count > 1 || b.touch.x.count > 1 || b.touch.y.count > 1
    // The count of touches at the window's start and at every change in it.
    func present(_ t: Double) -> Int {
      tracks.filter { Double($0.begin_us) / 1e6 <= t && Double($0.end_us) / 1e6 >= t }.count
    }
    var changes = 0
    var count = present(start)
    let edges = tracks.flatMap { [Double($0.begin_us) / 1e6, Double($0.end_us) / 1e6 + 1e-7] }
      .filter { $0 > start && $0 < end }.sorted()
    for t in edges {
      let now = present(t)
      if now != count { changes += 1 }
      count = now
    }
    alternating = moving ? changes >= 2 : changes >= 1
    merged = !alternating && count == 1 && tracks.count >= 1
    // Swaps: each touch's clear nearest finger over its samples in the window.
    for track in tracks {
      var side = 0
      for i in track.samples {
        let s = log.samples[i]
        let t = Double(s.t_us) / 1e6
        guard t >= start && t <= end else { continue }
        let pa = a.position(at: t)
        let pb = b.position(at: t)
        let apart = ((pa.x - pb.x) * (pa.x - pb.x) + (pa.y - pb.y) * (pa.y - pb.y)).squareRoot()
        let da = TouchTracks.distance(s, a, at: t)
        let db = TouchTracks.distance(s, b, at: t)
        let now = da < db - apart / 5 ? 1 : db < da - apart / 5 ? 2 : 0
        if now != 0 {
          if side != 0 && now != side { swaps += 1 }
          side = now
        }
      }
    }
  }
}
