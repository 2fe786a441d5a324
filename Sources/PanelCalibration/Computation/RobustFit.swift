import PanelFormats

/// Stage 5: the fit through the load-sharing model, rejecting the worst
/// placement while one disagrees with its mass (at most a fifth of them,
/// keeping at least three), then the cross-talk correction (plates) when
/// the residuals show it.
struct RobustFit {
  var fit: CalibrationFit
  /// The placements the fit used (indices into `FitPlacements.placements`).
  let used: [Int]
  /// The placements it rejected.
  let rejected: Set<Int>

  init(
    _ input: FitPlacements, coverage: CellCoverage, board: Board, session: CalibrationSession
  ) throws(FileError) {
    let placements = input.placements
    var used = Array(placements.indices)
    var fit: CalibrationFit?
    var rejected: Set<Int> = []
    let maxRejections = max(1, placements.count / 5)
    while true {
      fit = CalibrationFit.fit(
        used.map { placements[$0] }, board: board, temperature: input.withTemperature, excluded: coverage.excluded)
      guard let f = fit else { break }
      let errors = used.map { abs(f.measuredLoad(placements[$0]) / placements[$0].force_n - 1) * 100 }
      guard let worst = errors.indices.max(by: { errors[$0] < errors[$1] }),
        errors[worst] > session.limits.stepError_pct, rejected.count < maxRejections,
        used.count > 3
      else { break }
      rejected.insert(used.remove(at: worst))
    }
    guard var fit else {
      throw CalibrationComputation.failure(
        session,
        "the \(used.count) fit placements do not determine the calibration of \(board.cellCount - coverage.excluded.count) cells (add placements at more positions and loads)"
      )
    }
    fit.fitCoupling(used.map { placements[$0] }, board: board)
    self.fit = fit
    self.used = used
    self.rejected = rejected
  }
}

/// Stage 6: each cell's parameters for the record from a fit: its gain
/// (the median responding cell's where it does not respond), linearity,
/// and the zero's and span's temperature coefficients.
struct CellCalibration {
  let parameters: [CellParameters]
  /// Each cell's gain, counts per newton; 0 where the cell does not respond.
  let gains: [Double]
  let medianGain: Double

  init(_ fit: CalibrationFit, coverage: CellCoverage, zero: ZeroModel) {
    let n = zero.cellCount
    var gains = [Double](repeating: 0, count: n)
    for k in 0..<n where coverage.responding[k] && fit.u[k] != 0 { gains[k] = 1 / fit.u[k] }
    let goodGains = gains.filter { $0 != 0 }.map(abs).sorted()
    let medianGain = goodGains.isEmpty ? 1 : goodGains[goodGains.count / 2]
    var parameters: [CellParameters] = []
    for k in 0..<n {
      let ok = gains[k] != 0
      let u = fit.u[k]
      parameters.append(
        CellParameters(
          offset_counts: zero.offsets[k], gain_counts_per_n: ok ? gains[k] : medianGain,
          linearity_per_n: ok ? fit.v[k] / (u * u) : 0, tcZero_counts_per_c: zero.tcZero[k],
          tcSpan_per_c: ok ? -fit.w[k] / u : 0, noise_counts: zero.noise[k]))
    }
    self.parameters = parameters
    self.gains = gains
    self.medianGain = medianGain
  }
}
