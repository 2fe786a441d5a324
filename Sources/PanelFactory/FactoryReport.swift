/// The line's state over a selection of calibrations: yield by day, station
/// and plan; failures by check (a Pareto); an X̄–s chart per board, station
/// and figure with the run rules flagged; the cell lots compared on an
/// individuals chart of their means. docs/factory.md.
public struct FactoryReport: Sendable {
  /// What was selected (for the page's heading).
  public var selection: String
  public var calibrations: Int
  public var first: String
  public var last: String
  public var yieldByDay: [YieldRow]
  public var yieldByStation: [YieldRow]
  public var yieldByPlan: [YieldRow]
  public var pareto: [ParetoRow]
  public var charts: [StationChart]
  public var lots: [LotRow]
  public var lotCharts: [LotChart]
  public var subgroupSize: Int

  public struct YieldRow: Sendable, Codable, Equatable {
    public var key: String
    public var calibrations: Int
    public var passed: Int
    /// First attempts, and how many of them passed.
    public var firstAttempts: Int
    public var firstPassed: Int
    /// Panels, and how many of them passed at their last calibration here.
    public var units: Int
    public var unitsPassed: Int
    public var firstPassYield: Double { firstAttempts == 0 ? 0 : Double(firstPassed) / Double(firstAttempts) }
    public var finalYield: Double { units == 0 ? 0 : Double(unitsPassed) / Double(units) }
  }

  public struct ParetoRow: Sendable, Codable, Equatable {
    public var check: String
    public var count: Int
    public var cumulative: Double
  }

  /// One chart: a figure of one board's calibrations at one station.
  public struct StationChart: Sendable {
    public var board: String
    public var station: String
    public var metric: CalibrationSummary.Metric
    public var chart: ControlChart
    /// The lots of each subgroup's calibrations (for a signal's note).
    public var lots: [[String]]
  }

  public struct LotRow: Sendable, Codable, Equatable {
    public var board: String
    public var lot: String
    public var calibrations: Int
    public var passed: Int
    public var first: String
    public var sensitivityMean: Double
    public var sensitivitySD: Double
    public var noiseMean: Double
  }

  /// A figure's lot means on an individuals chart (limits from the
  /// baseline lots' moving ranges: x̄ ± 2.66 MR̄).
  public struct LotChart: Sendable {
    public var board: String
    public var metric: CalibrationSummary.Metric
    public var lots: [String]
    public var means: [Double]
    public var centre: Double
    public var sigma: Double
    public var baseline: Int
    public var signals: [RuleSignal]
  }

  /// A signal in words, for the page, the CSV and the JSON.
  public struct Flag: Sendable, Codable, Equatable {
    /// "station" or "lot".
    public var kind: String
    public var board: String
    /// The station or the lot.
    public var subject: String
    public var metric: CalibrationSummary.Metric
    public var rule: RunRule
    public var from: String
    public var to: String
    /// The lots making up the flagged points (station charts), most first.
    public var lots: [String]
    /// How far the flagged points' mean is from the centre, in the
    /// plotted statistic's σ.
    public var z: Double
  }

  /// The signals of one place (a station or a lot) and figure, summed up.
  public struct Place: Sendable, Codable, Equatable {
    public var kind: String
    public var board: String
    public var subject: String
    public var metric: CalibrationSummary.Metric
    public var signals: Int
    public var beyond3Sigma: Int
    public var from: String
    public var to: String
    public var largestZ: Double
    public var lots: [String]

