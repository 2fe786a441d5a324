import PanelFormats

/// Stage 12: every check of the session against the plan's limits.
enum CalibrationChecks {
  static func make(
    cells: [CellReport], coverage: CellCoverage, calibration: CellCalibration, loads: StepLoads, fitted: RobustFit,
    creep: CreepReport?, verification: [PlacementResult], radius: Int?, limits: CalibrationLimits, board: Board
  ) -> [CalibrationCheck] {
    var add = CheckList()
    for k in cells.indices where !coverage.covered[k] {
      add.fail(
        "coverage", "cell \(k)", coverage.nearest[k], 1, "pitches",
        "no fit placement within one pitch of it: the session cannot calibrate this cell")
    }
    for c in cells where !c.responds {
      add.fail(
        "response", "cell \(c.index)", c.span_counts, 50 * max(c.noise_counts, 1), "counts",
        "no response to load (largest change \(Format.short(c.span_counts)) counts, noise \(Format.short(c.noise_counts)) counts): a dead cell or a broken connection")
    }
    let live = cells.filter { $0.responds && coverage.covered[$0.index] }
    add.each(
      "noise", "N", limits.noiseLimit(board: board),
      live.map { ("cell \($0.index)", $0.noise_n, limits.noise_n == nil ? "the board's touch threshold over noise_on" : "") })
    // What the panel's noise lets the session measure: a figure read
    // through noise is not judged finer than three of its standard
    // deviations (a noisy panel's zero return or step error is mostly its
    // noise); the limit is widened to that, and the check says so.
    let allowance = NoiseAllowance(cells: live, board: board, radius: radius)
    let medianGain = calibration.medianGain
    add.each(
      "sensitivity", "%", limits.sensitivitySpread_pct,
      live.map { ("cell \($0.index)", abs(abs($0.gain_counts_per_n) / medianGain - 1) * 100, "sensitivity against the median cell") })
    add.each(
      "non-linearity", "%", limits.nonlinearity_pct,
      live.map { ("cell \($0.index)", $0.nonlinearity_pct, "terminal non-linearity over its range (\(Format.short($0.fullScale_n)) N)") })
    add.each(
      "hysteresis", "%", limits.hysteresis_pct,
      live.compactMap { c in c.hysteresis_pct.map { ("cell \(c.index)", $0, "", allowance.cellDifference_pct(c)) } })
    add.each(
      "zero return", "%", limits.zeroReturn_pct,
      live.compactMap { c in c.zeroReturn_pct.map { ("cell \(c.index)", $0, "", allowance.cellDifference_pct(c)) } })
    if let creep {
      add.each(
        "creep (30 min)", "%", limits.creep_pct,
        [(creep.step.name, abs(creep.extrapolated_pct), "measured \(Format.short(creep.measured_pct)) % over \(Format.short(creep.duration_s)) s",
          // The change over the hold is a difference of two readings, and
          // the extrapolation multiplies its noise as much as the change.
          allowance.contact_pct(creep.step.force_n) * 2.0.squareRoot()
            * (creep.measured_pct != 0 ? abs(creep.extrapolated_pct / creep.measured_pct) : 1))])
    }
    add.each(
      "fit residual", "%", limits.fitResidual_pct,
      [("panel", loads.residual_pct, "RMS over \(fitted.used.count) placements", allowance.rms_pct(loads.used.map(\.step.force_n)))])
    add.each(
      "step load", "%", limits.stepError_pct,
      loads.reports.map { r in
        let note = r.used ? "" : "the plan says \(Format.short(r.step.load_g)) g, the panel measured \(Format.short(r.measured_n / standardGravity * 1000)) g (wrong mass or position?)"
        return (r.step.name, abs(r.error_pct), note, allowance.contact_pct(r.step.force_n))
      })
    if !verification.isEmpty {
      add.each(
        "verification force", "%", limits.forceError_pct,
        verification.filter { $0.step.force_n >= limits.forceFloor_n }.map {
          ($0.step.name, abs($0.forceError_pct), "\(Format.short($0.force_n)) N for \(Format.short($0.step.force_n)) N",
           allowance.contact_pct($0.step.force_n))
        })
      add.each(
        "verification force", "N", limits.forceError_n,
        verification.filter { $0.step.force_n < limits.forceFloor_n }.map {
          ($0.step.name, abs($0.forceError_n), "\(Format.short($0.force_n)) N for \(Format.short($0.step.force_n)) N",
           3 * allowance.contact_n)
        })
      let accuracy = AccuracySummary(verification, floor_n: limits.forceFloor_n)
      add.each("verification position RMS", "mm", limits.positionRMS_mm, [("panel", accuracy.positionRMS_mm, "over \(verification.count) placements")])
      add.each(
        "verification position", "mm", limits.positionMax_mm,
        verification.map { ($0.step.name, $0.positionError_mm, "at (\(Format.short($0.x_mm)), \(Format.short($0.y_mm))) mm") })
    }
    return add.checks
  }
}

