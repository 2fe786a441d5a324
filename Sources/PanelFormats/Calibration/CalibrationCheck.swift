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
  /// Grid: the spreading model kept, "boussinesq" (a layer `spread_mm`
  /// deep) or "profile" (learnt: `profile`, `g` every `profileStep_mm`).
  public var kernel: String?
  public var profile: [Double]?
  public var profileStep_mm: Double?
  public init(
    model: String, spread_mm: Double?, placements: Int, residual_pct: Double, kernel: String? = nil,
    profile: [Double]? = nil, profileStep_mm: Double? = nil
  ) {
    self.model = model
    self.spread_mm = spread_mm
    self.placements = placements
    self.residual_pct = residual_pct
    self.kernel = kernel
    self.profile = profile
    self.profileStep_mm = profileStep_mm
  }
}

/// How a grid's contacts take their force (from the calibration's
/// spreading model): the cells within `radius` cells of a peak, their sum
/// times `captureScale + captureSlope * d^2` (the inverse of the share of a
/// press they carry, `d` the press's distance from the peak cell's centre
/// in pitches).
///
/// Two peaks two cells apart are one contact when the cell between them
/// holds `mergeSaddle` of the smaller (0: the board's `merge_saddle`): on
/// a wide spreading, two fingers two pitches apart leave a high saddle, so
/// the rule is set halfway between that saddle and a flat top (1).
public struct ContactModel: Sendable, Equatable {
  public var radius: Int
  public var captureScale: Double
  public var captureSlope: Double
  public var mergeSaddle: Double
  public init(radius: Int, captureScale: Double, captureSlope: Double = 0, mergeSaddle: Double = 0) {
    self.radius = radius
    self.captureScale = captureScale
    self.captureSlope = captureSlope
    self.mergeSaddle = mergeSaddle
  }

  /// The model for a spreading whose cell at (`dx`, `dy`) mm from a press
  /// takes `weight(dx, dy)` of it (unnormalised), on an unbounded grid of
  /// `pitch`, for cells with `noise_n` of noise each: the radius (1 ... 3
  /// cells) whose sum is expected nearest a 1 N press's force (more cells
  /// carry more of the press, so the capture scale, a model, corrects
  /// less, but add their noise: a quiet panel takes a wide window, a noisy
  /// one a narrow one), and the inverse share fitted as `a + b d^2` over
  /// where in the cell the press lands (least squares).
  public static func fit(
    pitch: Double, reach: Int, noise_n: Double, weight: (Double, Double) -> Double
  ) -> ContactModel {
    let samples = 8
    var offsets: [(d2: Double, shares: [Double])] = []
    for a in 0..<samples {
      for b in 0..<samples {
        let u = (Double(a) + 0.5) / Double(samples) - 0.5
        let v = (Double(b) + 0.5) / Double(samples) - 0.5
        var near = [Double](repeating: 0, count: 4)
        var all = 0.0
        for dc in -reach...reach {
          for dr in -reach...reach {
            let w = weight((Double(dc) - u) * pitch, (Double(dr) - v) * pitch)
            all += w
            for r in 1...3 where abs(dc) <= r && abs(dr) <= r { near[r] += w }
          }
        }
        offsets.append((u * u + v * v, near.map { all > 0 ? $0 / all : 1 }))
      }
    }
    // Expected error of a 1 N press: half of what the scale must make up
    // where the window holds least, and the window's noise.
    func error(_ r: Int) -> Double {
      let least = offsets.map { $0.shares[r] }.min() ?? 1
      let model = 0.5 * (1 - least)
      let noise = max(noise_n, 0) * Double(2 * r + 1)
      return (model * model + noise * noise).squareRoot()
    }
    let radius = (1...3).min { error($0) < error($1) } ?? 2
    // 1 / share = a + b d^2, least squares.
    var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
    for o in offsets {
      let y = 1 / max(o.shares[radius], 0.5)
      n += 1
      sx += o.d2
      sy += y
      sxx += o.d2 * o.d2
      sxy += o.d2 * y
    }
    let det = n * sxx - sx * sx
    let b = det > 0 ? (n * sxy - sx * sy) / det : 0
    let a = (sy - b * sx) / n
    // Two equal presses on cell centres two pitches apart: the cell
    // between them against each peak.
    let peak = weight(0, 0) + weight(2 * pitch, 0)
    let twoPresses = peak > 0 ? 2 * weight(pitch, 0) / peak : 0
    let merge = twoPresses > 0.4 ? min((twoPresses + 1) / 2, 0.95) : 0
    return ContactModel(
      radius: radius, captureScale: min(max(a, 0.5), 4), captureSlope: min(max(b, -4), 4), mergeSaddle: merge)
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
