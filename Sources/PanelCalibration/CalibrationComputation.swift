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

  /// The stages, each a typed value in `Computation/`: the steps' readings
  /// and temperatures, the zero from the tares, the fit placements, the
  /// cells the session covers, the fit with rejections, the cells'
  /// parameters, the steps' loads, the cells' figures, creep, the record,
  /// its accuracy through the pipeline, and the checks.
  public static func run(session: CalibrationSession, board: Board, created fallback: String = "")
    throws(FileError) -> CalibrationResult
  {
    let readings = try SessionReadings(session: session, board: board)
    let zero = ZeroModel(readings, cellCount: board.cellCount)
    let input = FitPlacements(readings, zero: zero)
    let coverage = CellCoverage(input, zero: zero, board: board)
    let fitted = try RobustFit(input, coverage: coverage, board: board, session: session)
    let calibration = CellCalibration(fitted.fit, coverage: coverage, zero: zero)
    let loads = StepLoads(fitted, input: input, readings: readings, board: board)
    let cells = CellFigures.reports(
      fitted, input: input, coverage: coverage, calibration: calibration, zero: zero, readings: readings, board: board)
    let creep = readings.steps(.hold).first.map { h in
      creepReport(readings.data[h], fit: fitted.fit, zero: zero, dT: readings.temperatures[h] - zero.reference)
    }
    let date = session.date.isEmpty ? fallback : session.date
    var record = draftRecord(
      fitted, calibration: calibration, loads: loads, cells: cells, zero: zero, date: date, session: session, board: board)
    let accuracy = try AccuracyMeasurement(
      record: record, fitted: fitted, input: input, coverage: coverage, zero: zero, contactNoise_n: medianNoise(cells),
      readings: readings, session: session, board: board)
    let checks = CalibrationChecks.make(
      cells: cells, coverage: coverage, calibration: calibration, loads: loads, fitted: fitted, creep: creep,
      verification: accuracy.verification, radius: record.contact?.radius, limits: session.limits, board: board)
    record.checks = checks
    record.result = checks.allSatisfy(\.passed) ? "pass" : "fail"
    let all = readings.temperatures
    return CalibrationResult(
      board: board, session: session, record: record, checks: checks, fit: fitted.fit, cells: cells,
      steps: loads.reports, verification: accuracy.verification, crossValidation: accuracy.crossValidation,
      singlePoint: accuracy.singlePoint, singlePointNote: accuracy.singlePointNote, creep: creep,
      temperatures: (all.min()!, all.max()!),
      measuredTemperatureCoefficients: (zero: zero.tcZeroMeasured, span: input.withTemperature))
  }

  /// Stage 10: the record (its checks are added last), as verification
  /// runs it through the pipeline.
  static func draftRecord(
    _ fitted: RobustFit, calibration: CellCalibration, loads: StepLoads, cells: [CellReport], zero: ZeroModel,
    date: String, session: CalibrationSession, board: Board
  ) -> CalibrationRecord {
    let fit = fitted.fit
    var record = CalibrationRecord(
      board: board.name, serial: session.serial, created: date, source: "session", plan: session.planName,
      referenceTemperature_c: zero.reference, cells: calibration.parameters,
      fit: FitSummary(
        model: fit.model.rawValue, spread_mm: fit.spread_mm, placements: fitted.used.count,
        residual_pct: loads.residual_pct,
        kernel: fit.profile == nil ? nil : (fit.learnt ? "profile" : "boussinesq"),
        profile: fit.learnt ? fit.profile?.values : nil, profileStep_mm: fit.learnt ? fit.profile?.step_mm : nil),
      coupling: fit.coupling, contact: fit.contactModel(noise_n: medianNoise(cells)), response: fit.responseRecord)
    record.response?.residual_pct = fit.response == nil ? nil : loads.residual_pct
    return record
  }

  /// The median cell's noise, newtons.
  static func medianNoise(_ cells: [CellReport]) -> Double {
    let noise = cells.map(\.noise_n).filter(\.isFinite).sorted()
    return noise.isEmpty ? 0 : noise[noise.count / 2]
  }

  /// Creep of a hold: the total force over time, an exponential fitted to it
  /// (time constant searched on a log scale), extrapolated to 30 minutes.
  static func creepReport(_ d: StepData, fit: CalibrationFit, zero: ZeroModel, dT: Double) -> CreepReport {
    let load = d.step.force_n
    let series: [(t_s: Double, force_n: Double)] = d.chunks.map { c in
      let p = CalibrationFit.Placement(
        deltas: zero.deltas(c.mean, count: c.mean.count, dT: dT), force_n: load,
        x_mm: d.step.x_mm, y_mm: d.step.y_mm, dT: dT)
      return (c.t_s, fit.measuredLoad(p))
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
