import PanelFormats

/// Stage 1 of a calibration's computation: every step's recording read and
/// summarised, and the temperature each was made at.
struct SessionReadings {
  /// Each step of the session, in order.
  let data: [StepData]
  /// Each step's temperature: measured, else the set point in force, else
  /// 25 degC.
  let temperatures: [Double]

  init(session: CalibrationSession, board: Board) throws(FileError) {
    var data: [StepData] = []
    for step in session.steps { data.append(try StepData.read(step, session: session, board: board)) }
    var temperatures: [Double] = []
    var setPoint = 25.0
    for d in data {
      if let c = d.step.temp_c { setPoint = c }
      temperatures.append(d.temp_c ?? setPoint)
    }
    self.data = data
    self.temperatures = temperatures
  }

  /// The steps of one role, as indices into `data`.
  func steps(_ role: StepRole) -> [Int] {
    data.indices.filter { data[$0].step.role == role }
  }
}

/// Stage 2: the unloaded panel from the tares — each cell's zero and noise
/// at the first tare, and its zero's drift with temperature (the slope of
/// the tares over temperature, when they span 1 degC or more).
struct ZeroModel {
  let cellCount: Int
  /// The first tare's temperature, degC: every `dT` is from it.
  let reference: Double
  let offsets: [Double]
  let noise: [Double]
  let tcZero: [Double]
  let tcZeroMeasured: Bool

  init(_ readings: SessionReadings, cellCount n: Int) {
    let data = readings.data
    let tares = readings.steps(.tare)
    let first = tares[0]
    cellCount = n
    reference = readings.temperatures[first]
    offsets = data[first].mean
    noise = data[first].sigma
    var tcZero = [Double](repeating: 0, count: n)
    let tareTemperatures = tares.map { readings.temperatures[$0] }
    tcZeroMeasured = (tareTemperatures.max()! - tareTemperatures.min()!) >= 1
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
    self.tcZero = tcZero
  }

  /// Levels `mean` (counts) less the zero at `dT` from the reference.
  func deltas(_ mean: [Double], count: Int, dT: Double) -> [Double] {
    (0..<count).map { mean[$0] - offsets[$0] - tcZero[$0] * dT }
  }

  /// Step `i`'s change from the zero, each cell, counts.
  func deltas(_ readings: SessionReadings, _ i: Int) -> [Double] {
    deltas(readings.data[i].mean, count: cellCount, dT: readings.temperatures[i] - reference)
  }
}

/// Stage 3: the fit steps as the fit takes them.
struct FitPlacements {
  /// Each placement's step (index into the session's steps).
  let steps: [Int]
  let placements: [CalibrationFit.Placement]
  /// Whether the fit placements span 2 degC or more (the span's
  /// temperature coefficient is fitted then).
  let withTemperature: Bool

  init(_ readings: SessionReadings, zero: ZeroModel) {
    steps = readings.steps(.fit)
    placements = steps.map { i in
      let s = readings.data[i].step
      return CalibrationFit.Placement(
        deltas: zero.deltas(readings, i), force_n: s.force_n, x_mm: s.x_mm, y_mm: s.y_mm,
        dT: readings.temperatures[i] - zero.reference)
    }
    let temperatures = steps.map { readings.temperatures[$0] }
    withTemperature = (temperatures.max()! - temperatures.min()!) >= 2
  }
}

/// Stage 4: which cells the session can calibrate. A cell that does not
/// respond is left out of the fit (and fails); on a grid, a cell no fit
/// placement comes within a pitch of cannot be calibrated by this session
/// (which says nothing about the cell).
struct CellCoverage {
  /// Largest change over the fit placements, counts.
  let span: [Double]
  /// Pitches to the nearest fit placement (0 on a plate).
  let nearest: [Double]
  let covered: [Bool]
  let responding: [Bool]
  /// The cells the fit leaves out.
  let excluded: Set<Int>

  init(_ fit: FitPlacements, zero: ZeroModel, board: Board) {
    let n = zero.cellCount
    var span = [Double](repeating: 0, count: n)
    for p in fit.placements { for k in 0..<n { span[k] = max(span[k], abs(p.deltas[k])) } }
    var nearest = [Double](repeating: 0, count: n)
    if let g = board.grid {
      for k in 0..<n {
        let c = board.cells[k]
        nearest[k] = fit.placements.map {
          let dx = $0.x_mm - c.x_mm
          let dy = $0.y_mm - c.y_mm
          return (dx * dx + dy * dy).squareRoot() / g.pitch_mm
        }.min() ?? .infinity
      }
    }
    let covered = nearest.map { $0 <= 1 }
    let responding = (0..<n).map { !covered[$0] || span[$0] >= 50 * max(zero.noise[$0], 1) }
    self.span = span
    self.nearest = nearest
    self.covered = covered
    self.responding = responding
    excluded = Set((0..<n).filter { !responding[$0] || !covered[$0] })
  }
}
