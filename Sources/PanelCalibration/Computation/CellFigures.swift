import PanelFormats

/// Stage 7: the load each fit step measured with the fit (and its centre
/// of pressure on a plate), and the fit's RMS residual over the placements
/// it used.
struct StepLoads {
  let reports: [StepReport]
  /// The reports of the placements the fit used.
  let used: [StepReport]
  /// RMS of their errors, %.
  let residual_pct: Double

  init(_ fitted: RobustFit, input: FitPlacements, readings: SessionReadings, board: Board) {
    let fit = fitted.fit
    var reports: [StepReport] = []
    for (j, i) in input.steps.enumerated() {
      let p = input.placements[j]
      let measured = fit.measuredLoad(p)
      var x: Double?
      var y: Double?
      if board.grid == nil && measured != 0 {
        var mx = 0.0
        var my = 0.0
        let f = fit.forces(p)
        for k in 0..<board.cellCount {
          mx += f[k] * board.cells[k].x_mm
          my += f[k] * board.cells[k].y_mm
        }
        x = mx / measured
        y = my / measured
      }
      reports.append(
        StepReport(
          step: readings.data[i].step, measured_n: measured, x_mm: x, y_mm: y, used: !fitted.rejected.contains(j)))
    }
    self.reports = reports
    used = reports.filter(\.used)
    residual_pct = (used.map { $0.error_pct * $0.error_pct }.reduce(0, +) / Double(max(used.count, 1))).squareRoot()
  }
}

/// Stage 8: each cell's figures — full scale, terminal non-linearity and
/// its linearity points over the placements the fit used, hysteresis (the
/// same placement twice within one series, no zero between) and zero
/// return (every zero after loads against the tare; a zero right after a
/// hold measures creep recovery instead).
enum CellFigures {
  static func reports(
    _ fitted: RobustFit, input: FitPlacements, coverage: CellCoverage, calibration: CellCalibration,
    zero: ZeroModel, readings: SessionReadings, board: Board
  ) -> [CellReport] {
    let fit = fitted.fit
    let placements = input.placements
    let modelLoads = fit.modelLoads(fitted.used.map { placements[$0] }, board: board)
    var cells: [CellReport] = []
    for k in 0..<zero.cellCount {
      var biggest = 0.0
      for j in fitted.used where abs(placements[j].deltas[k]) > abs(biggest) { biggest = placements[j].deltas[k] }
      let fullScale = fit.force(k, biggest, 0)
      let nonlinearity = fullScale == 0 ? 0 : abs(fit.v[k]) * biggest * biggest / 4 / abs(fullScale) * 100
      var points: [LinearityPoint] = []
      for (row, j) in fitted.used.enumerated() {
        let p = placements[j]
        let d = p.deltas[k]
        guard abs(d) > 0.02 * abs(biggest) else { continue }
        points.append(
          LinearityPoint(
            load_n: modelLoads[row][k], force_n: fit.force(k, d, p.dT), linear_n: fit.u[k] * d + fit.w[k] * d * p.dT))
      }
      let gain = calibration.gains[k]
      cells.append(
        CellReport(
          index: k, responds: coverage.responding[k], span_counts: coverage.span[k], noise_counts: zero.noise[k],
          noise_n: gain != 0 ? zero.noise[k] / abs(gain) : .infinity, nonlinearity_pct: nonlinearity,
          hysteresis_pct: nil, zeroReturn_pct: nil, fullScale_n: abs(fullScale),
          gain_counts_per_n: gain, points: points))
    }
    hysteresis(&cells, span: coverage.span, zero: zero, readings: readings)
    zeroReturn(&cells, span: coverage.span, zero: zero, readings: readings)
    return cells
  }

  static func hysteresis(_ cells: inout [CellReport], span: [Double], zero: ZeroModel, readings: SessionReadings) {
    let data = readings.data
    var seriesStart = 0
    for i in data.indices {
      let s = data[i].step
      if !s.isLoaded { seriesStart = i + 1 }
      guard s.role == .fit else { continue }
      for j in seriesStart..<i where data[j].step.role == .fit && data[j].step.samePlacement(as: s) {
        let a = zero.deltas(readings, j)
        let b = zero.deltas(readings, i)
        for k in cells.indices where span[k] > 0 {
          let h = abs(b[k] - a[k]) / span[k] * 100
          cells[k].hysteresis_pct = max(cells[k].hysteresis_pct ?? 0, h)
        }
      }
    }
  }

  static func zeroReturn(_ cells: inout [CellReport], span: [Double], zero: ZeroModel, readings: SessionReadings) {
    let data = readings.data
    for i in data.indices where data[i].step.role == .zero {
      if let loaded = (0..<i).last(where: { data[$0].step.isLoaded }), data[loaded].step.role == .hold { continue }
      let z = zero.deltas(readings, i)
      for k in cells.indices where span[k] > 0 {
        cells[k].zeroReturn_pct = max(cells[k].zeroReturn_pct ?? 0, abs(z[k]) / span[k] * 100)
      }
    }
  }
}
