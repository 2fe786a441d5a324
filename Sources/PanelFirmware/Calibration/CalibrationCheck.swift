/// One pass/fail check of a calibration against its plan's limits.
public struct CalibrationCheck: Sendable, Equatable {
  /// What is checked: "response", "noise", "non-linearity", ...
  public var name: String
  /// What it is about: "cell 2", "step 7 (step-07.csv)", "panel".
  public var subject: String
  public var value: Double
  public var limit: Double
  /// The unit of `value` and `limit`: "N", "%", "mm", "counts".
  public var unit: String
  public var passed: Bool
  /// Why it failed, in words (empty when it passed).
  public var note: String

  public init(
    name: String, subject: String, value: Double, limit: Double, unit: String, passed: Bool, note: String = ""
  ) {
    self.name = name
    self.subject = subject
    self.value = value
    self.limit = limit
    self.unit = unit
    self.passed = passed
    self.note = note
  }

  /// One line: "cell 2: non-linearity 3.02 % (limit 0.5 %): ...".
  public var summary: String {
    var s = "\(subject): \(name) \(Format.fixed(value, Format.places(value))) \(unit) (limit \(Format.fixed(limit, Format.places(limit))) \(unit))"
    if !note.isEmpty { s += ": " + note }
    return s
  }
}

/// A summary of the fit, kept in the record.
public struct FitSummary: Sendable, Equatable {
  public var model: String
  /// Grid: the fitted depth of the spreading layer.
  public var spread_mm: Double?
  /// Placements used by the fit.
  public var placements: Int
  /// RMS residual, % of the largest load.
  public var residual_pct: Double
  public init(model: String, spread_mm: Double?, placements: Int, residual_pct: Double) {
    self.model = model
    self.spread_mm = spread_mm
    self.placements = placements
    self.residual_pct = residual_pct
  }
}

/// Number formatting without Foundation.
public enum Format {
  /// `value` with `places` decimals ("-0.00" becomes "0.00"; non-finite: "n/a").
  public static func fixed(_ value: Double, _ places: Int) -> String {
    guard value.isFinite else { return "n/a" }
    var p = 1.0
    for _ in 0..<places { p *= 10 }
    let scaled = (abs(value) * p).rounded()
    guard scaled < 9e15 else { return "\(value)" }
    let n = Int64(scaled)
    let whole = n / Int64(p)
    var fraction = String(n % Int64(p))
    while fraction.count < places { fraction = "0" + fraction }
    let sign = value < 0 && n != 0 ? "-" : ""
    return places > 0 ? "\(sign)\(whole).\(fraction)" : "\(sign)\(whole)"
  }

  /// Decimals that show three significant digits of `value` (at most 6).
  public static func places(_ value: Double) -> Int {
    let a = abs(value)
    if a >= 100 || a == 0 { return a == 0 ? 1 : 0 }
    if a >= 10 { return 1 }
    if a >= 1 { return 2 }
    var places = 2
    var x = a
    while x < 1 && places < 6 {
      x *= 10
      places += 1
    }
    return places - 1
  }

  /// Three significant digits.
  public static func short(_ value: Double) -> String { fixed(value, places(value)) }
}