    /// The places of `flags`: most points beyond 3σ first, then most signals.
    public static func of(_ flags: [Flag]) -> [Place] {
      let groups = Dictionary(grouping: flags) { [$0.kind, $0.board, $0.subject, $0.metric.rawValue] }
      return groups.values.map { g in
        var lots: [String: Int] = [:]
        for f in g { for l in f.lots.prefix(1) { lots[l, default: 0] += 1 } }
        return Place(
          kind: g[0].kind, board: g[0].board, subject: g[0].subject, metric: g[0].metric, signals: g.count,
          beyond3Sigma: g.filter { $0.rule == .beyond3Sigma }.count, from: g.map(\.from).min() ?? "",
          to: g.map(\.to).max() ?? "", largestZ: g.map(\.z).max { abs($0) < abs($1) } ?? 0,
          lots: lots.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key))
      }.sorted {
        ($1.beyond3Sigma, $1.signals, $0.subject, $0.metric.rawValue) < ($0.beyond3Sigma, $0.signals, $1.subject, $1.metric.rawValue)
      }
    }
  }

  public var flags: [Flag] {
    var out: [Flag] = []
    for c in charts {
      for s in c.chart.signals {
        let points = c.chart.points[s.first...s.last]
        var counts: [String: Int] = [:]
        for i in s.first...s.last { for l in c.lots[i] { counts[l, default: 0] += 1 } }
        let lots = counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
        let z = points.reduce(0) { $0 + $1.z } / Double(points.count)
        out.append(
          Flag(
            kind: "station", board: c.board, subject: c.station, metric: c.metric, rule: s.rule,
            from: points.first!.first, to: points.last!.last, lots: lots, z: z))
      }
    }
    for c in lotCharts {
      for s in c.signals {
        let z = (s.first...s.last).reduce(0) { $0 + (c.means[$1] - c.centre) / c.sigma } / Double(s.last - s.first + 1)
        for i in s.first...s.last where s.rule != .beyond3Sigma || abs(c.means[i] - c.centre) > 3 * c.sigma {
          let lot = lots.first { $0.board == c.board && $0.lot == c.lots[i] }
          out.append(
            Flag(
              kind: "lot", board: c.board, subject: c.lots[i], metric: c.metric, rule: s.rule,
              from: lot?.first ?? "", to: lot?.first ?? "", lots: [c.lots[i]], z: z))
        }
      }
    }
    return out
  }

  /// Computes the report. `rows` in time order; `subgroup` calibrations a
  /// subgroup; limits from the first `baseline` subgroups of each chart.
  public init(rows: [CalibrationSummary], selection: String, subgroup: Int = 5, baseline: Int = 25) {
    self.selection = selection
    calibrations = rows.count
    first = rows.first?.startedAt ?? ""
    last = rows.last?.startedAt ?? ""
    subgroupSize = subgroup
    yieldByDay = Self.yield(rows, by: \.day)
    yieldByStation = Self.yield(rows, by: \.station)
    yieldByPlan = Self.yield(rows, by: \.plan)
    pareto = Self.pareto(rows)

    var charts: [StationChart] = []
    let boards = Dictionary(grouping: rows, by: \.board)
    for board in boards.keys.sorted() {
      // The process's figures: what passed (a failed calibration is a
      // special cause of its own, in the yield and the Pareto).
      let stations = Dictionary(grouping: boards[board]!.filter(\.passed), by: \.station)
      for station in stations.keys.sorted() {
        let series = stations[station]!
        var groups: [[CalibrationSummary]] = []
        var at = 0
        while at < series.count {
          let end = min(series.count, at + subgroup)
          if end - at >= 2 { groups.append(Array(series[at..<end])) }
          at = end
        }
        for metric in CalibrationSummary.Metric.allCases {
          let values = groups.map { g in g.map { (time: $0.startedAt, value: $0.value(metric)) } }
          guard let chart = ControlChart(subgroups: values, baseline: baseline) else { continue }
          charts.append(
            StationChart(
              board: board, station: station, metric: metric, chart: chart, lots: groups.map { $0.compactMap(\.lot) }))
        }
      }
    }
    self.charts = charts

    var lotRows: [LotRow] = []
    var lotCharts: [LotChart] = []
    for board in boards.keys.sorted() {
      let all = Dictionary(grouping: boards[board]!.filter { $0.lot != nil }, by: { $0.lot! })
      let byLot = Dictionary(grouping: boards[board]!.filter { $0.lot != nil && $0.passed }, by: { $0.lot! })
      let ordered = byLot.keys.sorted { byLot[$0]![0].startedAt < byLot[$1]![0].startedAt }
      var rowsHere: [LotRow] = []
      for lot in ordered {
        let r = byLot[lot]!
        let every = all[lot]!
        let sens = r.map(\.sensitivity_counts_per_n)
        let m = sens.reduce(0, +) / Double(sens.count)
        let sd = sens.count > 1 ? (sens.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(sens.count - 1)).squareRoot() : 0
        rowsHere.append(
          LotRow(
            board: board, lot: lot, calibrations: every.count, passed: r.count, first: every[0].startedAt,
            sensitivityMean: m, sensitivitySD: sd, noiseMean: r.reduce(0) { $0 + $1.noise_counts } / Double(r.count)))
      }
      lotRows += rowsHere
      guard ordered.count >= 3 else { continue }
      for metric in CalibrationSummary.Metric.allCases {
        let means = ordered.map { lot in byLot[lot]!.reduce(0) { $0 + $1.value(metric) } / Double(byLot[lot]!.count) }
        if let chart = Self.lotChart(board: board, metric: metric, lots: ordered, means: means, baseline: baseline) {
          lotCharts.append(chart)
        }
      }
    }
    lots = lotRows
    self.lotCharts = lotCharts
  }

  /// An individuals chart of lot means: the centre is the median lot
  /// (one odd lot does not move it), σ̂ = MR̄/1.128 over the moving ranges
  /// of all lots in order of first use; a lot beyond 3σ̂ is flagged.
  static func lotChart(
    board: String, metric: CalibrationSummary.Metric, lots: [String], means: [Double], baseline: Int
  ) -> LotChart? {
    let ranges = zip(means, means.dropFirst()).map { abs($1 - $0) }
    let sorted = means.sorted()
    let centre = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    let sigma = ranges.reduce(0, +) / Double(max(ranges.count, 1)) / 1.128
    guard sigma > 0, sigma.isFinite else { return nil }
    let signals = RunRules.evaluate(means.map { ($0 - centre) / sigma }).filter { $0.rule == .beyond3Sigma }
    return LotChart(
      board: board, metric: metric, lots: lots, means: means, centre: centre, sigma: sigma, baseline: lots.count,
      signals: signals)
  }

  static func yield(_ rows: [CalibrationSummary], by key: (CalibrationSummary) -> String) -> [YieldRow] {
    let groups = Dictionary(grouping: rows, by: key)
    return groups.keys.sorted().map { k in
      let g = groups[k]!
      var lastBySerial: [String: CalibrationSummary] = [:]
      for r in g {
        if let l = lastBySerial[r.serial], l.startedAt > r.startedAt { continue }
        lastBySerial[r.serial] = r
      }
      let firsts = g.filter { $0.attempt == 1 }
      return YieldRow(
        key: k, calibrations: g.count, passed: g.filter(\.passed).count, firstAttempts: firsts.count,
        firstPassed: firsts.filter(\.passed).count, units: lastBySerial.count,
        unitsPassed: lastBySerial.values.filter(\.passed).count)
    }
  }

  static func pareto(_ rows: [CalibrationSummary]) -> [ParetoRow] {
    var counts: [String: Int] = [:]
    for r in rows where !r.passed { counts[r.failure ?? "(none recorded)", default: 0] += 1 }
    let total = counts.values.reduce(0, +)
    var running = 0
    return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { k, v in
      running += v
      return ParetoRow(check: k, count: v, cumulative: Double(running) / Double(total))
    }
  }
}
