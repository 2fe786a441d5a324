#if canImport(Glibc)
  import Glibc
#endif

/// An X̄–s control chart: the values come in subgroups (consecutive
/// calibrations at one station), each plotted as its mean (X̄) and standard
/// deviation (s, n − 1 denominator). σ is estimated from a baseline window
/// of the first subgroups, σ̂ = mean of s/c4(n); limits are 3σ: X̄ within
/// X̿ ± 3σ̂/√n, s within (c4 ± 3√(1 − c4²))σ̂ (B5/B6; B3 s̄ and B4 s̄ for a
/// constant n), so subgroups of different sizes each get their own limits.
/// The run rules are evaluated on the X̄ chart in units of its own σ
/// (σ̂/√n), and rule 1 on the s chart.
public struct ControlChart: Sendable {
  public struct Point: Sendable {
    /// Where the subgroup starts and ends (ISO times of its first and last
    /// calibration).
    public var first: String
    public var last: String
    public var n: Int
    public var mean: Double
    public var sd: Double
    /// X̄'s distance from the centre line in its own σ.
    public var z: Double
    public var meanLimits: (low: Double, high: Double)
    public var sdLimits: (centre: Double, low: Double, high: Double)
  }

  public var points: [Point]
  /// The baseline's grand mean and σ̂ (one value's σ).
  public var centre: Double
  public var sigma: Double
  /// How many leading subgroups the limits come from.
  public var baseline: Int
  /// Every rule that fired, in order of the point that completes it.
  public var signals: [RuleSignal]

  /// Subgroups the values, `size` at a time in order (the last one may be
  /// smaller, but not below 2), and computes the chart with limits from the
  /// first `baseline` subgroups. Nil when there are too few subgroups (two)
  /// or the baseline shows no spread.
  public init?(values: [(time: String, value: Double)], size: Int, baseline: Int) {
    var groups: [[(time: String, value: Double)]] = []
    var at = 0
    while at < values.count {
      let end = min(values.count, at + size)
      if end - at >= 2 { groups.append(Array(values[at..<end])) }
      at = end
    }
    self.init(subgroups: groups, baseline: baseline)
  }

  public init?(subgroups groups: [[(time: String, value: Double)]], baseline: Int) {
    guard groups.count >= 2 else { return nil }
    let stats = groups.map { g -> (Int, Double, Double) in
      let n = g.count
      let mean = g.reduce(0) { $0 + $1.value } / Double(n)
      let ss = g.reduce(0) { $0 + ($1.value - mean) * ($1.value - mean) }
      return (n, mean, n > 1 ? (ss / Double(n - 1)).squareRoot() : 0)
    }
    let base = min(max(baseline, 2), stats.count)
    let baseStats = stats.prefix(base)
    let total = baseStats.reduce(0) { $0 + $1.0 }
    let centre = baseStats.reduce(0) { $0 + $1.1 * Double($1.0) } / Double(total)
    let sigma = baseStats.reduce(0) { $0 + $1.2 / Self.c4($1.0) } / Double(base)
    guard sigma > 0, sigma.isFinite else { return nil }
    self.centre = centre
    self.sigma = sigma
    self.baseline = base
    points = zip(groups, stats).map { g, s in
      let (n, mean, sd) = s
      let e = sigma / Double(n).squareRoot()
      let c4 = Self.c4(n)
      let spread = 3 * (1 - c4 * c4).squareRoot()
      return Point(
        first: g.first!.time, last: g.last!.time, n: n, mean: mean, sd: sd, z: (mean - centre) / e,
        meanLimits: (centre - 3 * e, centre + 3 * e),
        sdLimits: (c4 * sigma, max(0, c4 - spread) * sigma, (c4 + spread) * sigma))
    }
    var signals = RunRules.evaluate(points.map(\.z))
    for (i, p) in points.enumerated() where p.sd > p.sdLimits.high {
      signals.append(RuleSignal(rule: .sBeyondLimit, first: i, last: i))
    }
    self.signals = signals.sorted { ($0.last, $0.rule.rawValue) < ($1.last, $1.rule.rawValue) }
  }

  /// c4(n) = √(2/(n − 1)) Γ(n/2) / Γ((n − 1)/2): E[s] = c4 σ for normal data.
  public static func c4(_ n: Int) -> Double {
    guard n >= 2 else { return 1 }
    let m = Double(n)
    return (2 / (m - 1)).squareRoot() * exp(lgamma(m / 2) - lgamma((m - 1) / 2))
  }
}