/// The noise of what a session measures, from the cells' own noise (one
/// standard deviation per frame: the slow wander a step's mean does not
/// average away is in it): three of them are what a figure can be judged
/// to.
struct NoiseAllowance {
  /// The median cell's noise, and a contact's (the cells a contact sums:
  /// every cell of a plate, the window of a grid's contact), newtons.
  let cell_n: Double
  let contact_n: Double

  init(cells: [CellReport], board: Board, radius: Int?) {
    let sorted = cells.map(\.noise_n).sorted()
    cell_n = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    let summed = board.grid == nil ? Double(max(board.cellCount, 1)) : Double((2 * (radius ?? 2) + 1) * (2 * (radius ?? 2) + 1))
    contact_n = cell_n * summed.squareRoot()
  }

  /// A difference of two readings of one cell, % of its full scale.
  func cellDifference_pct(_ c: CellReport) -> Double {
    c.fullScale_n > 0 ? 300 * 2.0.squareRoot() * c.noise_n / c.fullScale_n : 0
  }

  /// A contact's force of `force_n`, %.
  func contact_pct(_ force_n: Double) -> Double {
    force_n > 0 ? 300 * contact_n / force_n : 0
  }

  /// The RMS of contacts' errors over these forces, %.
  func rms_pct(_ forces: [Double]) -> Double {
    let terms = forces.filter { $0 > 0 }.map { (contact_n / $0) * (contact_n / $0) }
    return terms.isEmpty ? 0 : 300 * (terms.reduce(0, +) / Double(terms.count)).squareRoot()
  }
}

/// Builds the check list: one entry for the worst subject when all pass,
/// one per failing subject otherwise.
struct CheckList {
  var checks: [CalibrationCheck] = []

  mutating func fail(_ name: String, _ subject: String, _ value: Double, _ limit: Double, _ unit: String, _ note: String) {
    checks.append(CalibrationCheck(name: name, subject: subject, value: value, limit: limit, unit: unit, passed: false, note: note))
  }

  mutating func each(_ name: String, _ unit: String, _ limit: Double, _ items: [(String, Double, String)]) {
    each(name, unit, limit, items.map { ($0.0, $0.1, $0.2, 0) })
  }

  /// Checks each item against `limit`, or against its allowance when that
  /// is larger (what the panel's noise lets the figure be measured to).
  mutating func each(_ name: String, _ unit: String, _ limit: Double, _ items: [(String, Double, String, Double)]) {
    guard !items.isEmpty else { return }
    func check(_ f: (String, Double, String, Double)) -> CalibrationCheck {
      let bound = max(limit, f.3)
      var note = f.2
      if f.3 > limit {
        let widened = "limit \(Format.short(limit)) \(unit) widened by the panel's noise"
        note = note.isEmpty ? widened : note + "; " + widened
      }
      let value = f.1.isFinite ? f.1 : 1e9
      return CalibrationCheck(name: name, subject: f.0, value: value, limit: bound, unit: unit, passed: f.1 <= bound, note: note)
    }
    let all = items.map(check)
    let failing = all.filter { !$0.passed }
    if failing.isEmpty {
      // The item closest to its limit stands for the rest.
      checks.append(all.max { $0.value / max($0.limit, 1e-12) < $1.value / max($1.limit, 1e-12) }!)
    } else {
      checks += failing
    }
  }
}
