import PanelFactory
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The run rules and the X̄–s chart against series built to fire each rule,
/// and the constants against the AIAG table.
@Suite struct RunRuleTests {
  static func rules(_ z: [Double]) -> Set<RunRule> { Set(RunRules.evaluate(z).map(\.rule)) }

  @Test func eachRuleFiresOnItsPattern() {
    #expect(Self.rules([0, 0.5, -0.4, 3.2, 0.1]).contains(.beyond3Sigma))
    #expect(Self.rules([0.2, 2.3, -0.5, 2.4]).contains(.twoOfThreeBeyond2Sigma))
    #expect(!Self.rules([0.2, 2.3, -2.5, 0.4]).contains(.twoOfThreeBeyond2Sigma))  // other sides
    #expect(Self.rules([1.2, 1.5, 0.3, 1.1, 1.4]).contains(.fourOfFiveBeyond1Sigma))
    #expect(Self.rules([0.1, 0.3, 0.2, 0.5, 0.1, 0.2, 0.4, 0.3]).contains(.eightOnOneSide))
    #expect(!Self.rules([0.1, 0.3, 0.2, 0.5, -0.1, 0.2, 0.4, 0.3]).contains(.eightOnOneSide))
    #expect(Self.rules([-0.9, -0.6, -0.2, 0.1, 0.4, 0.8]).contains(.sixTrending))
    #expect(!Self.rules([-0.9, -0.6, -0.2, -0.2, 0.4, 0.8]).contains(.sixTrending))  // a tie breaks it
    #expect(Self.rules((0..<14).map { $0 % 2 == 0 ? 0.5 : -0.5 }).contains(.fourteenAlternating))
    #expect(Self.rules((0..<15).map { Double($0 % 3) * 0.3 - 0.3 }).contains(.fifteenWithin1Sigma))
    #expect(Self.rules([1.5, -1.4, 1.2, -1.8, 1.3, -1.1, 1.6, -1.2]).contains(.eightOutside1Sigma))
  }

  @Test func aQuietSeriesFiresNothingAndWindowsMerge() {
    #expect(RunRules.evaluate([0.3, -0.5, 0.8, -1.2, 0.4, -0.2, 1.1, -0.7, 0.2, -0.9]).isEmpty)
    // A long shift is one WE4 signal spanning it, not one per point.
    let shifted = [0.1, -0.2] + Array(repeating: 0.6, count: 20)
    let we4 = RunRules.evaluate(shifted).filter { $0.rule == .eightOnOneSide }
    #expect(we4 == [RuleSignal(rule: .eightOnOneSide, first: 2, last: 21)])
  }

  @Test func constantsMatchTheTable() {
    // c4, and B3/B4 = 1 -+ 3 sqrt(1 - c4^2) / c4, as AIAG prints them.
    let table: [(Int, Double, Double, Double)] = [
      (2, 0.7979, 0, 3.267), (5, 0.9400, 0, 2.089), (6, 0.9515, 0.030, 1.970), (10, 0.9727, 0.284, 1.716),
    ]
    for (n, c4, b3, b4) in table {
      let c = ControlChart.c4(n)
      #expect(abs(c - c4) < 0.00005, "c4(\(n)) = \(c)")
      let spread = 3 * (1 - c * c).squareRoot() / c
      #expect(abs(max(0, 1 - spread) - b3) < 0.0005 && abs(1 + spread - b4) < 0.0005, "B3/B4(\(n))")
    }
  }

  @Test func aShiftAfterTheBaselineIsFlaggedAndTheBaselineIsNot() throws {
    // A seeded normal series (Box-Muller on a fixed LCG), shifted by 1.5 sigma after 30 subgroups.
    var state: UInt64 = 42
    func uniform() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    func normal() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform()) }
    var values: [(time: String, value: Double)] = []
    for i in 0..<(50 * 5) { values.append(("t\(i)", 100 + normal() + (i >= 150 ? 1.5 : 0))) }
    let chart = try #require(ControlChart(values: values, size: 5, baseline: 20))
    #expect(abs(chart.centre - 100) < 0.3)
    #expect(abs(chart.sigma - 1) < 0.15)
    let flagged = chart.signals.filter { $0.rule != .sBeyondLimit }
    #expect(flagged.contains { $0.first >= 30 }, "the shift is flagged: \(flagged)")
    #expect(!flagged.contains { $0.last < 25 && $0.rule == .beyond3Sigma }, "no false 3-sigma point in the baseline")
    // Every point's limits: X-bar within the centre -+ 3 sigma / sqrt(5).
    #expect(abs(chart.points[0].meanLimits.high - (chart.centre + 3 * chart.sigma / 5.0.squareRoot())) < 1e-9)
  }
}
