import PanelFormats

/// Everything a calibration found, for the record, the certificate and the
/// JSON summary.
public struct CalibrationResult: Sendable {
  public var board: Board
  public var session: CalibrationSession
  public var record: CalibrationRecord
  public var checks: [CalibrationCheck]
  public var passed: Bool { checks.allSatisfy(\.passed) }
  public var fit: CalibrationFit
  public var cells: [CellReport]
  public var steps: [StepReport]
  /// Verification placements through the pipeline with this calibration.
  public var verification: [PlacementResult]
  /// Without verification placements: the fit placements measured by
  /// cross-validation (nil when the session has verification placements).
  public var crossValidation: CrossValidation?
  /// The same placements with the single-point ("tare + one weight")
  /// calibration, for comparison; nil when the session has no reference steps.
  public var singlePoint: [PlacementResult]?
  public var singlePointNote: String
  public var creep: CreepReport?
  /// Temperatures the session covered (lowest, highest).
  public var temperatures: (low: Double, high: Double)
  /// Whether the session measured the zero's and the span's temperature
  /// coefficients (tares, and fit placements, at 1 and 2 degC apart or
  /// more); when not, the record's coefficients are 0 and say nothing.
  public var measuredTemperatureCoefficients: (zero: Bool, span: Bool)
  /// Where the record went besides the file ("stored on the panel ..."), set
  /// by whoever stored it.
  public var storage: String?

  /// The placements the accuracy figures come from, and how they were
  /// measured.
  public var accuracy: (results: [PlacementResult], method: AccuracyMethod) {
    if !verification.isEmpty { return (verification, .verification) }
    if let cv = crossValidation, !cv.results.isEmpty { return (cv.results, .crossValidation(folds: cv.folds)) }
    return ([], .notMeasured)
  }

  /// Checks the session gave nothing to run on: (name, why).
  public var checksNotRun: [(name: String, why: String)] {
    var out: [(String, String)] = []
    if verification.isEmpty {
      let estimate = crossValidation == nil ? "" : "; the accuracy is estimated by cross-validation instead"
      out.append(("verification", "the session has no verification placements\(estimate)"))
    }
    if cells.allSatisfy({ $0.hysteresis_pct == nil }) {
      out.append(("hysteresis", "no placement is repeated within a series of loads"))
    }
    if cells.allSatisfy({ $0.zeroReturn_pct == nil }) {
      out.append(("zero return", "no unloaded step follows the loads"))
    }
    if creep == nil { out.append(("creep (30 min)", "the session holds no load long enough (a hold step)")) }
    if !measuredTemperatureCoefficients.zero {
      out.append(("temperature", "the session's tares are within 1 °C of each other: no temperature coefficient measured"))
    }
    return out
  }

  /// The first failed check, as one line.
  public var firstFailure: String? { checks.first { !$0.passed }?.summary }
}

/// Where a calibration's accuracy figures come from.
public enum AccuracyMethod: Sendable, Equatable {
  /// Verification placements through the pipeline.
  case verification
  /// k-fold cross-validation over the fit placements: each fold measured
  /// through the pipeline with a calibration fitted without it.
  case crossValidation(folds: Int)
  /// Neither: the figures are unknown.
  case notMeasured

  /// The name in the JSON summary.
  public var name: String {
    switch self {
    case .verification: return "verification"
    case .crossValidation: return "cross-validation"
    case .notMeasured: return "not measured"
    }
  }
}

/// What the calibration says about one cell.
public struct CellReport: Sendable {
  public var index: Int
  public var responds: Bool
  /// Largest change over the fit placements, counts.
  public var span_counts: Double
  public var noise_counts: Double
  public var noise_n: Double
  /// Terminal non-linearity over the cell's range, % of its full scale.
  public var nonlinearity_pct: Double
  public var hysteresis_pct: Double?
  public var zeroReturn_pct: Double?
  /// The cell's full-scale load in this plan, newtons.
  public var fullScale_n: Double
  public var gain_counts_per_n: Double
  /// One point per fit placement that loaded the cell.
  public var points: [LinearityPoint]
}

/// A cell in one fit placement: its modelled load, its calibrated force,
/// and the force from the gain alone (without the linearity correction).
public struct LinearityPoint: Sendable {
  public var load_n: Double
  public var force_n: Double
  public var linear_n: Double
}

/// A fit step: the load it should carry against what the panel measured.
public struct StepReport: Sendable {
  public var step: CalibrationStep
  public var measured_n: Double
  /// Centre of pressure of the measured forces (plates).
  public var x_mm: Double?
  public var y_mm: Double?
  /// Whether the fit used it (false: rejected as an outlier).
  public var used: Bool
  public var error_pct: Double { (measured_n - step.force_n) / step.force_n * 100 }
}

/// A verification placement through the pipeline.
public struct PlacementResult: Sendable {
  public var step: CalibrationStep
  /// Mean reported force and position over the step (nil: no contact).
  public var force_n: Double
  public var x_mm: Double
  public var y_mm: Double
  public var frames: Int
  public var forceError_n: Double { force_n - step.force_n }
  public var forceError_pct: Double { forceError_n / step.force_n * 100 }
  public var positionError_mm: Double {
    let dx = x_mm - step.x_mm
    let dy = y_mm - step.y_mm
    return (dx * dx + dy * dy).squareRoot()
  }
}

/// Accuracy over a set of placements.
public struct AccuracySummary: Sendable, Equatable {
  public var placements: Int
  /// Worst |force error| in % of reading for loads at or above the floor.
  public var worstForce_pct: Double
  /// Worst |force error| in newtons below the floor (nil: no such load).
  public var worstForceBelowFloor_n: Double?
  public var positionRMS_mm: Double
  public var positionMax_mm: Double

  public init(_ results: [PlacementResult], floor_n: Double) {
    placements = results.count
    worstForce_pct = results.filter { $0.step.force_n >= floor_n }.map { abs($0.forceError_pct) }.max() ?? 0
    let below = results.filter { $0.step.force_n < floor_n }.map { abs($0.forceError_n) }
    worstForceBelowFloor_n = below.max()
    let squares = results.map { $0.positionError_mm * $0.positionError_mm }
    positionRMS_mm = results.isEmpty ? 0 : (squares.reduce(0, +) / Double(results.count)).squareRoot()
    positionMax_mm = results.map(\.positionError_mm).max() ?? 0
  }
}

/// Creep of a held load.
public struct CreepReport: Sendable {
  public var step: CalibrationStep
  /// Change over the hold, % of the load.
  public var measured_pct: Double
  /// Exponential fitted to the hold and extrapolated to 30 minutes, % of the load.
  public var extrapolated_pct: Double
  public var tau_s: Double
  public var duration_s: Double
  /// Total force over the hold (seconds from the start of the recording, N).
  public var series: [(t_s: Double, force_n: Double)]
}
