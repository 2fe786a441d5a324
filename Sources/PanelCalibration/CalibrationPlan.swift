import PanelFormats

/// Standard gravity (docs/formats.md), m/s^2.
public let standardGravity = 9.80665

/// What a step of a calibration is for.
public enum StepRole: String, Sendable, CaseIterable {
  /// No load: the zero of every cell (and its noise) at this temperature.
  case tare
  /// No load again, after loads: zero return and hysteresis.
  case zero
  /// A reference mass at a known position, used by the fit.
  case fit
  /// A placement checked through the pipeline, not used by the fit.
  case verify
  /// A mass held for creep.
  case hold
}

/// One step of a plan or a session: a load at a position (or none) at a
/// temperature, held still while it is recorded.
public struct CalibrationStep: Sendable, Equatable {
  /// 1-based, in procedure order.
  public var number: Int
  public var role: StepRole
  /// The reference mass, grams (0 = no load).
  public var load_g: Double
  /// Where the mass is centred (loaded steps).
  public var x_mm: Double
  public var y_mm: Double
  /// The chamber temperature to set before this step (nil: leave it).
  public var temp_c: Double?
  /// How long a live run records the step, seconds.
  public var record_s: Double
  /// The step's recording, relative to the session directory ("" in a plan).
  public var file: String
  /// Where the step was written ("plan.toml:23"), for messages.
  public var origin: String

  public init(
    number: Int, role: StepRole, load_g: Double, x_mm: Double = 0, y_mm: Double = 0,
    temp_c: Double? = nil, record_s: Double = 0.4, file: String = "", origin: String = ""
  ) {
    self.number = number
    self.role = role
    self.load_g = load_g
    self.x_mm = x_mm
    self.y_mm = y_mm
    self.temp_c = temp_c
    self.record_s = record_s
    self.file = file
    self.origin = origin
  }

  /// The load's weight in newtons.
  public var force_n: Double { load_g / 1000 * standardGravity }
  public var isLoaded: Bool { load_g > 0 }

  /// "step 7 (step-07.csv)" or "step 7".
  public var name: String { file.isEmpty ? "step \(number)" : "step \(number) (\(file))" }

  /// Whether two steps put the same mass at the same place.
  func samePlacement(as other: CalibrationStep) -> Bool {
    abs(load_g - other.load_g) < 1e-6 && (!isLoaded || (abs(x_mm - other.x_mm) < 1e-6 && abs(y_mm - other.y_mm) < 1e-6))
  }
}

/// The pass/fail limits of a calibration (the plan's `[limits]`).
public struct CalibrationLimits: Sendable, Equatable {
  /// Noise of each cell, one standard deviation, newtons; nil: the
  /// board's own (`noiseLimit(board:)`).
  public var noise_n: Double?
  /// Terminal non-linearity of each cell before its correction, % of its
  /// full-scale output (the calibration corrects a quadratic one; the
  /// envelope of panels it is proved on reaches 2 %).
  public var nonlinearity_pct = 2.0
  /// Difference between loading and unloading at the same load, % of full scale.
  public var hysteresis_pct = 0.2
  /// Zero after loading minus the tare, % of full scale.
  public var zeroReturn_pct = 0.2
  /// Creep of a held load extrapolated to 30 minutes, % of the load.
  public var creep_pct = 1.0
  /// RMS residual of the fit, % of the plan's largest load.
  public var fitResidual_pct = 0.5
  /// A fit step whose measured load differs more than this from its mass
  /// (a wrong mass, a misplaced one), %.
  public var stepError_pct = 3.0
  /// Each cell's sensitivity within this of the median cell's, %.
  public var sensitivitySpread_pct = 30.0
  /// Verification: force error, % of reading, at or above `forceFloor_n` ...
  public var forceError_pct = 1.0
  public var forceFloor_n = 1.0
  /// ... and in newtons below it.
  public var forceError_n = 0.01
  /// Verification: position error, RMS and worst, millimetres.
  public var positionRMS_mm = 1.0
  public var positionMax_mm = 2.0

  public init() {}

