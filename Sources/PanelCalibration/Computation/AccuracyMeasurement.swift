import PanelFormats

/// Stage 11: the calibration's accuracy through the real pipeline — the
/// verification placements with the record; without them, cross-validation
/// over the fit placements (each fold refitted without its positions); and
/// the single-point ("tare + one weight") calibration on the same
/// verification placements, for comparison.
struct AccuracyMeasurement {
  let verification: [PlacementResult]
  let crossValidation: CrossValidation?
  let singlePoint: [PlacementResult]?
  let singlePointNote: String

  init(
    record: CalibrationRecord, fitted: RobustFit, input: FitPlacements, coverage: CellCoverage, zero: ZeroModel,
    contactNoise_n: Double, readings: SessionReadings, session: CalibrationSession, board: Board
  ) throws(FileError) {
    let data = readings.data
    let verifySteps = readings.steps(.verify)
    verification = try Verification.run(record: record, steps: verifySteps, data: data, session: session, board: board)
    if verifySteps.isEmpty {
      crossValidation = try CrossValidation.run(
        used: fitted.used, placements: input.placements, steps: input.steps, data: data, session: session, board: board
      ) { (train) throws(FileError) -> CalibrationRecord? in
        guard var f = CalibrationFit.fit(train, board: board, temperature: input.withTemperature, excluded: coverage.excluded)
        else { return nil }
        f.fitCoupling(train, board: board)
        var r = record
        r.cells = CellCalibration(f, coverage: coverage, zero: zero).parameters
        r.coupling = f.coupling
        r.contact = f.contactModel(noise_n: contactNoise_n)
        r.response = f.responseRecord
        return r
      }
    } else {
      crossValidation = nil
    }
    let (singleRecord, singleNote) = SinglePoint.record(
      board: board, session: session, placements: input.placements, steps: input.steps.map { data[$0].step },
      offsets: zero.offsets)
    singlePointNote = singleNote
    if let singleRecord {
      singlePoint = try Verification.run(record: singleRecord, steps: verifySteps, data: data, session: session, board: board)
    } else {
      singlePoint = nil
    }
  }
}
