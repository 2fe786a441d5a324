import PanelSimulation

/// The touches of a report stream, one track per id, each given to the
/// scripted press it belongs to (or to none: a false touch).
///
/// A track belongs to the press that is down when the track begins (from
/// 20 ms before the press to 200 ms after it, for the pipeline's delays)
/// and lies nearest to it: the median distance, over the track's samples
/// while the press is down, between the reported and the scripted
/// position, which must be within `radius_mm`.
package struct TouchTracks: Sendable {
  package struct Track: Sendable, Equatable {
    package var id: UInt32
    /// Indices into the log's samples, in time order.
    package var samples: [Int]
    package var begin_us: Int64
    package var end_us: Int64
    /// The press it belongs to (index into the presses), nil for none.
    package var press: Int?
  }

  package var tracks: [Track] = []
  /// For each press, its tracks in order (indices into `tracks`).
  package var byPress: [[Int]]

  /// How long before and after a press a track may begin and still be it.
  package static let early_s = 0.02
  package static let late_s = 0.2

  package init(log: ReportLog, presses: [TruthPress], radius_mm: Double) {
    var index: [UInt32: Int] = [:]
    for (i, s) in log.samples.enumerated() {
      if let k = index[s.id] {
        tracks[k].samples.append(i)
        tracks[k].end_us = s.t_us
      } else {
        index[s.id] = tracks.count
        tracks.append(Track(id: s.id, samples: [i], begin_us: s.t_us, end_us: s.t_us, press: nil))
      }
    }
    byPress = [[Int]](repeating: [], count: presses.count)
    for k in tracks.indices {
      let t0 = Double(tracks[k].begin_us) / 1e6
      var best: (press: Int, distance: Double)?
      for (p, press) in presses.enumerated() {
        let s = press.touch
        guard t0 >= s.start_s - TouchTracks.early_s, t0 <= s.end_s + TouchTracks.late_s else { continue }
        let d = TouchTracks.medianDistance(tracks[k], log: log, press: press)
        if d <= radius_mm && d < (best?.distance ?? .infinity) { best = (p, d) }
      }
      if let best {
        tracks[k].press = best.press
        byPress[best.press].append(k)
      }
    }
  }

  /// The median distance between a track and a press while both are down
  /// (the track's first sample when none overlaps).
  static func medianDistance(_ track: Track, log: ReportLog, press: TruthPress) -> Double {
    var distances: [Double] = []
    for i in track.samples {
      let s = log.samples[i]
      let t = Double(s.t_us) / 1e6
      guard t <= press.touch.end_s + TouchTracks.late_s else { break }
      distances.append(distance(s, press, at: t))
    }
    if distances.isEmpty, let first = track.samples.first {
      let s = log.samples[first]
      distances.append(distance(s, press, at: Double(s.t_us) / 1e6))
    }
    distances.sort()
    return distances.isEmpty ? .infinity : distances[distances.count / 2]
  }

  /// Distance between a reported sample and where the press is at `t`
  /// (its first or last place outside its time).
  static func distance(_ s: ReportLog.Sample, _ press: TruthPress, at t: Double) -> Double {
    let p = press.position(at: t)
    let dx = s.x_mm - p.x
    let dy = s.y_mm - p.y
    return (dx * dx + dy * dy).squareRoot()
  }
}

extension TruthPress {
  /// Where the press is at absolute time `t`, held at its ends.
  package func position(at t: Double) -> (x: Double, y: Double) {
    let r = t - touch.start_s
    return (Keyframe.interpolate(touch.x, at: r), Keyframe.interpolate(touch.y, at: r))
  }
}