  static let keys = [
    "noise_n", "nonlinearity_pct", "hysteresis_pct", "zero_return_pct", "creep_pct", "fit_residual_pct",
    "step_error_pct", "sensitivity_spread_pct", "force_error_pct", "force_floor_n", "force_error_n",
    "position_rms_mm", "position_max_mm",
  ]

  /// The limits as key-value pairs, in file order (for writing sessions).
  var entries: [(String, Double)] {
    (noise_n.map { [("noise_n", $0)] } ?? []) + [
      ("nonlinearity_pct", nonlinearity_pct), ("hysteresis_pct", hysteresis_pct),
      ("zero_return_pct", zeroReturn_pct), ("creep_pct", creep_pct), ("fit_residual_pct", fitResidual_pct),
      ("step_error_pct", stepError_pct), ("sensitivity_spread_pct", sensitivitySpread_pct),
      ("force_error_pct", forceError_pct), ("force_floor_n", forceFloor_n), ("force_error_n", forceError_n),
      ("position_rms_mm", positionRMS_mm), ("position_max_mm", positionMax_mm),
    ]
  }

  /// The noise limit on `board`: the plan's `noise_n`, or else the most
  /// noise a cell can have and still support the board's touch threshold
  /// (its noise alone, at `noise_on` standard deviations, stays below
  /// `touch_on_n`), and at least 5 mN.
  public func noiseLimit(board: Board) -> Double {
    if let noise_n { return noise_n }
    let d = board.detection
    return max(0.005, d.noiseOn > 0 ? d.touchOn_n / d.noiseOn : d.touchOn_n)
  }

  mutating func set(_ key: String, _ value: Double) {
    switch key {
    case "noise_n": noise_n = value
    case "nonlinearity_pct": nonlinearity_pct = value
    case "hysteresis_pct": hysteresis_pct = value
    case "zero_return_pct": zeroReturn_pct = value
    case "creep_pct": creep_pct = value
    case "fit_residual_pct": fitResidual_pct = value
    case "step_error_pct": stepError_pct = value
    case "sensitivity_spread_pct": sensitivitySpread_pct = value
    case "force_error_pct": forceError_pct = value
    case "force_floor_n": forceFloor_n = value
    case "force_error_n": forceError_n = value
    case "position_rms_mm": positionRMS_mm = value
    case "position_max_mm": positionMax_mm = value
    default: break
    }
  }
}

/// How a live run paces the steps (the plan's `[timing]`).
public struct CalibrationTiming: Sendable, Equatable {
  /// The readings must stay still this long before a step is recorded.
  public var settle_s = 0.3
  /// Length of the stability window (means of consecutive windows are compared).
  public var window_s = 0.1
  /// Default recording length of a loaded step, and of a tare (noise).
  public var record_s = 0.4
  public var tare_s = 1.0
  /// Default length of a hold (creep).
  public var hold_s = 20.0
  /// Give up on a step that does not settle (or, unattended, does not change) in this time.
  public var timeout_s = 120.0
  /// A simulated fixture lowers and lifts a mass over this time.
  public var rise_s = 0.2

  public init() {}

  static let keys = ["settle_s", "window_s", "record_s", "tare_s", "hold_s", "timeout_s", "rise_s"]
}

/// A calibration procedure for one board (`calibration/plans/*.toml`): the
/// steps, how a live run paces them, and the pass/fail limits.
public struct CalibrationPlan: Sendable, Equatable {
  public var name: String
  public var board: String
  public var description: String
  /// The mass of the single-point comparison ("tare + one weight"), grams.
  public var reference_g: Double?
  public var timing: CalibrationTiming
  public var limits: CalibrationLimits
  public var steps: [CalibrationStep]
  /// The file it was read from.
  public var file: String

  public init(
    name: String, board: String, description: String = "", reference_g: Double? = nil,
    timing: CalibrationTiming = CalibrationTiming(), limits: CalibrationLimits = CalibrationLimits(),
    steps: [CalibrationStep], file: String = ""
  ) {
    self.name = name
    self.board = board
    self.description = description
    self.reference_g = reference_g
    self.timing = timing
    self.limits = limits
    self.steps = steps
    self.file = file
  }

  /// The largest load of the plan, newtons.
  public var largestForce_n: Double { steps.map(\.force_n).max() ?? 0 }
}
