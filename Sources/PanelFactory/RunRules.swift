/// A run rule (Western Electric 1956; Nelson 1984 for the trend, mixture
/// and stratification rules), evaluated on a chart's points in units of the
/// plotted statistic's σ from the centre line.
public enum RunRule: String, Sendable, CaseIterable, Codable {
  /// WE 1 / Nelson 1: one point beyond 3σ.
  case beyond3Sigma = "WE1"
  /// WE 2 / Nelson 5: 2 of 3 consecutive points beyond 2σ on the same side.
  case twoOfThreeBeyond2Sigma = "WE2"
  /// WE 3 / Nelson 6: 4 of 5 consecutive points beyond 1σ on the same side.
  case fourOfFiveBeyond1Sigma = "WE3"
  /// WE 4: 8 consecutive points on the same side of the centre line.
  case eightOnOneSide = "WE4"
  /// Nelson 3: 6 points in a row steadily increasing or decreasing (a trend).
  case sixTrending = "N3"
  /// Nelson 4: 14 points in a row alternating up and down.
  case fourteenAlternating = "N4"
  /// Nelson 7: 15 points in a row within 1σ (stratification, limits too wide).
  case fifteenWithin1Sigma = "N7"
  /// Nelson 8: 8 points in a row beyond 1σ, on both sides (a mixture).
  case eightOutside1Sigma = "N8"
  /// The s chart: a subgroup's spread above its upper limit.
  case sBeyondLimit = "S1"

  public var title: String {
    switch self {
    case .beyond3Sigma: return "a point beyond 3σ"
    case .twoOfThreeBeyond2Sigma: return "2 of 3 beyond 2σ on one side"
    case .fourOfFiveBeyond1Sigma: return "4 of 5 beyond 1σ on one side"
    case .eightOnOneSide: return "8 in a row on one side"
    case .sixTrending: return "6 in a row trending"
    case .fourteenAlternating: return "14 in a row alternating"
    case .fifteenWithin1Sigma: return "15 in a row within 1σ"
    case .eightOutside1Sigma: return "8 in a row beyond 1σ, both sides"
    case .sBeyondLimit: return "spread beyond the s chart's limit"
    }
  }
}

/// Where a rule fired: the points `first...last` (overlapping windows of
/// the same rule are one signal).
public struct RuleSignal: Sendable, Equatable {
  public var rule: RunRule
  public var first: Int
  public var last: Int
  public init(rule: RunRule, first: Int, last: Int) {
    self.rule = rule
    self.first = first
    self.last = last
  }
}

/// The run rules over a series of z values (distance from the centre line
/// in σ). Ties (equal neighbours) break a trend and an alternation.
public enum RunRules {
  public static func evaluate(_ z: [Double]) -> [RuleSignal] {
    var windows: [RuleSignal] = []
    func fire(_ rule: RunRule, _ first: Int, _ last: Int) { windows.append(RuleSignal(rule: rule, first: first, last: last)) }
    for i in z.indices {
      if abs(z[i]) > 3 { fire(.beyond3Sigma, i, i) }
      for side in [1.0, -1.0] {
        if i >= 2, count(z, i - 2...i, where: { $0 * side > 2 }) >= 2, z[i] * side > 2 {
          fire(.twoOfThreeBeyond2Sigma, i - 2, i)
        }
        if i >= 4, count(z, i - 4...i, where: { $0 * side > 1 }) >= 4, z[i] * side > 1 {
          fire(.fourOfFiveBeyond1Sigma, i - 4, i)
        }
        if i >= 7, count(z, i - 7...i, where: { $0 * side > 0 }) == 8 { fire(.eightOnOneSide, i - 7, i) }
      }
      if i >= 5 {
        let steps = (i - 4...i).map { z[$0] - z[$0 - 1] }
        if steps.allSatisfy({ $0 > 0 }) || steps.allSatisfy({ $0 < 0 }) { fire(.sixTrending, i - 5, i) }
      }
      if i >= 13 {
        let steps = (i - 12...i).map { z[$0] - z[$0 - 1] }
        if steps.allSatisfy({ $0 != 0 }) && zip(steps, steps.dropFirst()).allSatisfy({ ($0 > 0) != ($1 > 0) }) {
          fire(.fourteenAlternating, i - 13, i)
        }
      }
      if i >= 14, count(z, i - 14...i, where: { abs($0) < 1 }) == 15 { fire(.fifteenWithin1Sigma, i - 14, i) }
      if i >= 7, count(z, i - 7...i, where: { abs($0) > 1 }) == 8, (i - 7...i).contains(where: { z[$0] > 1 }),
        (i - 7...i).contains(where: { z[$0] < -1 })
      {
        fire(.eightOutside1Sigma, i - 7, i)
      }
    }
    // Merge overlapping windows of one rule.
    var merged: [RuleSignal] = []
    for rule in RunRule.allCases {
      var open: RuleSignal?
      for w in windows where w.rule == rule {
        if var o = open, w.first <= o.last + 1 {
          o.last = max(o.last, w.last)
          open = o
        } else {
          if let o = open { merged.append(o) }
          open = w
        }
      }
      if let o = open { merged.append(o) }
    }
    return merged.sorted { ($0.last, $0.rule.rawValue) < ($1.last, $1.rule.rawValue) }
  }

  static func count(_ z: [Double], _ range: ClosedRange<Int>, where p: (Double) -> Bool) -> Int {
    range.reduce(0) { $0 + (p(z[$1]) ? 1 : 0) }
  }
}
