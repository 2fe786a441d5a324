/// The range a number read from a file, a control line or the command line
/// must lie in: a lower bound (included or not) and an upper bound
/// (included). Every time, force, count, length and rate the project reads
/// has one, so that no accepted value, however large, can overflow the
/// fixed-point and integer arithmetic it feeds; docs/formats.md lists them.
///
/// Errors name the bound: `must be 0...86400 s, is 1e+300`,
/// `must be greater than 0 and at most 3600 s, is -1.0`.
public struct ValueBound: Sendable, Equatable, CustomStringConvertible {
  public var lower: Double
  public var includesLower: Bool
  public var upper: Double
  /// The unit shown after the bound ("" for none).
  public var unit: String

  /// `range`, both ends included.
  public init(_ range: ClosedRange<Double>, _ unit: String = "") {
    lower = range.lowerBound
    includesLower = true
    upper = range.upperBound
    self.unit = unit
  }

  /// Greater than `lower`, at most `upper`.
  public init(above lower: Double, atMost upper: Double, _ unit: String = "") {
    self.lower = lower
    includesLower = false
    self.upper = upper
    self.unit = unit
  }

  /// Whether `value` is finite and within the bound.
  public func contains(_ value: Double) -> Bool {
    value.isFinite && (includesLower ? value >= lower : value > lower) && value <= upper
  }

  /// `0...3600 s` or `greater than 0 and at most 3600 s`.
  public var description: String {
    let u = unit.isEmpty ? "" : " " + unit
    if includesLower { return "\(ValueBound.show(lower))...\(ValueBound.show(upper))\(u)" }
    return "greater than \(ValueBound.show(lower)) and at most \(ValueBound.show(upper))\(u)"
  }

  /// What an error says about `value`: `must be 0...3600 s, is 1e+300`.
  public func violation(_ value: Double) -> String {
    "must be \(description), is \(value)"
  }

  /// Whole numbers without a fraction (`3600`, not `3600.0`).
  static func show(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
  }
}

extension ValueBound {
  // MARK: Times, seconds

  /// A run's length: `--duration`, a scenario's `duration_s` (about 115 days).
  public static let runLength_s = ValueBound(above: 0, atMost: 10_000_000, "s")
  /// A moment or a span in a script: a scenario's `start_s`, rise, hold and
  /// keyframe times, a fault's times, a control line's `at`.
  public static let scriptTime_s = ValueBound(0...10_000_000, "s")
  /// Detection timing that may be 0 (`max_on_s`: 0 = never, a day at most).
  public static let maxOn_s = ValueBound(0...86_400, "s")
  /// Baselines frozen after a release (`hold_s`).
  public static let holdAfterRelease_s = ValueBound(0...3600, "s")
  /// A time constant (`drift_up_s`, `drift_down_s`, the simulator's creep).
  public static let timeConstant_s = ValueBound(above: 0, atMost: 3600, "s")
  /// A calibration step's recording, a tare, a hold, a step's timeout.
  public static let stepTime_s = ValueBound(above: 0, atMost: 3600, "s")
  /// How long readings must be still before a step is recorded.
  public static let settle_s = ValueBound(above: 0, atMost: 600, "s")
  /// The stability window (its frames are held in memory).
  public static let window_s = ValueBound(above: 0, atMost: 10, "s")
  /// A simulated fixture's lowering and lifting.
  public static let rise_s = ValueBound(above: 0, atMost: 60, "s")

  // MARK: Forces, masses

  /// A force in newtons (the core's range is about 2097 N).
  public static let force_n = ValueBound(0...1000, "N")
  /// A force threshold in newtons that must not be 0.
  public static let positiveForce_n = ValueBound(above: 0, atMost: 1000, "N")
  /// `[interaction] average_touch_n`.
  public static let averageTouch_n = ValueBound(above: 0, atMost: 100, "N")
  /// `[interaction] max_force`, normalized.
  public static let maxForce = ValueBound(above: 0, atMost: 1000)
  /// The largest force a board may report, `max_force` x `average_touch_n`.
  public static let reportedForce_n = ValueBound(above: 0, atMost: 2000, "N")
  /// A mass in grams (100 kg; 0 = no load).
  public static let mass_g = ValueBound(0...100_000, "g")
  /// The single-point comparison's mass.
  public static let referenceMass_g = ValueBound(above: 0, atMost: 100_000, "g")

  // MARK: Counts, rates, lengths, temperatures

  /// ADC counts, or counts per newton or per degree: within 25 bits.
  public static let counts = ValueBound(-16_777_216...16_777_216, "counts")
  /// A cell's sensitivity, counts per newton.
  public static let gain_counts_per_n = ValueBound(-1e9...1e9, "counts/N")
  /// A simulated cell's sensitivity, counts per newton.
  public static let simulatedGain = ValueBound(above: 0, atMost: 1e9, "counts/N")
  /// A relative coefficient (per newton, per degree, a fraction).
  public static let coefficient = ValueBound(-1...1)
  /// An entry of a plate's coupling matrix (Q8.24 in the core).
  public static let coupling = ValueBound(-100...100)
  /// Events per second (the simulator's spikes).
  public static let rate_hz = ValueBound(0...100_000, "Hz")
  /// A length on or over a panel (10 m).
  public static let length_mm = ValueBound(above: 0, atMost: 10_000, "mm")
  /// A pass/fail limit in percent.
  public static let percent = ValueBound(above: 0, atMost: 1000, "%")
  /// A temperature (a chamber, a panel, a recording's `temp_c`).
  public static let temperature_c = ValueBound(-60...150, "degC")
  /// `--speed`: 0 (as fast as possible) or 0.001...1000 (below).
  public static let speed = ValueBound(0.001...1000)
}

extension FixedWidthInteger {
  /// `value` converted to this type, clamped to its range (NaN is 0). The
  /// fraction is dropped: round first (`.rounded()`, `.rounded(.up)`).
  /// For the conversions left after every input has been bounded at load.
  public init(saturating value: Double) {
    if value.isNaN {
      self = 0
    } else if value >= Double(Self.max) {
      self = .max
    } else if value <= Double(Self.min) {
      self = .min
    } else {
      self.init(value)
    }
  }
}
