import ForceCore
import PanelFormats

/// Decides when the panel is still: the per-cell medians of consecutive
/// windows (`window_s` long) must agree within what the cells' noise allows
/// (plus a small allowance for creep) for `settle_s`. Also tells when the
/// readings have changed from a reference (a mass arrived).
///
/// Medians, not means, so a single-frame spike does not restart a step.
public struct StabilityDetector: Sendable {
  public let cellCount: Int
  public let windowFrames: Int
  let settleWindows: Int
  var window: [[Int32]]
  var filled = 0
  /// Mean |first difference| per cell (noise estimate), counts.
  var meanStep: [Double]
  /// Mean |difference| of consecutive windows' medians per cell, counts:
  /// the slow wander that first differences do not show.
  var meanDrift: [Double]
  var last: [Int32]
  var primed = false
  /// The median of each cell over the last complete window.
  public private(set) var level: [Double]
  var previous: [Double]?
  /// Consecutive still windows.
  public private(set) var stillWindows = 0
  /// How far from still the last window was (<= 1 is still).
  public private(set) var score = Double.infinity

  public init(cellCount: Int, rate_hz: Int, window_s: Double, settle_s: Double) {
    self.cellCount = cellCount
    windowFrames = max(5, Int(saturating: (window_s * Double(rate_hz)).rounded()))
    settleWindows = max(1, Int(saturating: (settle_s / window_s).rounded(.up)))
    window = [[Int32]](repeating: [Int32](repeating: 0, count: windowFrames), count: cellCount)
    meanStep = [Double](repeating: 0, count: cellCount)
    meanDrift = [Double](repeating: 0, count: cellCount)
    last = [Int32](repeating: 0, count: cellCount)
    level = [Double](repeating: 0, count: cellCount)
  }

  /// Noise estimate of each cell, counts, one standard deviation.
  public func sigma(_ k: Int) -> Double { max(0.886 * meanStep[k], 1) }

  public var isStill: Bool { stillWindows >= settleWindows }
  /// Fraction of the settling time already still (for an indicator).
  public var settled: Double { min(1, Double(stillWindows) / Double(settleWindows)) }

  /// Adds a frame (`inout` only so its counts are read in place); returns
  /// true when it completed a window.
  public mutating func add(_ frame: inout RawFrame) -> Bool {
    for k in 0..<cellCount {
      let c = frame.counts[k]
      if primed {
        let step = abs(Double(c) - Double(last[k]))
        // Steps far above the estimate (a ramp, a spike) are clipped.
        let clipped = meanStep[k] > 0 ? min(step, 8 * meanStep[k] + 4) : step
        meanStep[k] += (clipped - meanStep[k]) / 64
      }
      last[k] = c
      window[k][filled] = c
    }
    if !primed {
      primed = true
    }
    filled += 1
    guard filled == windowFrames else { return false }
    filled = 0
    for k in 0..<cellCount {
      let sorted = window[k].sorted()
      level[k] = Double(sorted[windowFrames / 2])
    }
    if let previous {
      var worst = 0.0
      let spread = 5 * 1.25 * (2 / Double(windowFrames)).squareRoot()
      for k in 0..<cellCount {
        // White noise's share, creep's, and the wander this cell has shown
        // between still windows (six mean differences, about five of its
        // deviations, as the white share allows: a panel that
        // wanders slowly settles too, a mass arriving is far beyond).
        let white = spread * sigma(k) + 2e-4 * abs(level[k] - zero(k)) + 1
        let tolerance = max(white, 6 * meanDrift[k])
        let change = abs(level[k] - previous[k])
        worst = max(worst, change / tolerance)
        if change <= 2 * tolerance { meanDrift[k] += (change - meanDrift[k]) / 16 }
      }
      score = worst
      stillWindows = worst <= 1 ? stillWindows + 1 : 0
    }
    previous = level
    return true
  }

  /// The unloaded level, when known (the creep allowance is relative to it).
  public var zeroLevel: [Double]?
  func zero(_ k: Int) -> Double { zeroLevel?[k] ?? level[k] }

  /// Forgets the stillness (a new step begins); the noise estimate stays.
  public mutating func restart() {
    stillWindows = 0
    score = .infinity
  }

  /// The cell that moved most from `reference` in noise units, and by how many.
  public func change(from reference: [Double]) -> (cell: Int, sigmas: Double) {
    var best = (cell: 0, sigmas: 0.0)
    for k in 0..<cellCount {
      let s = abs(level[k] - reference[k]) / sigma(k)
      if s > best.sigmas { best = (k, s) }
    }
    return best
  }
}
