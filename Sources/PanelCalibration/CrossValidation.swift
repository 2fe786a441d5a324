import PanelFormats

/// An honest estimate of a calibration's accuracy when a session has no
/// verification placements: k-fold cross-validation over the fit
/// placements. The placement positions are dealt into folds (every load at
/// one position goes to the same fold, so a fold's positions are unseen by
/// the calibration that measures them); for each fold the calibration is
/// fitted again without it, and the fold's placements are run through the
/// real pipeline with that calibration, as verification placements are.
public struct CrossValidation: Sendable {
  /// Folds measured.
  public var folds: Int
  /// Folds whose remaining placements did not determine a calibration.
  public var skippedFolds: Int
  /// Every fit placement of the measured folds, as measured.
  public var results: [PlacementResult]

  /// The most folds (fewer when there are fewer positions).
  static let maxFolds = 5

  /// - Parameters:
  ///   - used: the fit placements the calibration used (indices into `placements`).
  ///   - steps: the session step (index into `data`) of each placement.
  ///   - refit: the calibration from a subset of the placements, nil when
  ///     they do not determine one.
  static func run(
    used: [Int], placements: [CalibrationFit.Placement], steps: [Int], data: [StepData], session: CalibrationSession,
    board: Board, refit: ([CalibrationFit.Placement]) throws(FileError) -> CalibrationRecord?
  ) throws(FileError) -> CrossValidation? {
    // Positions, in session order, to 0.5 mm.
    var positions: [(x: Double, y: Double)] = []
    var positionOf: [Int: Int] = [:]
    for j in used {
      let p = placements[j]
      if let i = positions.firstIndex(where: { abs($0.x - p.x_mm) < 0.5 && abs($0.y - p.y_mm) < 0.5 }) {
        positionOf[j] = i
      } else {
        positionOf[j] = positions.count
        positions.append((p.x_mm, p.y_mm))
      }
    }
    let k = min(maxFolds, positions.count)
    guard k >= 2 else { return nil }
    var results: [PlacementResult] = []
    var measured = 0
    var skipped = 0
    for fold in 0..<k {
      let held = used.filter { positionOf[$0]! % k == fold }
      let train = used.filter { positionOf[$0]! % k != fold }.map { placements[$0] }
      guard let record = try refit(train) else {
        skipped += 1
        continue
      }
      results += try Verification.run(
        record: record, steps: held.map { steps[$0] }, data: data, session: session, board: board)
      measured += 1
    }
    guard measured > 0 else { return nil }
    return CrossValidation(folds: measured, skippedFolds: skipped, results: results)
  }
}
