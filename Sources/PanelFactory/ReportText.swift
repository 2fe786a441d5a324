import FoundationEssentials

/// The report's tables and signals as CSV: one section a table, each with
/// its own header line, sections apart by an empty line.
public enum ReportCSV {
  public static func text(_ r: FactoryReport) -> String {
    var out = "section,kind,board,subject,figure,rule,from,to,z,lots\n"
    for f in r.flags {
      out += (["signals", f.kind, f.board, f.subject, f.metric.rawValue, f.rule.rawValue, f.from, f.to, "\(f.z)",
        f.lots.joined(separator: " ")] as [String]).map(CSVField.quoted).joined(separator: ",") + "\n"
    }
    out += "\nsection,by,key,calibrations,passed,first_attempts,first_passed,first_pass_yield,units,units_passed,final_yield\n"
    for (by, rows) in [("day", r.yieldByDay), ("station", r.yieldByStation), ("plan", r.yieldByPlan)] {
      for y in rows {
        out += "yield,\(by),\(CSVField.quoted(y.key)),\(y.calibrations),\(y.passed),\(y.firstAttempts),\(y.firstPassed),"
        out += "\(y.firstPassYield),\(y.units),\(y.unitsPassed),\(y.finalYield)\n"
      }
    }
    out += "\nsection,check,failures,cumulative\n"
    for p in r.pareto { out += "pareto,\(CSVField.quoted(p.check)),\(p.count),\(p.cumulative)\n" }
    out += "\nsection,board,lot,first,calibrations,passed,sensitivity_mean,sensitivity_sd,noise_mean\n"
    for l in r.lots {
      out += "lot,\(CSVField.quoted(l.board)),\(CSVField.quoted(l.lot)),\(l.first),\(l.calibrations),\(l.passed),"
      out += "\(l.sensitivityMean),\(l.sensitivitySD),\(l.noiseMean)\n"
    }
    out += "\nsection,board,station,figure,subgroup,first,last,n,mean,sd,mean_low,mean_high,sd_high,z\n"
    for c in r.charts {
      for (i, p) in c.chart.points.enumerated() {
        out += "chart,\(CSVField.quoted(c.board)),\(CSVField.quoted(c.station)),\(c.metric.rawValue),\(i),\(p.first),\(p.last),"
        out += "\(p.n),\(p.mean),\(p.sd),\(p.meanLimits.low),\(p.meanLimits.high),\(p.sdLimits.high),\(p.z)\n"
      }
    }
    return out
  }
}

/// The report as JSON: the selection, yield tables, the Pareto, lots,
/// each chart's centre, σ and signals, and the signals in words.
public enum ReportJSON {
  struct Document: Encodable {
    var format = "forcepanel-factory-report"
    var version = 1
    var selection: String
    var calibrations: Int
    var first: String
    var last: String
    var subgroup: Int
    var signals: [FactoryReport.Flag]
    var yieldByDay: [FactoryReport.YieldRow]
    var yieldByStation: [FactoryReport.YieldRow]
    var yieldByPlan: [FactoryReport.YieldRow]
    var pareto: [FactoryReport.ParetoRow]
    var lots: [FactoryReport.LotRow]
    var charts: [Chart]
  }
  struct Chart: Encodable {
    var board: String
    var station: String
    var figure: String
    var subgroups: Int
    var baseline: Int
    var centre: Double
    var sigma: Double
    var signals: [Signal]
  }
  struct Signal: Encodable {
    var rule: String
    var first: Int
    var last: Int
  }

  public static func text(_ r: FactoryReport) -> String {
    let d = Document(
      selection: r.selection, calibrations: r.calibrations, first: r.first, last: r.last, subgroup: r.subgroupSize,
      signals: r.flags, yieldByDay: r.yieldByDay, yieldByStation: r.yieldByStation, yieldByPlan: r.yieldByPlan,
      pareto: r.pareto, lots: r.lots,
      charts: r.charts.map { c in
        Chart(
          board: c.board, station: c.station, figure: c.metric.rawValue, subgroups: c.chart.points.count,
          baseline: c.chart.baseline, centre: c.chart.centre, sigma: c.chart.sigma,
          signals: c.chart.signals.map { Signal(rule: $0.rule.rawValue, first: $0.first, last: $0.last) })
      })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return (try? String(decoding: encoder.encode(d), as: UTF8.self)) ?? "{}"
  }
}
