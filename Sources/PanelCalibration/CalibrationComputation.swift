import PanelFormats

#if canImport(Glibc)
  import Glibc
#endif

/// Computes a calibration from a recorded session: zeros and noise from the
/// tares, temperature coefficients of the zero from tares at two
/// temperatures, the per-cell fit through the load-sharing model (with
/// wrong placements rejected), the figures of merit, verification through
/// the real pipeline, the single-point comparison, and every check against
/// the plan's limits. The same session always gives the same result.
public enum CalibrationComputation {
  /// Why a session cannot be computed at all (as opposed to failing checks).
  static func failure(_ session: CalibrationSession, _ message: String) -> FileError {
    FileError(file: session.planPath, message: message)
  }

  public static func run(session: CalibrationSession, board: Board, created fallback: String = "")
    throws(FileError) -> CalibrationResult
  {
    var data: [StepData] = []
    for step in session.steps { data.append(try StepData.read(step, session: session, board: board)) }
    let n = board.cellCount
    let limits = session.limits

    // Temperatures: measured, else the set point in force, else 25 degC.
    var temperatures: [Double] = []
    var setPoint = 25.0
    for d in data {
      if let c = d.step.temp_c { setPoint = c }
      temperatures.append(d.temp_c ?? setPoint)
    }
    let tares = data.indices.filter { data[$0].step.role == .tare }
    let first = tares[0]
    let reference = temperatures[first]
    let offsets = data[first].mean
    let noise = data[first].sigma
    // Zero drift: slope of the tares over temperature.
    var tcZero = [Double](repeating: 0, count: n)
    let tareTemperatures = tares.map { temperatures[$0] }
    let tcZeroMeasured = (tareTemperatures.max()! - tareTemperatures.min()!) >= 1
    if tcZeroMeasured {
      let mean = tareTemperatures.reduce(0, +) / Double(tares.count)
      var sxx = 0.0
      for t in tareTemperatures { sxx += (t - mean) * (t - mean) }
      for k in 0..<n {
        let levels = tares.map { data[$0].mean[k] }
        let level = levels.reduce(0, +) / Double(tares.count)
        var sxy = 0.0
        for (t, l) in zip(tareTemperatures, levels) { sxy += (t - mean) * (l - level) }
        tcZero[k] = sxy / sxx
      }
    }
    func deltas(_ i: Int) -> [Double] {
      let dT = temperatures[i] - reference
      return (0..<n).map { data[i].mean[$0] - offsets[$0] - tcZero[$0] * dT }
    }
    func placement(_ i: Int) -> CalibrationFit.Placement {
      let s = data[i].step
      return CalibrationFit.Placement(
        deltas: deltas(i), force_n: s.force_n, x_mm: s.x_mm, y_mm: s.y_mm, dT: temperatures[i] - reference)
    }

    let fitSteps = data.indices.filter { data[$0].step.role == .fit }
    let placements = fitSteps.map(placement)
    let fitTemperatures = fitSteps.map { temperatures[$0] }
    let withTemperature = (fitTemperatures.max()! - fitTemperatures.min()!) >= 2

    // Cells that do not respond are left out of the fit (and fail).
    var span = [Double](repeating: 0, count: n)
    for p in placements { for k in 0..<n { span[k] = max(span[k], abs(p.deltas[k])) } }
    // On a grid, a cell no fit placement comes within a pitch of cannot be
    // calibrated by this session (which says nothing about the cell).
    var nearest = [Double](repeating: 0, count: n)  // pitches to the nearest fit placement
    if let g = board.grid {
      for k in 0..<n {
        let c = board.cells[k]
        nearest[k] = placements.map {
          let dx = $0.x_mm - c.x_mm
          let dy = $0.y_mm - c.y_mm
          return (dx * dx + dy * dy).squareRoot() / g.pitch_mm
        }.min() ?? .infinity
      }
    }
    let covered = nearest.map { $0 <= 1 }
    let responding = (0..<n).map { !covered[$0] || span[$0] >= 50 * max(noise[$0], 1) }
    let excluded = Set((0..<n).filter { !responding[$0] || !covered[$0] })

    // Fit; reject the worst placement while one disagrees with its mass.
    var used = Array(placements.indices)
    var fit: CalibrationFit?
    var rejected: [Int: Double] = [:]
    let maxRejections = max(1, placements.count / 5)
    while true {
      fit = CalibrationFit.fit(used.map { placements[$0] }, board: board, temperature: withTemperature, excluded: excluded)
      guard let f = fit else { break }
      let errors = used.map { abs(total(f, placements[$0]) / placements[$0].force_n - 1) * 100 }
      guard let worst = errors.indices.max(by: { errors[$0] < errors[$1] }),
        errors[worst] > limits.stepError_pct, rejected.count < maxRejections,
        used.count > 3
      else { break }
      let p = used[worst]
      used.remove(at: worst)
      rejected[p] = .nan
    }
    guard var fit else {
      throw failure(
        session,
        "the \(used.count) fit placements do not determine the calibration of \(n - excluded.count) cells (add placements at more positions and loads)"
      )
    }

    // Cross-talk (plates): a coupling correction when the residuals show it.
    fit.fitCoupling(used.map { placements[$0] }, board: board)

    // Per-cell parameters.
    func cellParameters(_ fit: CalibrationFit) -> (parameters: [CellParameters], gains: [Double], median: Double) {
      var gains = [Double](repeating: 0, count: n)
      for k in 0..<n where responding[k] && fit.u[k] != 0 { gains[k] = 1 / fit.u[k] }
      let goodGains = gains.filter { $0 != 0 }.map(abs).sorted()
      let medianGain = goodGains.isEmpty ? 1 : goodGains[goodGains.count / 2]
      var parameters: [CellParameters] = []
      for k in 0..<n {
        let ok = gains[k] != 0
        let u = fit.u[k]
        parameters.append(
          CellParameters(
            offset_counts: offsets[k], gain_counts_per_n: ok ? gains[k] : medianGain,
            linearity_per_n: ok ? fit.v[k] / (u * u) : 0, tcZero_counts_per_c: tcZero[k],
            tcSpan_per_c: ok ? -fit.w[k] / u : 0, noise_counts: noise[k]))
      }
      return (parameters, gains, medianGain)
    }
    let (parameters, gains, medianGain) = cellParameters(fit)

    // Steps: measured load (and centre of pressure on a plate).
    var stepReports: [StepReport] = []
    for (j, i) in fitSteps.enumerated() {
      let p = placements[j]
      let measured = total(fit, p)
      var x: Double?
      var y: Double?
      if board.grid == nil && measured != 0 {
        var mx = 0.0
        var my = 0.0
        let f = fit.forces(p)
        for k in 0..<n {
          mx += f[k] * board.cells[k].x_mm
          my += f[k] * board.cells[k].y_mm
        }
        x = mx / measured
        y = my / measured
      }
      stepReports.append(StepReport(step: data[i].step, measured_n: measured, x_mm: x, y_mm: y, used: rejected[j] == nil))
    }
    let usedReports = stepReports.filter(\.used)
    let residual =
      (usedReports.map { $0.error_pct * $0.error_pct }.reduce(0, +) / Double(max(usedReports.count, 1))).squareRoot()

    // Per-cell figures.
    let modelLoads = fit.modelLoads(used.map { placements[$0] }, board: board)
    var cells: [CellReport] = []
    for k in 0..<n {
      var biggest = 0.0
      for j in used where abs(placements[j].deltas[k]) > abs(biggest) { biggest = placements[j].deltas[k] }
      let fullScale = fit.force(k, biggest, 0)
      let nonlinearity = fullScale == 0 ? 0 : abs(fit.v[k]) * biggest * biggest / 4 / abs(fullScale) * 100
      var points: [LinearityPoint] = []
      for (row, j) in used.enumerated() {
        let p = placements[j]
        let d = p.deltas[k]
        guard abs(d) > 0.02 * abs(biggest) else { continue }
        points.append(
          LinearityPoint(
            load_n: modelLoads[row][k], force_n: fit.force(k, d, p.dT), linear_n: fit.u[k] * d + fit.w[k] * d * p.dT))
      }
      cells.append(
        CellReport(
          index: k, responds: responding[k], span_counts: span[k], noise_counts: noise[k],
          noise_n: gains[k] != 0 ? noise[k] / abs(gains[k]) : .infinity, nonlinearity_pct: nonlinearity,
          hysteresis_pct: nil, zeroReturn_pct: nil, fullScale_n: abs(fullScale),
          gain_counts_per_n: gains[k], points: points))
    }
    // Hysteresis: the same placement twice within one series (no zero between).
    var seriesStart = 0
    for i in data.indices {
      let s = data[i].step
      if !s.isLoaded { seriesStart = i + 1 }
      guard s.role == .fit else { continue }
      for j in seriesStart..<i where data[j].step.role == .fit && data[j].step.samePlacement(as: s) {
        let a = deltas(j)
        let b = deltas(i)
        for k in 0..<n where span[k] > 0 {
          let h = abs(b[k] - a[k]) / span[k] * 100
          cells[k].hysteresis_pct = max(cells[k].hysteresis_pct ?? 0, h)
        }
      }
    }
    // Zero return: every zero after loads against the tare (a zero right
    // after a hold measures creep recovery instead).
    for i in data.indices where data[i].step.role == .zero {
      if let loaded = (0..<i).last(where: { data[$0].step.isLoaded }), data[loaded].step.role == .hold { continue }
      let z = deltas(i)
      for k in 0..<n where span[k] > 0 {
        cells[k].zeroReturn_pct = max(cells[k].zeroReturn_pct ?? 0, abs(z[k]) / span[k] * 100)
      }
    }
    // Creep: the first hold.
    var creep: CreepReport?
    if let h = data.indices.first(where: { data[$0].step.role == .hold }) {
      creep = creepReport(data[h], fit: fit, offsets: offsets, tcZero: tcZero, dT: temperatures[h] - reference)
    }

    // The record (checks added below), then verification through the pipeline.
    let date = session.date.isEmpty ? fallback : session.date
    var record = CalibrationRecord(
      board: board.name, serial: session.serial, created: date, source: "session", plan: session.planName,
      referenceTemperature_c: reference, cells: parameters,
      fit: FitSummary(
        model: fit.model.rawValue, spread_mm: fit.spread_mm, placements: used.count, residual_pct: residual,
        kernel: fit.profile == nil ? nil : (fit.learnt ? "profile" : "boussinesq"),
        profile: fit.learnt ? fit.profile?.values : nil, profileStep_mm: fit.learnt ? fit.profile?.step_mm : nil),
      coupling: fit.coupling, contact: fit.contactModel(noise_n: medianNoise(cells)), response: fit.responseRecord)
    record.response?.residual_pct = fit.response == nil ? nil : residual
    let verifySteps = data.indices.filter { data[$0].step.role == .verify }
    let verification = try Verification.run(record: record, steps: verifySteps, data: data, session: session, board: board)
    // Without verification placements, the accuracy is estimated by
    // cross-validation over the fit placements.
    var crossValidation: CrossValidation?
    if verifySteps.isEmpty {
      crossValidation = try CrossValidation.run(
        used: used, placements: placements, steps: fitSteps, data: data, session: session, board: board
      ) { (train) throws(FileError) -> CalibrationRecord? in
        guard var f = CalibrationFit.fit(train, board: board, temperature: withTemperature, excluded: excluded) else {
          return nil
        }
        f.fitCoupling(train, board: board)
        var r = record
        r.cells = cellParameters(f).parameters
        r.coupling = f.coupling
        r.contact = f.contactModel(noise_n: medianNoise(cells))
        r.response = f.responseRecord
        return r
      }
    }
    let (singleRecord, singleNote) = SinglePoint.record(
      board: board, session: session, placements: placements, steps: fitSteps.map { data[$0].step }, offsets: offsets)
    var singlePoint: [PlacementResult]?
    if let singleRecord {
      singlePoint = try Verification.run(record: singleRecord, steps: verifySteps, data: data, session: session, board: board)
    }

    // Checks.
    var add = CheckList()
    for k in 0..<n where !covered[k] {
      add.fail(
        "coverage", "cell \(k)", nearest[k], 1, "pitches",
        "no fit placement within one pitch of it: the session cannot calibrate this cell")
    }
    for c in cells where !c.responds {
      add.fail(
        "response", "cell \(c.index)", c.span_counts, 50 * max(c.noise_counts, 1), "counts",
        "no response to load (largest change \(Format.short(c.span_counts)) counts, noise \(Format.short(c.noise_counts)) counts): a dead cell or a broken connection")
    }
    let live = cells.filter { $0.responds && covered[$0.index] }
    add.each(
      "noise", "N", limits.noiseLimit(board: board),
      live.map { ("cell \($0.index)", $0.noise_n, limits.noise_n == nil ? "the board's touch threshold over noise_on" : "") })
    // What the panel's noise lets the session measure: a figure read
    // through noise is not judged finer than three of its standard
    // deviations (a noisy panel's zero return or step error is mostly its
    // noise); the limit is widened to that, and the check says so.
    let allowance = NoiseAllowance(cells: live, board: board, radius: record.contact?.radius)
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
      [("panel", residual, "RMS over \(used.count) placements", allowance.rms_pct(usedReports.map(\.step.force_n)))])
    add.each(
      "step load", "%", limits.stepError_pct,
      stepReports.map { r in
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
    let checks = add.checks
    record.checks = checks
    record.result = checks.allSatisfy(\.passed) ? "pass" : "fail"
    let all = temperatures
    return CalibrationResult(
      board: board, session: session, record: record, checks: checks, fit: fit, cells: cells, steps: stepReports,
      verification: verification, crossValidation: crossValidation, singlePoint: singlePoint,
      singlePointNote: singleNote, creep: creep, temperatures: (all.min()!, all.max()!),
      measuredTemperatureCoefficients: (zero: tcZeroMeasured, span: withTemperature))
  }

  /// The median cell's noise, newtons.
  static func medianNoise(_ cells: [CellReport]) -> Double {
    let noise = cells.map(\.noise_n).filter(\.isFinite).sorted()
    return noise.isEmpty ? 0 : noise[noise.count / 2]
  }

  /// The panel's total force for a placement.
  static func total(_ fit: CalibrationFit, _ p: CalibrationFit.Placement) -> Double {
    fit.measuredLoad(p)
  }

  /// Creep of a hold: the total force over time, an exponential fitted to it
  /// (time constant searched on a log scale), extrapolated to 30 minutes.
  static func creepReport(
    _ d: StepData, fit: CalibrationFit, offsets: [Double], tcZero: [Double], dT: Double
  ) -> CreepReport {
    let load = d.step.force_n
    let series: [(t_s: Double, force_n: Double)] = d.chunks.map { c in
      let p = CalibrationFit.Placement(
        deltas: (0..<c.mean.count).map { c.mean[$0] - offsets[$0] - tcZero[$0] * dT }, force_n: load,
        x_mm: d.step.x_mm, y_mm: d.step.y_mm, dT: dT)
      return (c.t_s, total(fit, p))
    }
    guard series.count >= 3 else {
      return CreepReport(step: d.step, measured_pct: 0, extrapolated_pct: 0, tau_s: 0, duration_s: d.duration_s, series: series)
    }
    let measured = (series.last!.force_n - series.first!.force_n) / load * 100
    var best = (sse: Double.infinity, tau: 0.0, b: 0.0)
    var tau = 0.5
    while tau <= 5000 {
      let rows = series.map { [1, 1 - exp(-$0.t_s / tau)] }
      if let x = LeastSquares.solve(rows, series.map(\.force_n)) {
        var sse = 0.0
        for (r, s) in zip(rows, series) {
          let e = x[0] * r[0] + x[1] * r[1] - s.force_n
          sse += e * e
        }
        if sse < best.sse { best = (sse, tau, x[1]) }
      }
      tau *= 1.25
    }
    let t0 = series.first!.t_s
    let extrapolated = best.b * (exp(-t0 / best.tau) - exp(-1800 / best.tau)) / load * 100
    return CreepReport(
      step: d.step, measured_pct: measured, extrapolated_pct: extrapolated, tau_s: best.tau, duration_s: d.duration_s,
      series: series)
  }
}

/// Builds the check list: one entry for the worst subject when all pass,
/// one per failing subject otherwise.
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
